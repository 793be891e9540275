package render_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/generate/render"
	"github.com/tailormcp/tailor/internal/testkit"
)

// Holding the schemas back from go/format must not change a byte of the
// output: every case that generates code and some corpus specs are
// rendered both ways.
func TestHeldLiteralsFormatTheSame(t *testing.T) {
	// The cases that generate code (they expect out/).
	outs, err := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "cases", "*", "out"))
	if err != nil || len(outs) == 0 {
		t.Fatalf("no cases that generate code (%v)", err)
	}
	var specs []string
	for _, out := range outs {
		spec, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "openapi.*"))
		specs = append(specs, spec...)
	}
	if dir := testkit.CorpusDir(); dir != "" && !testing.Short() {
		for _, name := range []string{"stripe.yaml", "kubernetes-v2.json", "discourse-31.yaml", "uspto.yaml"} {
			specs = append(specs, filepath.Join(dir, name))
		}
	}
	for _, spec := range specs {
		t.Run(filepath.Base(filepath.Dir(spec))+"/"+filepath.Base(spec), func(t *testing.T) {
			opts := generator.Options{SpecPath: spec, Package: "x"}
			if ov := filepath.Join(filepath.Dir(spec), "overlay.yaml"); fileExists(ov) {
				opts.OverlayPath = ov
			}
			res, err := generator.Run(opts)
			if err != nil {
				t.Fatal(err)
			}
			render.HoldLiterals(false)
			plain, err := render.Render(res.Curated, render.Options{Package: "x"})
			render.HoldLiterals(true)
			if err != nil {
				t.Fatal(err)
			}
			held, err := render.Render(res.Curated, render.Options{Package: "x"})
			if err != nil {
				t.Fatal(err)
			}
			if len(plain) != len(held) {
				t.Fatalf("%d files plain, %d held", len(plain), len(held))
			}
			for i := range plain {
				if !bytes.Equal(plain[i].Content, held[i].Content) {
					t.Errorf("%s differs when the schemas are held back from go/format", plain[i].Path)
				}
			}
		})
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
