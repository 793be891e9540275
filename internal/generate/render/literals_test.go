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
// TestRenderingWaysAgree renders every golden case and real-world spec
// the plain way (each file formatted whole, schemas included) and the
// fast ways (the schemas held back from go/format, the files formatted in
// parts: the default parts and one part per item), and wants the same
// bytes.
func TestRenderingWaysAgree(t *testing.T) {
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
	defaultParts := render.PartBytes(0)
	render.PartBytes(defaultParts)
	ways := []struct {
		name      string
		hold      bool
		partBytes int
	}{
		{"held back, default parts", true, defaultParts},
		{"held back, a part per item", true, 1},
		{"formatted whole", true, 1 << 62},
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
			prev := render.PartBytes(1 << 62)
			plain, err := render.Render(res.Curated, render.Options{Package: "x"})
			render.HoldLiterals(true)
			render.PartBytes(prev)
			if err != nil {
				t.Fatal(err)
			}
			for _, way := range ways {
				render.HoldLiterals(way.hold)
				prev := render.PartBytes(way.partBytes)
				got, err := render.Render(res.Curated, render.Options{Package: "x"})
				render.HoldLiterals(true)
				render.PartBytes(prev)
				if err != nil {
					t.Fatal(err)
				}
				if len(plain) != len(got) {
					t.Fatalf("%s: %d files plain, %d", way.name, len(plain), len(got))
				}
				for i := range plain {
					if !bytes.Equal(plain[i].Content, got[i].Content) {
						t.Errorf("%s differs when %s", plain[i].Path, way.name)
					}
				}
			}
		})
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
