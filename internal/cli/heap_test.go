package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/hugeheap"
)

// TestLargeSpecAsksForHugePages: generate on a spec past the size where
// huge pages pay asks for them before it loads (internal/hugeheap tests
// that the heap then faults in huge pages), and the output is the same.
func TestLargeSpecAsksForHugePages(t *testing.T) {
	if !hugeheap.Applies() {
		t.Skip("this kernel does not give huge pages on request only")
	}
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: Large, version: '1'}\npaths:\n")
	for i := 0; b.Len() < 400<<10; i++ {
		fmt.Fprintf(&b, "  /items%d/{id}:\n    get:\n      operationId: getItem%d\n      description: %s\n      parameters:\n        - {name: id, in: path, required: true, schema: {type: string}}\n      responses:\n        '200': {description: ok}\n", i, i, strings.Repeat("Reads one item. ", 40))
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "large.yaml")
	if err := os.WriteFile(spec, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "generate", "--spec", spec, "--out", filepath.Join(dir, "out"), "--omit-version", "-q")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if hugeheap.Reserved() == 0 {
		t.Errorf("generate on a %d-byte spec asked for no huge pages", b.Len())
	}
}

func TestSpecSizeCountsTheFilesASplitSpecRefers(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	put := func(name string, size int) string { return write(name, strings.Repeat("x", size)) }
	put("paths/a.yaml", 200<<10)
	put("components/b.json", 150<<10)
	put("components/notes.md", 900<<10)    // not a spec file
	put(".git/objects/pack.json", 900<<10) // hidden folders hold no spec
	split := write("openapi.yaml", "paths:\n  /a: {$ref: './paths/a.yaml'}\n")
	if got, want := specSize(split), int64(350<<10+len("paths:\n  /a: {$ref: './paths/a.yaml'}\n")); got != want {
		t.Errorf("split spec: size %d, want %d (its folder's YAML and JSON files)", got, want)
	}
	whole := write("whole.yaml", "components: {schemas: {A: {$ref: '#/components/schemas/B'}}}\n")
	if got := specSize(whole); got != int64(len("components: {schemas: {A: {$ref: '#/components/schemas/B'}}}\n")) {
		t.Errorf("spec with only local $refs: size %d, want its own", got)
	}
	big := put("big.yaml", 300<<10)
	if got := specSize(big); got != 300<<10 {
		t.Errorf("large root file: size %d, want its own %d", got, 300<<10)
	}
	if got := specSize(filepath.Join(dir, "missing.yaml")); got != 0 {
		t.Errorf("missing spec: size %d, want 0 (the loader reports it)", got)
	}
}

func TestRefersToFiles(t *testing.T) {
	for text, want := range map[string]bool{
		"a: {$ref: '#/components/schemas/A'}":     false,
		`{"$ref": "#/definitions/A"}`:             false,
		"a:\n  $ref: ./paths/a.yaml":              true,
		`{"$ref":"other.json#/definitions/A"}`:    true,
		"a: {$ref: \"#/x\"}\nb: {$ref: 'b.yaml'}": true,
		"no refs at all":                          false,
		"ends with $ref":                          false,
	} {
		if got := refersToFiles([]byte(text)); got != want {
			t.Errorf("refersToFiles(%q) = %v, want %v", text, got, want)
		}
	}
}
