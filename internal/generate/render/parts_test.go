package render_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/generate/render"
	"github.com/tailormcp/tailor/internal/testkit"
)

// TestRenderingWaysAgree renders every golden case and some real-world
// specs the plain way (each file's template run whole, the file formatted
// whole with go/format) and the fast ways (parts printed on every core,
// those printed in gofmt's form used as printed: the default parts and
// one part per item; and every part formatted), and wants the same bytes.
// A template or printer change that leaves gofmt's form fails here (and
// TestCorpus checks every corpus spec's files are gofmt-clean).
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
		formatAll bool
		partBytes int
	}{
		{"printed in gofmt's form, default parts", false, defaultParts},
		{"printed in gofmt's form, a part per item", false, 1},
		{"every part formatted", true, defaultParts},
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
			plain, err := render.RenderWhole(res.Curated, render.Options{Package: "x"})
			if err != nil {
				t.Fatal(err)
			}
			for _, way := range ways {
				prevFormat, prevParts := render.FormatAll(way.formatAll), render.PartBytes(way.partBytes)
				got, err := render.Render(res.Curated, render.Options{Package: "x"})
				render.FormatAll(prevFormat)
				render.PartBytes(prevParts)
				if err != nil {
					t.Fatal(err)
				}
				if len(plain) != len(got) {
					t.Fatalf("%s: %d files plain, %d", way.name, len(plain), len(got))
				}
				for i := range plain {
					if !bytes.Equal(plain[i].Content, got[i].Content) {
						t.Errorf("%s differs when %s:\n%s", plain[i].Path, way.name, firstDiff(plain[i].Content, got[i].Content))
					}
				}
			}
		})
	}
}

// firstDiff shows the first line where got differs from want, with the
// lines before it.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			lo := max(i-3, 0)
			return "context:\n\t" + strings.Join(w[lo:i], "\n\t") + "\nwant:\n\t" + w[i] + "\ngot:\n\t" + g[i]
		}
	}
	return "one is a prefix of the other"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestUnusualTextsAreFormatted: a tool whose comments quote what gofmt's
// doc comment printer may rewrite (it turns two backquotes or two single
// quotes into curly quotes), or whose description is too long for gofmt to
// align, is formatted, and comes out as formatting the whole file does.
func TestUnusualTextsAreFormatted(t *testing.T) {
	long := strings.Repeat("a long description ", 60_000) // 1.1 MB: gofmt aligns no such field
	spec := `openapi: 3.0.3
info: {title: Unusual, version: "1"}
servers: [{url: "https://api.example.com"}]
paths:
  /items/{id}:
    get:
      operationId: "read ''it'' and ` + "``this``" + ` [Item] at https://example.com/x  twice "
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /plain:
    get:
      operationId: plainRead
      responses: {"200": {description: ok}}
  /long:
    get:
      operationId: longRead
      description: "` + long + `"
      responses: {"200": {description: ok}}
  "/caf\u00e9":
    get:
      operationId: cafeRead
      responses: {"200": {description: ok}}
`
	path := filepath.Join(t.TempDir(), "openapi.yaml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := generator.Run(generator.Options{SpecPath: path, Package: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Curated.Tools) != 4 {
		t.Fatalf("%d tools, want 4", len(res.Curated.Tools))
	}
	plain, err := render.RenderWhole(res.Curated, render.Options{Package: "x"})
	if err != nil {
		t.Fatal(err)
	}
	// A part per item: each unusual tool is a part of its own, beside
	// parts printed as they are.
	prev := render.PartBytes(1)
	defer render.PartBytes(prev)
	got, err := render.Render(res.Curated, render.Options{Package: "x"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range plain {
		if !bytes.Equal(plain[i].Content, got[i].Content) {
			t.Errorf("%s differs:\n%s", plain[i].Path, firstDiff(plain[i].Content, got[i].Content))
		}
	}
	tools := string(got[1].Content)
	for _, want := range []string{"read ”it” and “this“ [Item]", "GET /café (operationId cafeRead)"} {
		if !strings.Contains(tools, want) {
			t.Errorf("tools.go does not have gofmt's %q in a comment", want)
		}
	}
}
