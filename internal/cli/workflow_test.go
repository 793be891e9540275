package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/testkit"
)

// shop is the e2e spec and overlay, which the check tests copy and break.
var shopDir = filepath.Join(repoRoot, "testdata", "e2e", "shop")

func shopAbs(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs(shopDir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// shopCopy copies the shop spec and overlay into a fresh directory and
// generates its server into dir/mcpserver, as a repository would hold them.
func shopCopy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"openapi.yaml", "overlay.yaml"} {
		b, err := os.ReadFile(filepath.Join(shopAbs(t), f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	if code, _, stderr := run(t, "generate", "--spec", "openapi.yaml", "--overlay", "overlay.yaml", "--out", "mcpserver", "--omit-version", "-q"); code != ExitOK {
		t.Fatalf("generate: exit %d\n%s", code, stderr)
	}
	return dir
}

func edit(t *testing.T, file, old, new string) {
	t.Helper()
	b := read(t, file)
	if !strings.Contains(b, old) {
		t.Fatalf("%s has no %q", file, old)
	}
	write(t, file, strings.Replace(b, old, new, 1))
}

var checkArgs = []string{"check", "--spec", "openapi.yaml", "--overlay", "overlay.yaml", "--out", "mcpserver", "--omit-version"}

func TestCheckUpToDate(t *testing.T) {
	shopCopy(t)
	code, stdout, stderr := run(t, checkArgs...)
	if code != ExitOK || stdout != "" || !strings.Contains(stderr, "tailor check: mcpserver is up to date (3 tools)") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

func TestCheckStaleOutput(t *testing.T) {
	shopCopy(t)
	// The overlay changed but the output was not regenerated.
	edit(t, "overlay.yaml", "title: Look up an order", "title: Find an order")
	code, stdout, stderr := run(t, checkArgs...)
	if code != ExitChanged {
		t.Errorf("exit %d, want %d\n%s", code, ExitChanged, stderr)
	}
	for _, want := range []string{`(?m)^--- a/tools.go\n\+\+\+ b/tools.go$`, `(?m)^-\s+Title:\s+"Look up an order",$`, `(?m)^\+\s+Title:\s+"Find an order",$`} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("the diff lacks %s:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "server.go, tools.go, schemas.go in mcpserver are stale: run tailor generate with the same flags and commit the result") {
		t.Errorf("stderr:\n%s", stderr)
	}

	// A missing file is stale too.
	if err := os.Remove(filepath.Join("mcpserver", "server.go")); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := run(t, checkArgs...); code != ExitChanged || !strings.Contains(stdout, "--- /dev/null\n+++ b/server.go") {
		t.Errorf("missing server.go: exit %d\n%s", code, stdout)
	}
}

func TestCheckRemovedOperation(t *testing.T) {
	original := filepath.Join(shopAbs(t), "openapi.yaml")
	shopCopy(t)
	edit(t, "openapi.yaml", "operationId: createRefund", "operationId: makeRefund")
	edit(t, "openapi.yaml", "  /refunds:", "  /refund-requests:")
	code, stdout, stderr := run(t, append(checkArgs, "--against", original)...)
	if code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	if !strings.Contains(stderr, "overlay.yaml:39:16: error: unknown operation `createRefund`; did you mean `makeRefund`?") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if !strings.Contains(stdout, "error: POST /refunds: API path removed without deprecation [api-path-removed-without-deprecation]") {
		t.Errorf("the breaking changes do not name the removed operation:\n%s", stdout)
	}
}

// TestCheckSpecBroken: a spec that no longer generates fails the check
// with the spec's errors, introduced for what they are: without an
// overlay, not as a misfit between overlay and spec.
func TestCheckSpecBroken(t *testing.T) {
	shopCopy(t)
	args := []string{"check", "--spec", "openapi.yaml", "--out", "mcpserver", "--omit-version"}
	edit(t, "openapi.yaml", "operationId: createRefund", "operationId: [createRefund]")
	code, _, stderr := run(t, args...)
	if code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	if !strings.Contains(stderr, "tailor check: the spec no longer generates; fix these, then run generate:\nopenapi.yaml:") || strings.Contains(stderr, "overlay") {
		t.Errorf("stderr:\n%s", stderr)
	}
	code, _, stderr = run(t, checkArgs...)
	if code != ExitFailed || !strings.Contains(stderr, "tailor check: the overlay and the spec no longer fit together; fix these, then run generate:\nopenapi.yaml:") {
		t.Errorf("with the overlay: exit %d\n%s", code, stderr)
	}
}

func TestCheckRenamedField(t *testing.T) {
	shopCopy(t)
	edit(t, "openapi.yaml", "        total: {type: integer, format: int64}\n", "        grand_total: {type: integer, format: int64}\n")
	code, _, stderr := run(t, checkArgs...)
	if code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	for _, want := range []string{
		"overlay.yaml:22:32: error: tool `find_order`, result: the response has no field `total`",
		"overlay.yaml:23:106: error: tool `find_order`, result text: the response has no field `total`",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestCheckFindsTheOldSpecInGit: the header's hash names the spec the
// output came from; check finds it in the spec's git history and reports
// what changed since, besides the stale output.
func TestCheckFindsTheOldSpecInGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := shopCopy(t)
	gitRun := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitRun("init", "-q")
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "generated")
	edit(t, "openapi.yaml", "        - {name: session, in: cookie, schema: {type: string}}\n",
		"        - {name: session, in: cookie, schema: {type: string}}\n        - {name: region, in: query, required: true, schema: {type: string}}\n")
	gitRun("commit", "-q", "-am", "region")

	code, stdout, stderr := run(t, checkArgs...)
	if code != ExitChanged {
		t.Errorf("exit %d, want %d\n%s", code, ExitChanged, stderr)
	}
	for _, want := range []string{
		"breaking changes from openapi.yaml at ",
		"error: GET /orders/{order_id}: added the new required `query` request parameter `region` [new-required-request-parameter]",
		"+++ b/tools.go",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	// Regenerated, the output is up to date; --fail-on-breaking still
	// fails on the change against the committed base.
	run(t, "generate", "--spec", "openapi.yaml", "--overlay", "overlay.yaml", "--out", "mcpserver", "--omit-version", "-q")
	if code, _, stderr := run(t, checkArgs...); code != ExitOK {
		t.Errorf("regenerated: exit %d\n%s", code, stderr)
	}
	code, stdout, _ = run(t, append(checkArgs, "--against", "HEAD~1:./openapi.yaml", "--fail-on-breaking")...)
	if code != ExitFailed || !strings.Contains(stdout, "new-required-request-parameter") {
		t.Errorf("--against HEAD~1 --fail-on-breaking: exit %d\n%s", code, stdout)
	}
}

// TestInitDraftsAnOverlayThatGenerates: the draft parses, and generates
// the same tools as the raw set.
func TestInitDraftsAnOverlayThatGenerates(t *testing.T) {
	for _, spec := range []string{
		filepath.Join(shopDir, "openapi.yaml"),
		filepath.Join(repoRoot, "testdata", "cases", "curated-quote", "openapi.yaml"),
		filepath.Join(repoRoot, "testdata", "cases", "petstore", "openapi.yaml"),
		filepath.Join(repoRoot, "testdata", "cases", "swagger2", "openapi.json"),
		filepath.Join(repoRoot, "testdata", "cases", "names", "openapi.yaml"),
	} {
		t.Run(filepath.Base(filepath.Dir(spec)), func(t *testing.T) { initGenerates(t, spec, "") })
	}
}

// initGenerates checks tailor init's draft for spec, whose $refs may read
// below refRoot ("" for the spec's folder).
func initGenerates(t *testing.T, spec, refRoot string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "tools.yaml")
	code, _, stderr := run(t, "init", "--spec", spec, "--out", out, "--ref-root", refRoot)
	if code != ExitOK {
		t.Fatalf("init: exit %d\n%s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "# yaml-language-server: $schema=https://raw.githubusercontent.com/tailormcp/tailor/main/overlays/overlay.schema.json\n") {
		t.Errorf("the draft does not start with the schema line:\n%s", data[:min(len(data), 200)])
	}
	if _, err := overlay.Parse(out, data); err != nil {
		t.Fatalf("the draft does not parse: %v\n%s", err, data)
	}
	raw, err := generator.Run(generator.Options{SpecPath: spec, RefRoot: refRoot, SkipValidation: true})
	if err != nil {
		t.Fatal(err)
	}
	cur, err := generator.Run(generator.Options{SpecPath: spec, OverlayPath: out, RefRoot: refRoot, SkipValidation: true})
	if err != nil {
		t.Fatalf("the draft does not generate: %v\n%s", err, data)
	}
	// The same tools, grouped by tag rather than in path order.
	sig := func(tools []*ir.Tool) []string {
		var out []string
		for _, tl := range tools {
			out = append(out, tl.Name+"\x00"+tl.Description+"\x00"+string(tl.InputSchema))
		}
		sort.Strings(out)
		return out
	}
	if have, want := sig(cur.Curated.Tools), sig(raw.Curated.Tools); strings.Join(have, "\n") != strings.Join(want, "\n") {
		t.Errorf("the draft's %d tools are not the raw set's %d", len(have), len(want))
	}
	if code, _, _ := run(t, "init", "--spec", spec, "--out", out); code != ExitUsage {
		t.Errorf("init over an existing file: exit %d, want %d", code, ExitUsage)
	}
}

func TestInitCallsOutIdentityAndMoney(t *testing.T) {
	code, stdout, stderr := run(t, "init", "--spec", filepath.Join(repoRoot, "testdata", "cases", "curated-quote", "openapi.yaml"))
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"tailor: 1\n",
		"#     customer_id: {header: X-Customer-Id, claim: customer_id, env: CUSTOMER_ID}\n",
		"  # lint: money-from-model (error): write tool `create_refund` asks the model for `amount`",
		"    #   X-Customer-Id: {from: context.customer_id}   # identity-like",
		"    #   amount: {description: \"...\"}   # money-like: POST /orders/{order_id}/refund-quotes (quoteRefund) can quote it",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the draft lacks %q:\n%s", want, stdout)
		}
	}
}

func TestMCPConfig(t *testing.T) {
	code, stdout, _ := run(t, "mcp-config", "--name", "shop", "--command", "shop-server", "--arg", "--stateless", "--env", "SHOP_BASE_URL=http://127.0.0.1:9000", "--env", "SHOP_KEY=k=v")
	want := `{
  "mcpServers": {
    "shop": {
      "args": [
        "--stateless"
      ],
      "command": "shop-server",
      "env": {
        "SHOP_BASE_URL": "http://127.0.0.1:9000",
        "SHOP_KEY": "k=v"
      }
    }
  }
}
`
	if code != ExitOK || stdout != want {
		t.Errorf("exit %d\n%s\nwant\n%s", code, stdout, want)
	}
	// A relative path is made absolute: clients start servers elsewhere.
	_, stdout, _ = run(t, "mcp-config", "--name", "shop", "--command", "./bin/shop")
	abs, _ := filepath.Abs("./bin/shop")
	var cfg struct {
		MCPServers map[string]struct{ Command string } `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(stdout), &cfg); err != nil || cfg.MCPServers["shop"].Command != abs {
		t.Errorf("relative command: %v\n%s", err, stdout)
	}
	_, stdout, _ = run(t, "mcp-config", "--name", "shop", "--url", "http://127.0.0.1:8080/mcp")
	if !strings.Contains(stdout, `"type": "http"`) || !strings.Contains(stdout, `"url": "http://127.0.0.1:8080/mcp"`) {
		t.Errorf("--url:\n%s", stdout)
	}
	for _, args := range [][]string{
		{"mcp-config", "--command", "x"},
		{"mcp-config", "--name", "shop"},
		{"mcp-config", "--name", "shop", "--command", "x", "--url", "http://x"},
		{"mcp-config", "--name", "sh op", "--command", "x"},
		{"mcp-config", "--name", "shop", "--command", "x", "--env", "NOVALUE"},
	} {
		if code, stdout, _ := run(t, args...); code != ExitUsage || stdout != "" {
			t.Errorf("%v: exit %d, want %d", args, code, ExitUsage)
		}
	}
}

func TestWorkflowHelpAndUsage(t *testing.T) {
	for _, c := range []string{"diff", "lint", "check", "init", "mcp-config"} {
		code, stdout, _ := run(t, c, "--help")
		if code != ExitOK || !strings.Contains(stdout, "Examples:") || !strings.Contains(stdout, "tailor "+c+" --") {
			t.Errorf("%s --help: exit %d\n%s", c, code, stdout)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"diff"}, "tailor diff: --spec is required (see tailor diff --help)\n"},
		{[]string{"lint"}, "tailor lint: --spec is required (see tailor lint --help)\n"},
		{[]string{"check", "--spec", "x"}, "tailor check: --out is required (see tailor check --help)\n"},
		{[]string{"init"}, "tailor init: --spec is required (see tailor init --help)\n"},
		{[]string{"diff", "--spec", "x", "--format", "html"}, "tailor diff: --format must be one of table, markdown, json, not \"html\"\n"},
		{[]string{"lint", "--spec", "x", "--format", "table"}, "tailor lint: --format must be one of text, json, not \"table\"\n"},
	} {
		code, stdout, stderr := run(t, tc.args...)
		if code != ExitUsage || stdout != "" || stderr != tc.want {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
		}
	}
	// A spec that cannot be read is an input error, with its place.
	if code, _, stderr := run(t, "lint", "--spec", "no-such.yaml"); code != ExitFailed || !strings.Contains(stderr, "no-such.yaml: error: cannot read spec") {
		t.Errorf("missing spec: exit %d\n%s", code, stderr)
	}
	code, stdout, _ := run(t, "lint", "--list-rules")
	if code != ExitOK || !strings.Contains(stdout, "money-from-model") || !strings.Contains(stdout, "tool-poisoning") {
		t.Errorf("--list-rules: exit %d\n%s", code, stdout)
	}
}

// TestWorkflowOnCorpus runs diff and lint on every spec of the real-world
// corpus: no panic, an exit code of 0 or 1, JSON that parses, and no
// token-budget error on a raw tool set (lint's default budget only warns);
// and init drafts an overlay that generates. The wild specs (thirty more,
// several large) are linted only, to keep the test's time in bounds;
// TestCorpus generates each of them.
func TestWorkflowOnCorpus(t *testing.T) {
	dir := testkit.CorpusDir()
	if dir == "" {
		t.Skip("corpus not found beside the repository (../shared/corpus)")
	}
	specs, err := testkit.CorpusSpecs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, cs := range specs {
		spec := cs.Path
		t.Run(cs.Name, func(t *testing.T) {
			if testing.Short() && fileSize(spec) > 1<<20 {
				t.Skip("large spec in -short mode")
			}
			commands := [][]string{
				{"diff", "--spec", spec, "--format", "json", "--ref-root", cs.RefRoot},
				{"lint", "--spec", spec, "--format", "json", "--ref-root", cs.RefRoot},
			}
			if cs.Wild {
				commands = commands[1:]
			}
			for _, args := range commands {
				code, stdout, stderr := run(t, args...)
				if code != ExitOK && code != ExitFailed {
					t.Fatalf("%s: exit %d\n%s", args[0], code, stderr)
				}
				if code == ExitFailed && stdout == "" {
					t.Fatalf("%s failed without a report:\n%s", args[0], stderr)
				}
				var v struct {
					Findings []struct{ Rule, Severity string }
				}
				if err := json.Unmarshal([]byte(stdout), &v); err != nil {
					t.Fatalf("%s: not JSON: %v", args[0], err)
				}
				for _, f := range v.Findings {
					if f.Rule == "token-budget" && f.Severity != "warning" {
						t.Errorf("lint: token-budget is a %s on a raw tool set, want a warning", f.Severity)
					}
				}
			}
			if !cs.Wild {
				initGenerates(t, spec, cs.RefRoot)
			}
		})
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

// TestWorkflowOnExamples: the bundled examples' overlays lint without
// errors and diff, in every format.
func TestWorkflowOnExamples(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(repoRoot, "examples", "*"))
	for _, dir := range dirs {
		spec, overlay := filepath.Join(dir, "openapi.yaml"), filepath.Join(dir, "overlay.yaml")
		if !fileExists(spec) || !fileExists(overlay) {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if code, stdout, stderr := run(t, "lint", "--spec", spec, "--overlay", overlay); code != ExitOK {
				t.Errorf("lint: exit %d\n%s%s", code, stdout, stderr)
			}
			for _, format := range []string{"table", "markdown", "json"} {
				if code, stdout, stderr := run(t, "diff", "--spec", spec, "--overlay", overlay, "--format", format); code != ExitOK || stdout == "" {
					t.Errorf("diff --format %s: exit %d\n%s", format, code, stderr)
				}
			}
		})
	}
}
