package load

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"unicode/utf8"

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
			"#/paths/~1a~1{id}/put/requestBody":          {File: "v2.json", Line: 9, Col: 11}, // the body parameter
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

// The cursor skips to a text's last line break before an offset; its
// lines and columns are still those of a walk over every rune (invalid
// UTF-8, runes cut by the offset and offsets that go back included).
func TestLineCursorCountsAsRuneWalk(t *testing.T) {
	walk := func(c *lineCursor, off int) diag.Pos {
		for c.off < off && c.off < len(c.data) {
			r, size := utf8.DecodeRune(c.data[c.off:])
			if r == '\n' {
				c.line, c.col = c.line+1, 1
			} else {
				c.col++
			}
			c.off += size
		}
		return diag.Pos{File: "f", Line: c.line, Col: c.col}
	}
	pieces := []string{"a", "\n", "é", "€", "\xe2", "\x80", "\xff", "𝄞", " ", "\r\n"}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var text []byte
		for range rnd.IntN(60) {
			text = append(text, pieces[rnd.IntN(len(pieces))]...)
		}
		want, got := lineCursor{data: text, line: 1, col: 1}, lineCursor{data: text, line: 1, col: 1}
		off := 0
		for range 8 {
			off = max(0, off+rnd.IntN(12)-2)
			if w, g := walk(&want, off), got.at("f", off); w != g || want.off != got.off {
				t.Fatalf("%q at %d: %v (offset %d), want %v (offset %d)", text, off, g, got.off, w, want.off)
			}
		}
	}
}
