package load

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// A component schema used by several operations is validated, and its
// mistake reported, once at the component; mistakes in inline schemas and
// in schemas of other files are still found where they are.
func TestComponentSchemasValidatedOnce(t *testing.T) {
	t.Setenv("TAILOR_CACHE", "off")
	spec, err := Load("testdata/validate-once/openapi.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range spec.Warnings {
		got = append(got, w.String())
	}
	want := []string{
		`testdata/validate-once/openapi.yaml:45:5: warning: spec does not pass strict validation (generating anyway): invalid components: schema "Broken": unsupported 'type' value "integr"`,
		`testdata/validate-once/openapi.yaml:31:5: warning: spec does not pass strict validation (generating anyway): invalid paths: invalid path /c: invalid operation GET: parameter "q" schema is invalid: unsupported 'type' value "strnig"`,
		`testdata/validate-once/openapi.yaml:31:5: warning: spec does not pass strict validation (generating anyway): invalid paths: invalid path /c: invalid operation GET: unsupported 'type' value "nmber"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The view is a copy: validating it leaves the document as it was, so the
// stages that read the document meanwhile see it unchanged.
func TestValidationViewDoesNotTouchTheDocument(t *testing.T) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	doc, err := loader.LoadFromFile("testdata/validate-once/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	before := doc.Paths.Value("/b").Post.RequestBody.Value.Content["application/json"].Schema
	view := validationView(context.Background(), doc)
	if view == doc || view.Paths == doc.Paths {
		t.Fatal("the view shares the document's paths")
	}
	_ = view.Validate(context.Background())
	after := doc.Paths.Value("/b").Post.RequestBody.Value.Content["application/json"].Schema
	if before != after || after.Value != doc.Components.Schemas["Broken"].Value {
		t.Fatal("validating the view changed the document's schema references")
	}
	stub := view.Paths.Value("/b").Post.RequestBody.Value.Content["application/json"].Schema
	if stub.Ref != after.Ref || stub.Value == after.Value {
		t.Fatalf("the view's reference is not a stand-in: %+v", stub)
	}
}
