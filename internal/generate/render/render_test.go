package render_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/generate/render"
)

// TestUnusualTexts: a tool whose comments quote what gofmt's doc comment
// printer rewrites (it turns two backquotes or two single quotes into curly
// quotes), whose description is too long for gofmt to align, or whose path
// is not ASCII, renders as go/format lays it out.
func TestUnusualTexts(t *testing.T) {
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
	files, err := render.Render(res.Curated, render.Options{Package: "x"})
	if err != nil {
		t.Fatal(err)
	}
	var tools string
	for _, f := range files {
		if f.Path == "tools.go" {
			tools = string(f.Bytes())
		}
	}
	for _, want := range []string{"read ”it” and “this“ [Item]", "GET /café (operationId cafeRead)",
		"\tName:         \"plain_read\",\n", "\tDescription:  \"" + long[:40]} {
		if !strings.Contains(tools, want) {
			t.Errorf("tools.go does not have gofmt's %q", want)
		}
	}
}
