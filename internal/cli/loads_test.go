package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/generate/load"
)

// TestEachCommandLoadsEachInputOnce: every command runs the pipeline once
// per spec it is given (the current one, and the older one of --against),
// here with an overlay whose actions patch the spec, so that what curation
// reads is the spec patched by them. diff also reads the spec as written,
// a document of its own, for its raw side (what the actions changed): one
// load of each document. load lists the documents it loads.
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
	if err := os.WriteFile("old.yaml", []byte(read(t, "openapi.yaml")+"# the older version\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := []string{"--spec", "openapi.yaml", "--overlay", "overlay.yaml"}
	out := []string{"--out", "mcpserver", "--package", "notes", "--omit-version"}
	// A document is named by its bytes (check reads the old spec under the
	// current one's path, so that its $refs resolve alike).
	digest := func(file string) string {
		sum := sha256.Sum256([]byte(read(t, file)))
		return hex.EncodeToString(sum[:])
	}
	asWritten := digest("openapi.yaml")
	patched := asWritten + " patched by overlay.yaml"
	oldPatched := digest("old.yaml") + " patched by overlay.yaml"
	for _, tc := range []struct {
		args []string
		docs []string
	}{
		{append(append([]string{"generate"}, in...), out...), []string{patched}},
		{append(append([]string{"check"}, in...), out...), []string{patched}},
		{append(append([]string{"check"}, in...), append(out, "--against", "old.yaml")...), []string{patched, oldPatched}},
		{append([]string{"diff"}, in...), []string{patched, asWritten}},
		{append(append([]string{"diff"}, in...), "--against", "old.yaml"), []string{patched, oldPatched, asWritten}},
		{append([]string{"lint"}, in...), []string{patched}},
		{[]string{"init", "--spec", "openapi.yaml"}, []string{asWritten}},
		{append([]string{"report", "-", "--format", "json"}, in...), []string{patched}},
		{append([]string{"serve"}, in...), []string{patched}}, // no input: the server stops at once
	} {
		before := len(load.Loaded())
		code, _, stderr := run(t, tc.args...)
		if code != ExitOK {
			t.Errorf("%s: exit %d\n%s", strings.Join(tc.args, " "), code, stderr)
		}
		docs := load.Loaded()[before:]
		slices.Sort(docs)
		slices.Sort(tc.docs)
		if !slices.Equal(docs, tc.docs) {
			t.Errorf("%s loaded %q, want %q (each document once)", strings.Join(tc.args, " "), docs, tc.docs)
		}
	}
}
