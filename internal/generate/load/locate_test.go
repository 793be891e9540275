package load

import (
	"path/filepath"
	"testing"

	"github.com/tailormcp/tailor/internal/diag"
)

// TestLocate places JSON pointers, spelled as OpenAPI 3 spells them, in
// JSON and YAML text, Swagger 2.0's included, through a $ref to another
// file, and at the deepest part the spec has when it lacks the rest.
func TestLocate(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write(t, "v2.json", `{
  "swagger": "2.0",
  "info": {"title": "t", "version": "1"},
  "paths": {
    "/a/{id}": {
      "put": {
        "parameters": [
          {"name": "id", "in": "path", "required": true, "type": "string"},
          {"name": "body", "in": "body", "schema": {"$ref": "#/definitions/A"}}
        ],
        "responses": {"200": {"description": "ok"}}
      }
    }
  },
  "definitions": {"A": {"type": "object"}}
}
`)
	write(t, "v3.yaml", `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /b:
    $ref: items/b.yaml
components:
  schemas:
    B:
      type: object
`)
	write(t, "items/b.yaml", `get:
  responses:
    "200": {description: ok}
`)
	for _, tc := range []struct {
		file string
		want map[string]diag.Pos
	}{
		{"v2.json", map[string]diag.Pos{
			"#/paths/~1a~1{id}/put":                      {File: "v2.json", Line: 6, Col: 7},
			"#/paths/~1a~1{id}/put/parameters/1":         {File: "v2.json", Line: 7, Col: 9},  // OpenAPI 3 has one: the list
			"#/paths/~1a~1{id}/put/requestBody":          {File: "v2.json", Line: 9, Col: 12}, // the body parameter's first key
			"#/components/schemas/A":                     {File: "v2.json", Line: 15, Col: 19},
			"#/paths/~1a~1{id}/put/responses/200/schema": {File: "v2.json", Line: 11, Col: 23},
		}},
		{"v3.yaml", map[string]diag.Pos{
			"#/paths/~1b/get":        {File: filepath.Join("items", "b.yaml"), Line: 1, Col: 1},
			"#/components/schemas/B": {File: "v3.yaml", Line: 8, Col: 5},
			"#/paths/~1c":            {File: "v3.yaml", Line: 3, Col: 1},
		}},
	} {
		spec, err := Load(tc.file, Options{SkipValidation: true})
		if err != nil {
			t.Fatal(err)
		}
		var ds []diag.Diagnostic
		for ptr := range tc.want {
			ds = append(ds, diag.Diagnostic{Pos: diag.Pos{File: tc.file}, Pointer: ptr})
		}
		for _, d := range spec.Locate(ds) {
			if want := tc.want[d.Pointer]; d.Pos != want {
				t.Errorf("%s %s: at %v, want %v", tc.file, d.Pointer, d.Pos, want)
			}
		}
	}
}
