package schema_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tailormcp/tailor/internal/generate/schema"
)

// siblingSpec is an OpenAPI 3.1 document whose $refs carry sibling
// keywords, as discord's does: kin-openapi gives each such $ref its own
// copy of the target.
func siblingSpec(props int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}, "components": {"schemas": {
	"Snowflake": {"type": "string", "pattern": "^[0-9]+$", "description": "A snowflake id."},
	"Thing": {"type": "object", "properties": {`)
	for i := range props {
		if i > 0 {
			b.WriteString(",")
		}
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, `"p%02d": {"$ref": "#/components/schemas/Snowflake", "description": "Id number %d."}`, i, i)
		case 1:
			fmt.Fprintf(&b, `"p%02d": {"$ref": "#/components/schemas/Snowflake"}`, i)
		default:
			fmt.Fprintf(&b, `"p%02d": {"$ref": "#/components/schemas/Snowflake", "maxLength": %d}`, i, 10+i)
		}
	}
	b.WriteString(`}}}}}`)
	return []byte(b.String())
}

func convertThing(t *testing.T, data []byte, mode schema.Mode) string {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatal(err)
	}
	c := schema.NewConverter(nil)
	c.UseDocument(doc)
	d := c.NewDoc(mode)
	v := d.Convert(doc.Components.Schemas["Thing"])
	out, err := json.Marshal(map[string]any{"root": v, "$defs": d.Defs()})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestConversionIsDeterministic converts the same document in fresh
// converters (and so with fresh map iteration orders) and wants the same
// bytes every time: $defs names used to depend on which property Go's map
// iteration reached first.
func TestConversionIsDeterministic(t *testing.T) {
	data := siblingSpec(30)
	for _, mode := range []schema.Mode{schema.Input, schema.Output} {
		first := convertThing(t, data, mode)
		for i := range 20 {
			if got := convertThing(t, data, mode); got != first {
				t.Fatalf("mode %d, run %d differs:\n%s\n%s", mode, i, first, got)
			}
		}
	}
}

// TestRefWithSiblingAnnotations wants one definition of the target, with
// the annotations beside each $ref, and a copy only where a sibling
// asserts something.
func TestRefWithSiblingAnnotations(t *testing.T) {
	var got struct {
		Root struct {
			Properties map[string]map[string]any
		}
		Defs map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal([]byte(convertThing(t, siblingSpec(3), schema.Input)), &got); err != nil {
		t.Fatal(err)
	}
	p0 := got.Root.Properties["p00"]
	if p0["$ref"] != "#/$defs/Snowflake" || p0["description"] != "Id number 0." {
		t.Errorf("p00 = %v, want a $ref to Snowflake with the sibling description", p0)
	}
	if p1 := got.Root.Properties["p01"]; len(p1) != 1 || p1["$ref"] != "#/$defs/Snowflake" {
		t.Errorf("p01 = %v, want a bare $ref to Snowflake", p1)
	}
	snow, _ := got.Defs["Snowflake"].(map[string]any)
	if snow["description"] != "A snowflake id." {
		t.Errorf("$defs.Snowflake = %v, want the component itself", snow)
	}
	// maxLength beside the $ref constrains the value: that one use keeps
	// its own definition, which must still hold the constraint.
	p2 := got.Root.Properties["p02"]
	name := strings.TrimPrefix(fmt.Sprint(p2["$ref"]), "#/$defs/")
	if name == "Snowflake" || !strings.Contains(fmt.Sprint(got.Defs[name]), "maxLength:12") {
		t.Errorf("p02 = %v, $defs[%s] = %v: want a copy holding maxLength 12", p2, name, got.Defs[name])
	}
}
