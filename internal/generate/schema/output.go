package schema

import "slices"

// An output schema describes what the API returns; it does not police it.
// Clients check structuredContent against the outputSchema and reject the
// whole call when it does not fit, and real APIs add fields, leave out
// fields their spec calls required, return null where the spec forgot
// `nullable`, and grow their enums. So an output schema keeps the
// structure (types, properties, items, composition, $defs) and drops every
// keyword that only constrains values:
//
//   - no `required`, and no `additionalProperties`/`unevaluatedProperties`
//     or `items` of false: a field may be missing or new;
//   - every type also admits null (the root object excepted, which the
//     server itself builds);
//   - `oneOf` becomes `anyOf`: with nothing required, two branches can
//     match the same value, and oneOf would then fail;
//   - value constraints go (enum, const, pattern, format, bounds, lengths,
//     counts, uniqueness, not, if/then/else, dependencies, property
//     names, content encoding).
//
// mcpkit still checks each structuredContent against the declared schema
// at run time, for what remains (an object where the spec says array).
// Input schemas are untouched: there the spec's rules tell the model what
// to send.

// policing are the keywords that constrain values without describing
// structure.
var policing = []string{
	"required", "enum", "const", "pattern", "format",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "minItems", "maxItems", "uniqueItems",
	"contains", "minContains", "maxContains", "minProperties", "maxProperties",
	"dependentRequired", "dependentSchemas", "propertyNames",
	"not", "if", "then", "else", "contentMediaType", "contentEncoding",
}

// describeOnly turns one converted schema object into its output form (its
// subschemas were converted, and so relaxed, on their own).
func describeOnly(out map[string]any) {
	for _, k := range policing {
		delete(out, k)
	}
	for _, k := range []string{"additionalProperties", "unevaluatedProperties", "items", "unevaluatedItems"} {
		if b, ok := out[k].(bool); ok && !b {
			delete(out, k)
		}
	}
	if one, ok := out["oneOf"]; ok {
		delete(out, "oneOf")
		if _, both := out["anyOf"]; both {
			all, _ := out["allOf"].([]any)
			out["allOf"] = append(all, map[string]any{"anyOf": one})
		} else {
			out["anyOf"] = one
		}
	}
	switch t := out["type"].(type) {
	case string:
		if t != "null" {
			out["type"] = []string{t, "null"}
		}
	case []string:
		if !slices.Contains(t, "null") {
			out["type"] = append(t, "null")
		}
	}
}
