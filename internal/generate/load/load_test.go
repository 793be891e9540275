package load_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/generate/load"
)

// TestErrorsNameFilesAsTheUserDoes loads error cases from their parent
// folder: every file an error names, the spec or one its $refs reach, must
// be named relative to where the user is, the way they named the spec.
func TestErrorsNameFilesAsTheUserDoes(t *testing.T) {
	t.Chdir(filepath.Join("..", "..", "..", "testdata", "cases"))
	for _, tc := range []struct{ spec, want string }{
		{"error-syntax-error-in-ref/openapi.yaml", "error-syntax-error-in-ref/pet.yaml:6:6: error: invalid YAML: "},
		{"error-missing-ref-file/openapi.yaml", `error-missing-ref-file/openapi.yaml:14:17: error: cannot resolve $ref "./schemas/pet.yaml#/Pet": cannot read error-missing-ref-file/schemas/pet.yaml: `},
		{"./error-yaml-syntax/openapi.yaml", "./error-yaml-syntax/openapi.yaml:9:16: error: invalid YAML: "}, // the spec as given,
	} {
		_, err := load.Load(tc.spec, load.Options{Strict: true})
		if err == nil {
			t.Errorf("%s loaded", tc.spec)
			continue
		}
		if got := filepath.ToSlash(err.Error()); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s:\n got %s\nwant %s...", tc.spec, got, tc.want)
		}
	}
}

// TestUndecodableTargetIsPlacedAtItsRef: a $ref the repair pass follows to
// an object it leaves as it is, whose values kin-openapi cannot decode
// (a parameter whose required is a list), fails the load at the $ref.
func TestUndecodableTargetIsPlacedAtItsRef(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("openapi.yaml", `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    get:
      parameters:
        - $ref: 'params.yaml#/P'
      responses:
        '200':
          description: ok
`)
	write("params.yaml", "P:\n  name: q\n  in: query\n  required: [1, 2]\n  schema: {type: string}\n")
	spec := filepath.Join(dir, "openapi.yaml")
	_, err := load.Load(spec, load.Options{})
	want := spec + `:7:11: error: cannot resolve $ref "params.yaml#/P": what it points at is not a valid parameter object`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestNonObjectsAreTheRepairPasss: an OpenAPI object written as a number,
// inline or as a component, is reported by the repair pass at the value
// (and left out) before kin-openapi, which would refuse the whole spec,
// reads it; the load error's explanation need not look for it.
func TestNonObjectsAreTheRepairPasss(t *testing.T) {
	head := "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n"
	for _, tc := range []struct{ text, kind string }{
		{"          headers: {h: 5}\n", "header"},
		{"          links: {l: 5}\n", "link"},
		{"        '400': 5\n", "response"},
		{"      callbacks: {c: 5}\n", "callback"},
		{"  /b: 5\n", "path item"},
		{"components:\n  schemas: {S: {items: 5}}\n", "schema"},
		{"components:\n  parameters: {P: 5}\n", "parameter"},
		{"components:\n  requestBodies: {B: 5}\n", "request body"},
		{"components:\n  examples: {E: 5}\n", "example"},
		{"components:\n  securitySchemes: {S: 5}\n", "security scheme"},
	} {
		text := head + tc.text
		if tc.kind == "path item" {
			text = strings.Replace(head, "paths:\n", "paths:\n"+tc.text, 1)
		}
		spec := filepath.Join(t.TempDir(), "openapi.yaml")
		if err := os.WriteFile(spec, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := load.Load(spec, load.Options{SkipValidation: true})
		if err != nil {
			t.Errorf("%s: %v", tc.kind, err)
			continue
		}
		found := false
		for _, w := range s.Warnings {
			found = found || w.Pos.Line > 0 && strings.HasPrefix(w.Message, "a "+tc.kind+" must be an object, not a number (5)")
		}
		if !found {
			t.Errorf("%s: no positioned warning in %v", tc.kind, s.Warnings)
		}
	}
}
