package load_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/generate/load"
)

// A JSON spec is read by kin-openapi's JSON decoder rather than its YAML
// parser (load.go, loadDoc): the document must be the one kin-openapi's
// own loader makes of the same text. Every OpenAPI 3 case in one file is
// turned into JSON and loaded both ways, with numbers a JSON decoder could
// read otherwise than YAML does (integers past 2^53, decimals, exponents).
func TestJSONSpecLoadsAsKinOpenAPILoadsIt(t *testing.T) {
	specs, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "cases", "*", "openapi.yaml"))
	numbers := `{"openapi": "3.0.3", "info": {"title": "n", "version": "1"}, "paths": {"/n": {"get": {"operationId": "n",
		"parameters": [{"name": "q", "in": "query", "schema": {"type": "integer", "default": 9007199254740993, "maximum": 1e3,
		"enum": [1, 2.5, -0, 12345678901234567890], "example": {"a": [1, {"b": 0.1}]}}}],
		"responses": {"200": {"description": "ok", "content": {"application/json": {"example": 1.0e-7}}}}}}}}`
	// A schema nested deeper than the JSON decode is let read
	// (maxJSONDecodeDepth): the YAML parser reads it, to the same document.
	deep := `{"type": "string"}`
	for range 300 {
		deep = `{"type": "object", "properties": {"a": ` + deep + `}}`
	}
	deepSpec := `{"openapi": "3.0.3", "info": {"title": "d", "version": "1"}, "paths": {"/d": {"post": {"operationId": "d",
		"requestBody": {"content": {"application/json": {"schema": ` + deep + `}}}, "responses": {"200": {"description": "ok"}}}}}}`
	cases := map[string][]byte{"numbers.json": []byte(numbers), "deep.json": []byte(deepSpec)}
	for _, p := range specs {
		data, err := os.ReadFile(p)
		if err != nil || !strings.HasPrefix(string(data), "openapi:") || strings.Contains(string(data), "$ref: ./") || strings.Contains(string(data), "$ref: '.") || strings.Contains(string(data), `$ref: ".`) {
			continue
		}
		var v any
		if yaml.Unmarshal(data, &v) != nil {
			continue
		}
		js, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			continue
		}
		cases[filepath.Base(filepath.Dir(p))+".json"] = js
	}
	if len(cases) < 20 {
		t.Fatalf("only %d cases", len(cases))
	}
	dir := t.TempDir()
	compared := 0
	for name, data := range cases {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, werr := openapi3.NewLoader().LoadFromFile(path)
		got, gerr := load.Load(path, load.Options{SkipValidation: true})
		if werr != nil || gerr != nil {
			if name == "numbers.json" || name == "deep.json" {
				t.Fatalf("numbers.json: kin-openapi: %v, load: %v", werr, gerr)
			}
			continue // what kin-openapi refuses is the repair pass's (repair_test.go)
		}
		compared++
		w, _ := json.Marshal(want)
		g, _ := json.Marshal(got.Doc)
		if string(w) != string(g) {
			t.Errorf("%s: the document differs from kin-openapi's load:\n got %.400s\nwant %.400s", name, g, w)
		}
	}
	if compared < 20 {
		t.Fatalf("compared %d documents", compared)
	}
}
