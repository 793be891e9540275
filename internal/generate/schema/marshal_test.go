package schema_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tailormcp/tailor/internal/generate/schema"
)

// chainSpec has a root object reaching three components, level by level,
// one of them cyclic, with text json.Marshal escapes (<, >, &).
const chainSpec = `{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}, "components": {"schemas": {
	"Root": {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"}, "n": {"type": "integer", "minimum": 1.5}}},
	"A": {"type": "object", "description": "<b>A & more</b>", "properties": {"b": {"$ref": "#/components/schemas/B"}}},
	"B": {"type": "object", "description": "B", "properties": {"c": {"$ref": "#/components/schemas/C"}, "up": {"$ref": "#/components/schemas/A"}}},
	"C": {"type": "string", "enum": ["x<y", "z"]}
}}}`

// TestDocMarshalIsMarshalWithDefs wants Doc.Marshal, which splices each
// component's bytes encoded once, to write what encoding the root with
// "$defs": Defs() writes, for every budget (each cut level included).
func TestDocMarshalIsMarshalWithDefs(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData([]byte(chainSpec))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []schema.Mode{schema.Input, schema.Output} {
		for budget := 0; budget < 400; budget += 7 {
			c := schema.NewConverter(nil)
			c.UseDocument(doc)
			for i := range 2 { // the second time from the converter's cache
				d := c.NewDoc(mode)
				d.Budget = budget
				root, _ := d.Convert(&openapi3.SchemaRef{Value: doc.Components.Schemas["Root"].Value}).(map[string]any)
				root["title"] = "r"
				got := d.Marshal(root)
				want := map[string]any{"$defs": d.Defs()}
				for k, v := range root {
					want[k] = v
				}
				if w := schema.Marshal(want); !bytes.Equal(got, w) {
					t.Fatalf("mode %d, budget %d, run %d:\n got %s\nwant %s", mode, budget, i, got, w)
				}
			}
		}
	}
}

// TestBudgetCountsEscapedBytes wants the budget to count a component as
// json.Marshal writes it (< as \u003c), as it always has: a budget of
// exactly that size keeps the component, one byte less cuts it.
func TestBudgetCountsEscapedBytes(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData([]byte(chainSpec))
	if err != nil {
		t.Fatal(err)
	}
	refC := &openapi3.SchemaRef{Ref: "#/components/schemas/C", Value: doc.Components.Schemas["C"].Value}
	c := schema.NewConverter(nil)
	c.UseDocument(doc)
	d := c.NewDoc(schema.Input)
	d.Convert(refC)
	escaped, _ := json.Marshal(d.Defs()["C"])
	for _, tc := range []struct {
		budget int
		kept   bool
	}{{len(escaped), true}, {len(escaped) - 1, false}} {
		d := c.NewDoc(schema.Input)
		d.Budget = tc.budget
		d.Convert(refC)
		// A kept component is its encoded bytes; a placeholder an object.
		_, placeholder := d.Defs()["C"].(map[string]any)
		if placeholder == tc.kept {
			t.Errorf("budget %d (component %d bytes escaped): kept = %v, want %v", tc.budget, len(escaped), !placeholder, tc.kept)
		}
	}
}
