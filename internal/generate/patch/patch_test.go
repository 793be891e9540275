package patch

import (
	"os"
	"path/filepath"
	"testing"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/yamlwalk"
)

// The line of every member of the patched text maps back to the line of
// the same member in the user's file: checked on every real-world spec,
// patched by nothing, where the answer must be the member's own key.
func TestPatchedLinesMapBack(t *testing.T) {
	// ../shared/corpus beside the checkout (testkit.CorpusDir, which this
	// package's own tests cannot import).
	dir := filepath.Join("..", "..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil || testing.Short() {
		t.Skip("needs ../shared/corpus beside the checkout")
	}
	for _, name := range []string{"stripe.yaml", "discourse-31.yaml", "petstore-expanded.yaml"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			var root yaml.Node
			var a, b any
			if err := yaml.Unmarshal(data, &root); err != nil {
				t.Fatal(err)
			}
			if err := root.Decode(&a); err != nil {
				t.Fatal(err)
			}
			if err := root.Decode(&b); err != nil {
				t.Fatal(err)
			}
			p, err := newPatchedSpec(&root, yamlwalk.JSONable(a), yamlwalk.JSONable(b))
			if err != nil {
				t.Fatal(err)
			}
			if p.lines == nil {
				t.Fatal("the line walk does not follow encoding/json's layout")
			}
			mapped := 0
			for line, ptr := range p.lines {
				node, added := p.find(ptr)
				if added || node == nil {
					t.Fatalf("line %d (%s) maps to nothing", line+1, ptr)
				}
				got := p.pos(diag.Pos{File: "spec", Line: line + 1, Col: 1}, "spec", "overlay")
				if got.Line != node.Line || got.Col != node.Column {
					t.Fatalf("line %d (%s) maps to %d:%d, want %d:%d", line+1, ptr, got.Line, got.Col, node.Line, node.Column)
				}
				mapped++
			}
			if mapped < 100 {
				t.Fatalf("only %d lines", mapped)
			}
		})
	}
}
