package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
	"github.com/tailormcp/tailor/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite what every testdata/cases/<case> expects (stdout, stderr, exit, out/) from what tailor does now")

// casesDir holds tailor's end-to-end cases of the command line, one folder
// each (adding a case is copying a folder):
//
//	cmd     the command line, one line: generate --spec openapi.yaml --out out --package petstore
//	...     its inputs: specs, overlays, the files their $refs read
//	stdout  what it prints on stdout (absent: nothing)
//	stderr  what it prints on stderr (absent: nothing)
//	exit    its exit code (absent: 0)
//	out/    the files it writes, all of them below out/ (absent: none)
//
// A $NAME in cmd is one of caseVars, started for the case alone.
var casesDir = filepath.Join(repoRoot, "testdata", "cases")

// expected are the names in a case folder that are not inputs.
var expected = []string{"cmd", "stdout", "stderr", "exit", "out"}

// TestCases runs each case in-process through Run, in a copy of its
// folder (so the command sees its inputs by the names a user would give,
// and messages name no machine's paths), and compares what it printed,
// returned and wrote. With -update it rewrites the expectations instead.
func TestCases(t *testing.T) {
	for _, name := range caseNames(t) {
		t.Run(name, func(t *testing.T) { runCase(t, filepath.Join(casesDir, name)) })
	}
}

func caseNames(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(casesDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if len(names) < 50 {
		t.Fatalf("only %d cases in %s", len(names), casesDir)
	}
	return names
}

func runCase(t *testing.T, dir string) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(read(t, filepath.Join(dir, "cmd")))
	if line == "" || strings.Contains(line, "\n") {
		t.Fatalf("cmd must be one command line")
	}
	args := strings.Fields(line)
	for i, a := range args {
		args[i] = caseVar.ReplaceAllStringFunc(a, func(v string) string {
			start, ok := caseVars[v[1:]]
			if !ok {
				t.Fatalf("cmd names %s, which is not one of the case variables (caseVars)", v)
			}
			return start(t)
		})
	}
	work := t.TempDir()
	inputs := files(t, dir, func(rel string) bool { return !slices.Contains(expected, strings.Split(rel, "/")[0]) })
	for rel, content := range inputs {
		writeFile(t, filepath.Join(work, rel), content)
	}
	t.Chdir(work)
	code, stdout, stderr := run(t, args...)

	// What the command wrote (an input it changed counts too).
	wrote := map[string][]byte{}
	for rel, content := range files(t, work, func(string) bool { return true }) {
		if in, ok := inputs[rel]; !ok || !bytes.Equal(in, content) {
			wrote[rel] = content
		}
	}
	for rel := range wrote {
		if !strings.HasPrefix(rel, "out/") {
			t.Errorf("the command wrote %s: a case writes below out/ only", rel)
		}
	}
	if *update {
		writeExpected(t, dir, "stdout", stdout)
		writeExpected(t, dir, "stderr", stderr)
		exit := ""
		if code != ExitOK {
			exit = strconv.Itoa(code) + "\n"
		}
		writeExpected(t, dir, "exit", exit)
		if err := os.RemoveAll(filepath.Join(dir, "out")); err != nil {
			t.Fatal(err)
		}
		for rel, content := range wrote {
			writeFile(t, filepath.Join(dir, rel), content)
		}
		return
	}

	regen := "(go test ./internal/cli -run TestCases -update rewrites the expectations)"
	if want := optional(t, dir, "stdout"); stdout != want {
		t.Errorf("stdout differs %s\nhave:\n%s\nwant:\n%s", regen, stdout, want)
	}
	if want := optional(t, dir, "stderr"); stderr != want {
		t.Errorf("stderr differs %s\nhave:\n%s\nwant:\n%s", regen, stderr, want)
	}
	want := strings.TrimSpace(optional(t, dir, "exit"))
	if want == "" {
		want = "0"
	}
	if strconv.Itoa(code) != want {
		t.Errorf("exit code %d, want %s\nstderr:\n%s", code, want, stderr)
	}
	wantOut := files(t, dir, func(rel string) bool { return strings.HasPrefix(rel, "out/") })
	for _, rel := range sortedKeys(wantOut, wrote) {
		w, inWant := wantOut[rel]
		h, inHave := wrote[rel]
		switch {
		case !inHave:
			t.Errorf("%s is not written %s", rel, regen)
		case !inWant:
			t.Errorf("%s is written, and not expected %s", rel, regen)
		case !bytes.Equal(w, h):
			t.Errorf("%s differs from what tailor writes %s:\n%s", rel, regen, lineDiff(w, h))
		}
	}

	// Messages name files as the user gave them, never where tailor ran.
	abs, _ := filepath.Abs(repoRoot)
	for _, out := range []string{stdout, stderr} {
		if strings.Contains(out, work) || strings.Contains(out, abs) {
			t.Errorf("the output names a machine path:\n%s", out)
		}
	}
	if strings.Contains(line, "--format json") {
		var v any
		if err := json.Unmarshal([]byte(stdout), &v); err != nil {
			t.Errorf("--format json is not JSON: %v", err)
		}
	}
}

// caseVars are what a $NAME in a case's cmd stands for, each started
// afresh where a cmd names it: a back-office backend (the example's, on
// loopback, with the story's clock) for tailor test's requests; $BACKEND2
// is a second one (scenarios change the backend's data).
var caseVars = map[string]func(t *testing.T) string{
	"BACKEND":  shopBackend,
	"BACKEND2": shopBackend,
}

// caseVar is a $NAME: the whole name, so that $BACKEND2 is not $BACKEND
// followed by 2.
var caseVar = regexp.MustCompile(`\$[A-Z][A-Z0-9_]*`)

// shopBackend starts the back-office example's backend for the test's
// duration and returns its URL.
func shopBackend(t *testing.T) string {
	shop := backend.New(func() time.Time { return time.Date(2026, 10, 5, 14, 0, 0, 0, time.UTC) })
	srv := httptest.NewServer(shop.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// files reads every file below root whose slash path relative to it keep
// accepts.
func files(t *testing.T, root string, keep func(rel string) bool) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if !keep(rel) {
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeFile(t *testing.T, p string, content []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
}

// optional reads an expectation; an absent file is empty.
func optional(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// writeExpected writes an expectation, or removes it when empty.
func writeExpected(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if content == "" {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return
	}
	writeFile(t, p, []byte(content))
}

func sortedKeys(ms ...map[string][]byte) []string {
	var names []string
	for _, m := range ms {
		for n := range m {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names
}

// lineDiff shows where want and have first part, with a little context.
func lineDiff(want, have []byte) string {
	w := strings.Split(string(want), "\n")
	h := strings.Split(string(have), "\n")
	i := 0
	for i < len(h) && i < len(w) && h[i] == w[i] {
		i++
	}
	var b strings.Builder
	clip := func(s string) string {
		if len(s) > 300 {
			return s[:300] + "…"
		}
		return s
	}
	for j := max(i-2, 0); j < i; j++ {
		b.WriteString("  " + strconv.Itoa(j+1) + "  " + clip(w[j]) + "\n")
	}
	for j := i; j < min(i+3, len(w)); j++ {
		b.WriteString("- " + strconv.Itoa(j+1) + "  " + clip(w[j]) + "\n")
	}
	for j := i; j < min(i+3, len(h)); j++ {
		b.WriteString("+ " + strconv.Itoa(j+1) + "  " + clip(h[j]) + "\n")
	}
	return b.String()
}

// TestCasesCompile builds and vets the Go files every case expects, each
// case a package of one throwaway module that requires this checkout of
// tailor: an expected output that is committed is one that compiles.
//
// A throwaway testkit.Module is used rather than a go.mod committed under
// testdata (sqlc's way): that nested module would need its own go.sum,
// restating the root module's dependencies and going stale whenever
// mcpkit's change, and running the go command in it would rewrite it in
// the working tree. NewModule derives both from the root module on every
// run, like the end-to-end tests do.
func TestCasesCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every expected package with the go command")
	}
	m := testkit.NewModule(t)
	n := 0
	for _, name := range caseNames(t) {
		dir := filepath.Join(casesDir, name)
		for rel, content := range files(t, dir, func(rel string) bool { return strings.HasPrefix(rel, "out/") && strings.HasSuffix(rel, ".go") }) {
			writeFile(t, filepath.Join(m.Dir, "c"+nonIdent.ReplaceAllString(name, ""), strings.TrimPrefix(rel, "out/")), content)
			n++
		}
	}
	if n == 0 {
		t.Fatal("no case expects Go files")
	}
	m.Go(t, "build", "./...")
	m.Go(t, "vet", "./...")
}

var nonIdent = regexp.MustCompile(`[^a-zA-Z0-9]`)

// TestOverlayCasesArePositioned: every line an overlay-* case expects on
// stderr is file:line:col: severity: message about the overlay, or about
// the line of the spec that the overlay's actions broke, naming the
// overlay; a case of several independent mistakes reports each in one run.
func TestOverlayCasesArePositioned(t *testing.T) {
	clear := regexp.MustCompile(`^(overlay\.yaml:[1-9][0-9]*:[1-9][0-9]*: (error|warning): \S|openapi\.yaml:[1-9][0-9]*:[1-9][0-9]*: error: after the overlay's actions \(overlay\.yaml\): \S)`)
	mistakes := map[string]int{"overlay-three-mistakes": 3, "overlay-three-shape-mistakes": 3}
	cases := 0
	for _, name := range caseNames(t) {
		if !strings.HasPrefix(name, "overlay-") {
			continue
		}
		cases++
		stderr := optional(t, filepath.Join(casesDir, name), "stderr")
		errorLines := map[string]bool{}
		for _, line := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
			if !clear.MatchString(line) {
				t.Errorf("%s: not a file:line:col diagnostic about the overlay: %s", name, line)
			}
			if pos, _, ok := strings.Cut(line, ": error: "); ok {
				errorLines[pos] = true
			}
		}
		if n, ok := mistakes[name]; ok && len(errorLines) != n {
			t.Errorf("%s: errors at %d places, want each of the %d mistakes reported in one run:\n%s", name, len(errorLines), n, stderr)
		}
	}
	if cases < 20 {
		t.Errorf("only %d overlay-* cases", cases)
	}
}
