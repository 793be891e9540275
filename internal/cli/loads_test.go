package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/generate/load"
)

// TestEachCommandLoadsEachInputOnce: every command runs the pipeline once
// per spec it is given (the current one, and the older one of --against),
// with an overlay whose actions patch the spec too. load counts the
// descriptions it reads.
func TestEachCommandLoadsEachInputOnce(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"openapi.yaml", "overlay.yaml"} {
		b, err := os.ReadFile(filepath.Join(repoRoot, "testdata", "cases", "curated-actions", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	if err := os.WriteFile("old.yaml", []byte(read(t, "openapi.yaml")), 0o644); err != nil {
		t.Fatal(err)
	}
	in := []string{"--spec", "openapi.yaml", "--overlay", "overlay.yaml"}
	out := []string{"--out", "mcpserver", "--package", "notes", "--omit-version"}
	for _, tc := range []struct {
		args  []string
		loads int64
	}{
		{append(append([]string{"generate"}, in...), out...), 1},
		{append(append([]string{"check"}, in...), out...), 1},
		{append(append([]string{"check"}, in...), append(out, "--against", "old.yaml")...), 2},
		{append([]string{"diff"}, in...), 1},
		{append(append([]string{"diff"}, in...), "--against", "old.yaml"), 2},
		{append([]string{"lint"}, in...), 1},
		{[]string{"init", "--spec", "openapi.yaml"}, 1},
		{append([]string{"serve"}, in...), 1}, // no input: the server stops at once
	} {
		before := load.Count()
		code, _, stderr := run(t, tc.args...)
		if code != ExitOK {
			t.Errorf("%s: exit %d\n%s", strings.Join(tc.args, " "), code, stderr)
		}
		if n := load.Count() - before; n != tc.loads {
			t.Errorf("%s loaded a spec %d times, want %d", strings.Join(tc.args, " "), n, tc.loads)
		}
	}
}
