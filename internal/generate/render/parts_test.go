package render_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/generate/render"
)

// TestFormatPiecesEqualsWhole: a file rendered in parts, each part of its
// list formatted on its own, is what go/format writes for the whole file
// run by one template, on every case of testdata/cases and the corpus's
// largest specs, with parts cut as fine as one item and as coarse as the
// default.
func TestFormatPiecesEqualsWhole(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	var specs []struct{ spec, overlay string }
	cases, _ := filepath.Glob(filepath.Join(root, "testdata", "cases", "*"))
	for _, dir := range cases {
		found, _ := filepath.Glob(filepath.Join(dir, "openapi.*"))
		if len(found) != 1 {
			continue
		}
		ov := filepath.Join(dir, "overlay.yaml")
		if _, err := os.Stat(ov); err != nil {
			ov = ""
		}
		specs = append(specs, struct{ spec, overlay string }{found[0], ov})
	}
	for _, name := range []string{"stripe.yaml", "kubernetes-v2.json"} {
		p := filepath.Join(root, "..", "shared", "corpus", name)
		if _, err := os.Stat(p); err == nil && !testing.Short() {
			specs = append(specs, struct{ spec, overlay string }{p, ""})
		}
	}
	compared := 0
	for _, s := range specs {
		out, err := generator.Run(generator.Options{SpecPath: s.spec, OverlayPath: s.overlay, Package: "x"})
		if err != nil {
			continue // a case of an error
		}
		opts := render.Options{Package: "x", Main: true, ImportPath: "example.com/x"}
		want, err := render.RenderWhole(out.Curated, opts)
		if err != nil {
			t.Fatalf("%s: %v", s.spec, err)
		}
		for _, size := range []int{1, 128 << 10} {
			*render.PartSize = size
			got, err := render.Render(out.Curated, opts)
			*render.PartSize = 128 << 10
			if err != nil {
				t.Fatalf("%s: %v", s.spec, err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s: %d files, want %d", s.spec, len(got), len(want))
			}
			for i := range got {
				if got[i].Path != want[i].Path || !bytes.Equal(got[i].Bytes(), want[i].Bytes()) {
					t.Errorf("%s: %s in parts of %d bytes differs from go/format of the whole file", s.spec, got[i].Path, size)
				}
			}
		}
		compared++
	}
	if compared < 60 {
		t.Errorf("compared %d specs; the cases are in testdata/cases", compared)
	}
}
