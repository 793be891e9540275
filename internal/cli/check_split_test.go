package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The tests of tailor check on a spec split over files: the version the
// output was generated from is the root and every file its $refs read, as
// they were in that commit.

// splitSpec is a spec in four files: the root, parameters beside it, and a
// schema that refers to another one.
var splitSpec = map[string]string{
	"openapi.yaml": `openapi: 3.0.3
info: {title: Tasks, version: "1"}
servers: [{url: "https://tasks.example.com"}]
paths:
  /tasks/{task_id}:
    get:
      operationId: getTask
      summary: Get a task
      parameters:
        - $ref: "./parameters.yaml#/TaskId"
        - $ref: "./parameters.yaml#/Fields"
      responses:
        "200":
          description: The task
          content:
            application/json:
              schema: {$ref: "./schemas/task.yaml"}
`,
	"parameters.yaml": `TaskId: {name: task_id, in: path, required: true, schema: {type: string}}
Fields: {name: fields, in: query, required: false, schema: {type: string}}
`,
	"schemas/task.yaml": `type: object
required: [id, title]
properties:
  id: {type: string}
  title: {type: string}
  owner: {$ref: "./owner.yaml"}
`,
	"schemas/owner.yaml": `type: object
required: [name, email, legacy]
properties:
  name: {type: string}
  email: {type: string}
  legacy: {type: string}
`,
}

// splitRepo writes splitSpec into dir/repo, a new git repository (dir
// itself stays outside it), makes it the working directory and returns
// a function running git there.
func splitRepo(t *testing.T) (gitRun func(args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := filepath.Join(t.TempDir(), "repo")
	for name, text := range splitSpec {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, p, text)
	}
	t.Chdir(repo)
	gitRun = func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	gitRun("init", "-q")
	return gitRun
}

var splitArgs = []string{"check", "--spec", "openapi.yaml", "--out", "mcpserver", "--omit-version"}

func splitGenerate(t *testing.T) {
	t.Helper()
	if code, _, stderr := run(t, "generate", "--spec", "openapi.yaml", "--out", "mcpserver", "--omit-version", "-q"); code != ExitOK {
		t.Fatalf("generate: exit %d\n%s", code, stderr)
	}
}

func mustHave(t *testing.T, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

func mustNotHave(t *testing.T, what, text string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(text, w) {
			t.Errorf("%s has %q:\n%s", what, w, text)
		}
	}
}

// TestCheckSplitSpecOnlyARefChanged: the root is the same, so only the
// header's hash over every file tells the versions apart; the changes in
// a file the root refers to, and in one that file refers to, are listed
// with their places.
func TestCheckSplitSpecOnlyARefChanged(t *testing.T) {
	gitRun := splitRepo(t)
	splitGenerate(t)
	if h := read(t, filepath.Join("mcpserver", "server.go")); !strings.Contains(h, "\n// Source with $refs: 4 files (sha256:") {
		t.Fatalf("the header does not record the spec's 4 files:\n%s", h[:300])
	}
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "generated")
	generated := gitRun("rev-parse", "--short=12", "HEAD")
	edit(t, "parameters.yaml", "required: false", "required: true")
	edit(t, filepath.Join("schemas", "owner.yaml"), "  email: {type: string}\n", "")
	edit(t, filepath.Join("schemas", "owner.yaml"), "[name, email, legacy]", "[name, legacy]")
	gitRun("commit", "-q", "-am", "fields required, no email")

	code, stdout, stderr := run(t, splitArgs...)
	if code != ExitChanged {
		t.Errorf("exit %d, want %d\n%s", code, ExitChanged, stderr)
	}
	mustHave(t, "stdout", stdout,
		"breaking changes from openapi.yaml at "+generated+" to openapi.yaml in the operations the tools call (oasdiff):\n",
		"  error: GET /tasks/{task_id}: the `query` request parameter `fields` became required (parameters.yaml:2:",
		"  error: GET /tasks/{task_id}: removed the required property `owner/email` from the response with the `200` status (schemas/owner.yaml:5:3, in the old version) [response-required-property-removed]\n",
	)
	mustNotHave(t, "the breaking changes", breakingPart(stdout), "legacy")

	// Regenerated, the output is up to date and nothing is compared.
	splitGenerate(t)
	if code, stdout, stderr := run(t, splitArgs...); code != ExitOK || stdout != "" {
		t.Errorf("regenerated: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// --against REV:PATH reads the files the $refs name at REV too.
	code, stdout, _ = run(t, append(splitArgs, "--against", "HEAD~1:openapi.yaml", "--fail-on-breaking")...)
	if code != ExitFailed {
		t.Errorf("--against HEAD~1:openapi.yaml --fail-on-breaking: exit %d, want %d", code, ExitFailed)
	}
	mustHave(t, "--against stdout", stdout, "breaking changes from HEAD~1:openapi.yaml to openapi.yaml", "[request-parameter-became-required]", "`owner/email`")
}

// TestCheckSplitSpecRootAndRefChanged: the root and a file it refers to
// changed in one commit; the old root is read with the files as they were
// where the output was generated, not with today's (nor with those of an
// older commit with the same root).
func TestCheckSplitSpecRootAndRefChanged(t *testing.T) {
	gitRun := splitRepo(t)
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "spec")
	// Only a referenced file changes before the output is generated: the
	// first commit has the same root and must not be taken.
	edit(t, filepath.Join("schemas", "owner.yaml"), "  legacy: {type: string}\n", "")
	edit(t, filepath.Join("schemas", "owner.yaml"), "[name, email, legacy]", "[name, email]")
	splitGenerate(t)
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "no legacy; generated")
	generated := gitRun("rev-parse", "--short=12", "HEAD")
	// The spec is made of one more file now: the version is told by
	// running the candidates, not by today's files.
	edit(t, "openapi.yaml", `        - $ref: "./parameters.yaml#/Fields"`+"\n",
		`        - $ref: "./parameters.yaml#/Fields"`+"\n"+`        - $ref: "./region.yaml"`+"\n")
	write(t, "region.yaml", "{name: region, in: query, required: true, schema: {type: string}}\n")
	edit(t, filepath.Join("schemas", "owner.yaml"), "  email: {type: string}\n", "")
	edit(t, filepath.Join("schemas", "owner.yaml"), "[name, email]", "[name]")
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "region; no email")

	code, stdout, stderr := run(t, splitArgs...)
	if code != ExitChanged {
		t.Errorf("exit %d, want %d\n%s", code, ExitChanged, stderr)
	}
	mustHave(t, "stdout", stdout,
		"breaking changes from openapi.yaml at "+generated+" to openapi.yaml",
		"error: GET /tasks/{task_id}: added the new required `query` request parameter `region` (region.yaml:1:",
		"removed the required property `owner/email` from the response with the `200` status (schemas/owner.yaml:",
	)
	mustNotHave(t, "the breaking changes", breakingPart(stdout), "legacy")
	mustNotHave(t, "stderr", stderr, "tailor check: the ")
}

// TestCheckSplitSpecOldHeader: output generated by a tailor that recorded
// the root's hash only still finds its version when the root changed (the
// referenced files taken from the same commit), and says what it cannot
// know when only a referenced file did.
func TestCheckSplitSpecOldHeader(t *testing.T) {
	gitRun := splitRepo(t)
	splitGenerate(t)
	// The header as tailor wrote it before it recorded every file.
	for _, f := range []string{"server.go", "tools.go", "schemas.go"} {
		p := filepath.Join("mcpserver", f)
		text := read(t, p)
		i := strings.Index(text, "// Source with $refs: ")
		if i < 0 {
			t.Fatalf("%s has no line recording the spec's files", p)
		}
		write(t, p, text[:i]+text[i+strings.Index(text[i:], "\n")+1:])
	}
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "generated by an earlier tailor")
	generated := gitRun("rev-parse", "--short=12", "HEAD")

	edit(t, filepath.Join("schemas", "owner.yaml"), "  email: {type: string}\n", "")
	edit(t, filepath.Join("schemas", "owner.yaml"), "[name, email, legacy]", "[name, legacy]")
	code, stdout, stderr := run(t, splitArgs...)
	if code != ExitChanged {
		t.Errorf("only a referenced file changed: exit %d, want %d\n%s", code, ExitChanged, stderr)
	}
	mustHave(t, "stderr", stderr, "tailor check: the header of mcpserver/server.go records the hash of openapi.yaml only (it was generated by an earlier tailor): changes to the files its $refs read since then are not listed; regenerate to record them\n")
	mustNotHave(t, "stdout", stdout, "breaking changes")

	edit(t, "openapi.yaml", "summary: Get a task", "summary: Get one task")
	edit(t, "parameters.yaml", "required: false", "required: true")
	gitRun("commit", "-q", "-am", "root and refs")
	code, stdout, stderr = run(t, splitArgs...)
	if code != ExitChanged {
		t.Errorf("the root changed too: exit %d, want %d\n%s", code, ExitChanged, stderr)
	}
	mustHave(t, "stdout", stdout,
		"breaking changes from openapi.yaml at "+generated+" to openapi.yaml",
		"[request-parameter-became-required]",
		"removed the required property `owner/email`")
	mustHave(t, "stderr", stderr, "tailor check: the header of mcpserver/server.go records the hash of openapi.yaml only (it was generated by an earlier tailor): the files its $refs read are taken as they were in the same commit\n")
}

// TestCheckSplitSpecOldVersionUnreadable: an old version whose files
// cannot be read as the loader reads the current ones (a $ref or a link
// leading out of the spec's folder, a file missing at that commit) is a
// note saying so; nothing outside is read and check goes on.
func TestCheckSplitSpecOldVersionUnreadable(t *testing.T) {
	gitRun := splitRepo(t)
	outside := filepath.Join(filepath.Dir(mustGetwd(t)), "outside.yaml")
	write(t, outside, "Fields: {name: fields, in: query, required: false, schema: {type: string, description: SECRET-OUTSIDE}}\n")

	// A commit whose root refers to a file beside the repository.
	edit(t, "openapi.yaml", `"./parameters.yaml#/Fields"`, `"../outside.yaml#/Fields"`)
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "a $ref out of the folder")
	escaping := gitRun("rev-parse", "HEAD")
	// A commit whose referenced file is a link to that file.
	edit(t, "openapi.yaml", `"../outside.yaml#/Fields"`, `"./parameters.yaml#/Fields"`)
	if err := os.Remove("parameters.yaml"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, "parameters.yaml"); err != nil {
		t.Skip("no symbolic links:", err)
	}
	gitRun("add", "-A")
	gitRun("commit", "-q", "-m", "a link out of the folder")
	linking := gitRun("rev-parse", "HEAD")
	// Today's spec, generated with a version of a file that was never
	// committed.
	if err := os.Remove("parameters.yaml"); err != nil {
		t.Fatal(err)
	}
	write(t, "parameters.yaml", splitSpec["parameters.yaml"])
	gitRun("add", "-A")
	gitRun("commit", "-q", "-m", "parameters")
	edit(t, filepath.Join("schemas", "owner.yaml"), "  legacy: {type: string}\n", "")
	gitRun("rm", "-q", "--cached", filepath.Join("schemas", "owner.yaml"))
	splitGenerate(t)
	gitRun("add", "mcpserver")
	gitRun("commit", "-q", "-m", "generated, owner.yaml not committed")
	missing := gitRun("rev-parse", "--short=12", "HEAD")

	code, stdout, stderr := run(t, append(splitArgs, "--against", escaping+":openapi.yaml")...)
	if code != ExitOK {
		t.Errorf("a $ref out of the folder: exit %d\n%s", code, stderr)
	}
	mustHave(t, "stderr", stderr, "tailor check: cannot load "+escaping+":openapi.yaml: ", "openapi.yaml:11:11: error: $ref \"../outside.yaml#/Fields\" reads ../outside.yaml, outside ., the folder $refs may read: to allow it, run with --ref-root ..\n")
	mustNotHave(t, "output", stdout+stderr, "SECRET-OUTSIDE")

	code, stdout, stderr = run(t, append(splitArgs, "--against", linking+":openapi.yaml")...)
	if code != ExitOK {
		t.Errorf("a link out of the folder: exit %d\n%s", code, stderr)
	}
	mustHave(t, "stderr", stderr, "tailor check: cannot load "+linking+":openapi.yaml: ", "reads parameters.yaml, a link to ../outside.yaml, outside ., the folder $refs may read")
	mustNotHave(t, "output", stdout+stderr, "SECRET-OUTSIDE")

	// A version missing a file is compared without it, saying so.
	code, _, stderr = run(t, append(splitArgs, "--against", missing+":openapi.yaml")...)
	if code != ExitOK {
		t.Errorf("--against a version missing a file: exit %d\n%s", code, stderr)
	}
	mustHave(t, "stderr", stderr, "tailor check: "+missing+":openapi.yaml is compared without a file its $refs name: schemas/owner.yaml: file does not exist in commit "+missing+"\n")

	// The root changes: the version with its hash is found, but a file it
	// refers to was not committed.
	edit(t, "openapi.yaml", "summary: Get a task", "summary: Get one task")
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "owner.yaml committed")
	code, stdout, stderr = run(t, splitArgs...)
	if code != ExitChanged {
		t.Errorf("a file missing at the commit: exit %d, want %d\n%s", code, ExitChanged, stderr)
	}
	mustHave(t, "stderr", stderr, "tailor check: the spec changed since mcpserver was generated, but its earlier version was not found (openapi.yaml at "+missing+" cannot be read whole: schemas/owner.yaml: file does not exist in commit "+missing+"); pass --against to list breaking changes\n")
	mustNotHave(t, "stdout", stdout, "breaking changes")
}

// breakingPart is check's stdout before the diffs of stale files.
func breakingPart(stdout string) string {
	before, _, _ := strings.Cut(stdout, "\n--- ")
	return before
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// TestCheckSplitSpecWiderRefRoot: with --ref-root above the spec's folder,
// a file beside that folder is part of the version too, and the search
// looks at the commits that changed anything below the ref root.
func TestCheckSplitSpecWiderRefRoot(t *testing.T) {
	gitRun := splitRepo(t)
	if err := os.MkdirAll("api", 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join("api", "openapi.yaml"), strings.ReplaceAll(splitSpec["openapi.yaml"], `"./`, `"../`))
	args := []string{"--spec", "api/openapi.yaml", "--out", "api/mcpserver", "--omit-version", "--ref-root", "."}
	if code, _, stderr := run(t, append([]string{"generate", "-q"}, args...)...); code != ExitOK {
		t.Fatalf("generate: exit %d\n%s", code, stderr)
	}
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "generated")
	generated := gitRun("rev-parse", "--short=12", "HEAD")
	edit(t, "parameters.yaml", "required: false", "required: true")
	gitRun("commit", "-q", "-am", "fields required")

	code, stdout, stderr := run(t, append([]string{"check"}, args...)...)
	if code != ExitChanged {
		t.Errorf("exit %d, want %d\n%s", code, ExitChanged, stderr)
	}
	mustHave(t, "stdout", stdout, "breaking changes from api/openapi.yaml at "+generated+" to api/openapi.yaml", "`fields` became required (parameters.yaml:2:")
}
