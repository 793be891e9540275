package load

import (
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"
)

// subschemas calls f with each subschema of s that is set, and where s
// writes it: the keyword, then for a keyword holding several the
// member's name or index (member "" otherwise). The order is the
// keywords' below (a map's members in Go's order): the walks that record
// the first place they meet a schema at (places.go) depend on it.
func subschemas(s *openapi3.Schema, f func(r *openapi3.SchemaRef, keyword, member string)) {
	named := func(m openapi3.Schemas, keyword string) {
		for name, r := range m {
			f(r, keyword, name)
		}
	}
	list := func(rs openapi3.SchemaRefs, keyword string) {
		for i, r := range rs {
			f(r, keyword, strconv.Itoa(i))
		}
	}
	one := func(r *openapi3.SchemaRef, keyword string) {
		if r != nil {
			f(r, keyword, "")
		}
	}
	named(s.Properties, "properties")
	named(s.PatternProperties, "patternProperties")
	named(s.DependentSchemas, "dependentSchemas")
	named(s.Defs, "$defs")
	list(s.AllOf, "allOf")
	list(s.AnyOf, "anyOf")
	list(s.OneOf, "oneOf")
	list(s.PrefixItems, "prefixItems")
	one(s.Items, "items")
	one(s.Not, "not")
	one(s.AdditionalProperties.Schema, "additionalProperties")
	one(s.UnevaluatedItems.Schema, "unevaluatedItems")
	one(s.UnevaluatedProperties.Schema, "unevaluatedProperties")
	one(s.Contains, "contains")
	one(s.PropertyNames, "propertyNames")
	one(s.If, "if")
	one(s.Then, "then")
	one(s.Else, "else")
	one(s.ContentSchema, "contentSchema")
}
