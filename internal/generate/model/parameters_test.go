package model

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// An operation's parameter replaces the path item's of the same name and
// location (the location in any case), in the path item's place; a name
// written twice in one list keeps the last; the same name in another
// location is another parameter.
func TestParametersMerge(t *testing.T) {
	param := func(in, name, desc string) *openapi3.ParameterRef {
		return &openapi3.ParameterRef{Value: &openapi3.Parameter{In: in, Name: name, Description: desc}}
	}
	item := &openapi3.PathItem{Parameters: openapi3.Parameters{
		param("query", "a", "item a"), param("header", "a", "item header a"), nil, param("query", "b", "item b"), param("query", "b", "item b again"),
	}}
	op := &openapi3.Operation{Parameters: openapi3.Parameters{
		param("QUERY", "a", "op a"), {}, param("path", "c", "op c"), param("Query", "B", "op B"),
	}}
	var got []string
	for _, p := range parameters(item, op) {
		got = append(got, p.In+" "+p.Name+": "+p.Description)
	}
	want := []string{"QUERY a: op a", "header a: item header a", "query b: item b again", "path c: op c", "Query B: op B"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}
