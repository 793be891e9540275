package load

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSwagger2ParameterRules: an operation whose parameters break Swagger
// 2.0's rules no longer stops the spec from loading: an ambiguous one is
// left out, the others are mended, each with a warning at the parameter;
// under --strict each is an error there instead.
func TestSwagger2ParameterRules(t *testing.T) {
	path := filepath.Join("..", "..", "..", "testdata", "cases", "defect-swagger2-parameters", "openapi.yaml")
	spec, err := Load(path, Options{SkipValidation: true})
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]bool{}
	for p, item := range spec.Doc.Paths.Map() {
		for m := range item.Operations() {
			ops[m+" "+p] = true
		}
	}
	for _, op := range []string{"GET /notes", "GET /notes/{id}", "POST /notes/{id}/tags", "POST /notes/{id}/attachments"} {
		if !ops[op] {
			t.Errorf("%s was left out", op)
		}
	}
	for _, op := range []string{"POST /notes", "PUT /notes/{id}", "POST /notes/{id}/comments"} {
		if ops[op] {
			t.Errorf("%s was kept, though its request is ambiguous", op)
		}
	}
	if rb := spec.Doc.Paths.Value("/notes/{id}/tags").Post.RequestBody.Value; rb.Content.Get("application/x-www-form-urlencoded") == nil || rb.Content.Get("application/json") != nil {
		t.Errorf("form fields are not sent as a form: %v", rb.Content)
	}
	if rb := spec.Doc.Paths.Value("/notes/{id}/attachments").Post.RequestBody.Value; rb.Content.Get("multipart/form-data") == nil {
		t.Errorf("a file is not sent as multipart: %v", rb.Content)
	}
	if ps := spec.Doc.Paths.Value("/notes").Get.Parameters; len(ps) != 1 || !ps[0].Value.Schema.Value.Type.Is("integer") {
		t.Errorf("limit is not its later declaration alone: %d parameters", len(ps))
	}
	var got []string
	for _, w := range spec.Warnings {
		got = append(got, w.String())
	}
	want := []string{"openapi.yaml:27:11: ", "openapi.yaml:44:11: ", "openapi.yaml:71:11: ", "openapi.yaml:79:9: ", "openapi.yaml:98:11: ", "openapi.yaml:114:11: "}
	if len(got) != len(want) {
		t.Fatalf("warnings:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("warning %d = %s, want it at %s", i, got[i], w)
		}
	}

	_, err = Load(path, Options{SkipValidation: true, Strict: true})
	if err == nil || !strings.Contains(err.Error(), "openapi.yaml:44:11: error: body parameter \"draft\" is one of two") {
		t.Errorf("--strict: %v", err)
	}
}
