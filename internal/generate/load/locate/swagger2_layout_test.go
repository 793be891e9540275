package locate

import (
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/go-openapi/jsonpointer"
)

// TestSwagger2LayoutRewrite: OpenAPI 3 pointers into a converted Swagger
// 2.0 document lead back to where the 2.0 document writes each place, by
// the converter's rules, or to the nearest place it has.
func TestSwagger2LayoutRewrite(t *testing.T) {
	var doc openapi2.T
	if err := doc.UnmarshalJSON([]byte(`{
	  "swagger": "2.0", "info": {"title": "t", "version": "1"},
	  "parameters": {
	    "Body": {"name": "b", "in": "body", "schema": {"type": "object"}},
	    "Limit": {"name": "limit", "in": "query", "type": "integer"},
	    "Flag": {"name": "flag", "in": "formData", "type": "boolean"}
	  },
	  "definitions": {"Thing": {"type": "object"}},
	  "paths": {
	    "/a/{id}": {
	      "parameters": [{"name": "id", "in": "path", "required": true, "type": "string"},
	                     {"name": "item", "in": "body", "schema": {"type": "object"}}],
	      "put": {"parameters": [{"$ref": "#/parameters/Limit"}, {"name": "q", "in": "query", "type": "string"}],
	              "responses": {"200": {"description": "ok", "schema": {"type": "object"},
	                                    "headers": {"X-N": {"type": "integer"}}}}},
	      "post": {"parameters": [{"name": "f", "in": "formData", "type": "string"},
	                              {"$ref": "#/parameters/Flag"}, {"name": "q", "in": "query", "type": "string"}],
	               "responses": {"200": {"description": "ok"}}}
	    },
	    "/b": {"get": {"parameters": [{"$ref": "#/parameters/Body"}, {"name": "x", "in": "header", "type": "string"}],
	                   "responses": {"200": {"description": "ok"}}}}
	  }
	}`)); err != nil {
		t.Fatal(err)
	}
	lay := NewSwagger2Layout(&doc)
	for _, c := range []struct{ in, want string }{
		// Parameters other than body and formData keep their order; their
		// schema keywords are their own.
		{"paths/~1a~1{id}/put/parameters/1/schema/default", "paths/~1a~1{id}/put/parameters/1/default"},
		{"paths/~1a~1{id}/parameters/0/schema/type", "paths/~1a~1{id}/parameters/0/type"},
		{"paths/~1a~1{id}/post/parameters/0/schema/type", "paths/~1a~1{id}/post/parameters/2/type"},
		{"paths/~1b/get/parameters/0/description", "paths/~1b/get/parameters/1/description"},
		{"paths/~1b/get/parameters/7", "paths/~1b/get/parameters"},
		// A body parameter: the operation's, a $ref to the parameters
		// section, or its path item's.
		{"paths/~1b/get/requestBody/content/application~1json/schema/properties/n", "paths/~1b/get/parameters/0/schema/properties/n"},
		{"paths/~1a~1{id}/put/requestBody/content/application~1json/schema/required", "paths/~1a~1{id}/parameters/1/schema/required"},
		{"paths/~1a~1{id}/put/requestBody/description", "paths/~1a~1{id}/parameters/1"},
		// formData parameters are the form schema's properties.
		{"paths/~1a~1{id}/post/requestBody/content/application~1x-www-form-urlencoded/schema/properties/f/enum", "paths/~1a~1{id}/post/parameters/0/enum"},
		{"paths/~1a~1{id}/post/requestBody/content/application~1x-www-form-urlencoded/schema/properties/flag/default", "paths/~1a~1{id}/post/parameters/1/default"},
		{"paths/~1a~1{id}/post/requestBody/content/application~1x-www-form-urlencoded/schema/properties/none", "paths/~1a~1{id}/post/parameters"},
		// Responses.
		{"paths/~1a~1{id}/put/responses/200/content/application~1json/schema/properties/n", "paths/~1a~1{id}/put/responses/200/schema/properties/n"},
		{"paths/~1a~1{id}/put/responses/200/headers/X-N/schema/minimum", "paths/~1a~1{id}/put/responses/200/headers/X-N/minimum"},
		{"paths/~1a~1{id}/put/responses/200/content/application~1json/example", "paths/~1a~1{id}/put/responses/200"},
		// Components.
		{"components/schemas/Thing/properties/x", "definitions/Thing/properties/x"},
		{"components/schemas/Flag/default", "parameters/Flag/default"},
		{"components/parameters/Limit/schema/maximum", "parameters/Limit/maximum"},
		{"components/requestBodies/Body/content/application~1json/schema/type", "parameters/Body/schema/type"},
		{"components/responses/NotFound/content/application~1json/schema", "responses/NotFound/schema"},
		{"components/securitySchemes/key", "securityDefinitions/key"},
		// What the layout does not know stays as it is.
		{"paths/~1c/get/parameters/0", "paths/~1c/get/parameters/0"},
		{"info/title", "info/title"},
	} {
		toks := strings.Split(c.in, "/")
		for i, tok := range toks {
			toks[i] = jsonpointer.Unescape(tok)
		}
		want := strings.Split(c.want, "/")
		for i, tok := range want {
			want[i] = jsonpointer.Unescape(tok)
		}
		if got := lay.rewrite(toks); strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("%s:\n got %q\nwant %q", c.in, got, want)
		}
	}
	// Without a layout (a spec that needed repair) sections are renamed.
	var none *Swagger2Layout
	if got := strings.Join(none.rewrite([]string{"components", "schemas", "Thing"}), "/"); got != "definitions/Thing" {
		t.Errorf("without a layout: %s", got)
	}
}
