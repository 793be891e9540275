package schema

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tailormcp/tailor/internal/jsonv"
)

// keywords converts the keywords of one schema value into out, a group
// at a time (Converter.convert calls them in order).
type keywords struct {
	c    *Converter
	s    *openapi3.Schema
	mode Mode
	note noteFunc
	out  map[string]any
	// types are the value's types, null added for a 3.0 nullable.
	types []string
}

func (k *keywords) sub(r *openapi3.SchemaRef) any { return k.c.convertRef(r, k.mode, k.note) }

func (k *keywords) subs(rs openapi3.SchemaRefs) []any {
	l := make([]any, 0, len(rs))
	for _, r := range rs {
		l = append(l, k.sub(r))
	}
	return l
}

// typ: type, with 3.0's nullable as a null type.
func (k *keywords) typ() {
	s := k.s
	if s.Type != nil {
		k.types = append(k.types, (*s.Type)...)
	}
	if s.Nullable && len(k.types) > 0 && !slices.Contains(k.types, "null") {
		k.types = append(k.types, "null")
	}
	switch len(k.types) {
	case 0:
	case 1:
		k.out["type"] = typeName(k.types[0])
	default:
		k.out["type"] = k.types
	}
}

// typeNames are JSON Schema's type names as interface values: a string
// stored in the map is otherwise boxed anew each time (stripe: 3.7 MB of
// garbage a run).
var typeNames = map[string]any{}

func init() {
	for _, t := range []string{"array", "boolean", "integer", "null", "number", "object", "string"} {
		typeNames[t] = t
	}
}

// typeName is t as an interface value, shared when it is one of the
// type names.
func typeName(t string) any {
	if v, ok := typeNames[t]; ok {
		return v
	}
	return t
}

// annotations: prose, format, deprecated, the allowed values and the
// default (dropped, with a warning, when it does not fit its schema), and
// 3.0's example as examples.
func (k *keywords) annotations() {
	s, out := k.s, k.out
	// Prose goes into input schemas, where it tells the model what to send.
	// An output schema describes structure for clients that check
	// structuredContent; the model reads the data itself, so its prose
	// would only cost bytes (stripe: 10.6 MB of output schemas, 4 MB
	// without it).
	prose := k.mode == Input
	if s.Title != "" && prose {
		out["title"] = s.Title
	}
	if s.Description != "" && prose {
		out["description"] = s.Description
	}
	if s.Format != "" {
		out["format"] = s.Format
	}
	if s.Deprecated {
		out["deprecated"] = true
	}
	// Allowed values of another type than the schema's could never be
	// sent as written: an enum's are read as the schema's type where they
	// can be (enum), a const that does not fit is dropped with a warning,
	// as a default is.
	enum := k.enum()
	if len(enum) > 0 {
		if s.Nullable && !slices.ContainsFunc(enum, func(v any) bool { return v == nil }) {
			enum = append(enum, nil)
		}
		out["enum"] = enum
	}
	if s.Const != nil {
		if ok, why := fits(s.Const, k.types, nil); ok {
			out["const"] = s.Const
		} else {
			k.c.warnOnce(k.c.field(s, "const"), fmt.Sprintf("dropped const %s: %s", jsonv.Text(s.Const), why))
		}
	}
	if s.Default != nil {
		if ok, why := fits(s.Default, k.types, enum); ok {
			out["default"] = s.Default
		} else {
			k.c.warnOnce(k.c.field(s, "default"), fmt.Sprintf("dropped default %s: %s", jsonv.Text(s.Default), why))
		}
	}
	switch {
	case !prose:
	case len(s.Examples) > 0:
		out["examples"] = s.Examples
	case s.Example != nil:
		out["examples"] = []any{s.Example}
	}
}

// enum is the schema's enum with each value of another type than the
// schema's read as that type where its text says so (0 of a string's
// enum as "0": YAML reads an unquoted 0 as a number; "1" of an integer's
// as 1), and left out where it does not ("x" of an integer's); a null
// stays (nullable says whether it is allowed). A warning says which.
// Such a value could never be sent as it is written. nil when none is
// left.
func (k *keywords) enum() []any {
	s := k.s
	if len(s.Enum) == 0 {
		return nil
	}
	enum := make([]any, 0, len(s.Enum)+1)
	var read, dropped []string
	for _, v := range s.Enum {
		if ok, _ := fits(v, k.types, nil); ok || v == nil {
			enum = append(enum, v)
		} else if as, ok := asType(v, k.types); ok {
			enum = append(enum, as)
			read = append(read, jsonv.Text(v))
		} else {
			dropped = append(dropped, jsonv.Text(v))
		}
	}
	types := strings.Join(k.types, " or ")
	if len(read) > 0 {
		k.c.warnOnce(k.c.field(s, "enum"), fmt.Sprintf("read enum %s as the schema's type, %s", enumValues(read), types))
	}
	if len(dropped) > 0 {
		k.c.warnOnce(k.c.field(s, "enum"), fmt.Sprintf("dropped enum %s: not of the schema's type, %s", enumValues(dropped), types))
	}
	if len(enum) == 0 {
		return nil
	}
	return enum
}

// enumValues names the values texts for a warning.
func enumValues(texts []string) string {
	if len(texts) == 1 {
		return "value " + texts[0]
	}
	return "values " + strings.Join(texts, ", ")
}

// asType is scalar v as the first of types its text reads as: a number
// or a boolean as its text for a string, a string that is a number for a
// number or an integer, "true" or "false" for a boolean.
func asType(v any, types []string) (any, bool) {
	for _, t := range types {
		switch x := v.(type) {
		case string:
			switch t {
			case "integer":
				if n, err := strconv.ParseInt(x, 10, 53); err == nil {
					return float64(n), true
				}
			case "number":
				if f, err := strconv.ParseFloat(x, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
					return f, true
				}
			case "boolean":
				if x == "true" || x == "false" {
					return x == "true", true
				}
			}
		case bool, float64, int, int32, int64, uint64:
			if t == "string" {
				return jsonv.Text(x), true
			}
		}
	}
	return nil, false
}

// numbers: bounds and multipleOf. OpenAPI 3.0 writes exclusiveMinimum as
// a boolean modifier of minimum; 2020-12 wants the bound itself.
func (k *keywords) numbers() {
	s, out := k.s, k.out
	if s.Min != nil {
		if s.ExclusiveMin.IsTrue() {
			out["exclusiveMinimum"] = *s.Min
		} else {
			out["minimum"] = *s.Min
		}
	}
	if s.ExclusiveMin.Value != nil {
		out["exclusiveMinimum"] = *s.ExclusiveMin.Value
	}
	if s.Max != nil {
		if s.ExclusiveMax.IsTrue() {
			out["exclusiveMaximum"] = *s.Max
		} else {
			out["maximum"] = *s.Max
		}
	}
	if s.ExclusiveMax.Value != nil {
		out["exclusiveMaximum"] = *s.ExclusiveMax.Value
	}
	if s.MultipleOf != nil && *s.MultipleOf > 0 {
		out["multipleOf"] = *s.MultipleOf
	}
}

// text: lengths, the pattern (dropped, with a warning, when Go cannot
// compile it) and content keywords.
func (k *keywords) text() {
	s, out := k.s, k.out
	if s.MinLength > 0 {
		out["minLength"] = s.MinLength
	}
	if s.MaxLength != nil {
		out["maxLength"] = *s.MaxLength
	}
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err == nil {
			out["pattern"] = s.Pattern
		} else {
			// The validator (and most clients) use RE2-like engines; a
			// pattern they cannot compile would reject every call.
			k.c.warnOnce(k.c.field(s, "pattern"), fmt.Sprintf("dropped pattern %q: not a regular expression Go can compile (%v); the API still checks it", s.Pattern, err))
		}
	}
	if s.ContentMediaType != "" {
		out["contentMediaType"] = s.ContentMediaType
	}
	if s.ContentEncoding != "" {
		out["contentEncoding"] = s.ContentEncoding
	}
}

// arrays: items and their counts.
func (k *keywords) arrays() {
	s, out := k.s, k.out
	if s.Items != nil {
		out["items"] = k.sub(s.Items)
	}
	if len(s.PrefixItems) > 0 {
		out["prefixItems"] = k.subs(s.PrefixItems)
	}
	if s.Contains != nil {
		out["contains"] = k.sub(s.Contains)
	}
	if s.MinContains != nil {
		out["minContains"] = *s.MinContains
	}
	if s.MaxContains != nil {
		out["maxContains"] = *s.MaxContains
	}
	if s.MinItems > 0 {
		out["minItems"] = s.MinItems
	}
	if s.MaxItems != nil {
		out["maxItems"] = *s.MaxItems
	}
	if s.UniqueItems {
		out["uniqueItems"] = true
	}
	if v := boolSchema(s.UnevaluatedItems, k.sub); v != nil {
		out["unevaluatedItems"] = v
	}
}

// objects: properties (readOnly ones left out of inputs, writeOnly ones
// out of outputs, and from required with them), additional and pattern
// properties (a pattern Go cannot compile dropped, with a warning), counts
// and dependencies.
func (k *keywords) objects() {
	s, out := k.s, k.out
	if len(s.Properties) > 0 {
		props := map[string]any{}
		skipped := map[string]bool{}
		for _, name := range sortedKeys(s.Properties) {
			p := s.Properties[name]
			if Skip(p, k.mode) {
				skipped[name] = true
				continue
			}
			props[name] = k.sub(p)
		}
		out["properties"] = props
		var req []string
		for _, r := range s.Required {
			if !skipped[r] {
				req = append(req, r)
			}
		}
		if len(req) > 0 {
			out["required"] = req
		}
	} else if len(s.Required) > 0 {
		out["required"] = s.Required
	}
	if v := boolSchema(s.AdditionalProperties, k.sub); v != nil {
		out["additionalProperties"] = v
	}
	if v := boolSchema(s.UnevaluatedProperties, k.sub); v != nil {
		out["unevaluatedProperties"] = v
	}
	if len(s.PatternProperties) > 0 {
		pp := map[string]any{}
		for _, name := range sortedKeys(s.PatternProperties) {
			if _, err := regexp.Compile(name); err != nil {
				k.c.warnOnce(k.c.key(s), fmt.Sprintf("dropped patternProperties %q: not a regular expression Go can compile (%v)", name, err))
				continue
			}
			pp[name] = k.sub(s.PatternProperties[name])
		}
		if len(pp) > 0 {
			out["patternProperties"] = pp
		}
	}
	if s.PropertyNames != nil {
		out["propertyNames"] = k.sub(s.PropertyNames)
	}
	if s.MinProps > 0 {
		out["minProperties"] = s.MinProps
	}
	if s.MaxProps != nil {
		out["maxProperties"] = *s.MaxProps
	}
	if len(s.DependentRequired) > 0 {
		out["dependentRequired"] = s.DependentRequired
	}
	if len(s.DependentSchemas) > 0 {
		ds := map[string]any{}
		for _, name := range sortedKeys(s.DependentSchemas) {
			ds[name] = k.sub(s.DependentSchemas[name])
		}
		out["dependentSchemas"] = ds
	}
}

// composition: allOf, anyOf, oneOf, not, if/then/else.
func (k *keywords) composition() {
	s, out := k.s, k.out
	if len(s.AllOf) > 0 {
		out["allOf"] = k.subs(s.AllOf)
	}
	if len(s.AnyOf) > 0 {
		out["anyOf"] = k.subs(s.AnyOf)
	}
	if len(s.OneOf) > 0 {
		out["oneOf"] = k.subs(s.OneOf)
	}
	if s.Not != nil {
		out["not"] = k.sub(s.Not)
	}
	if s.If != nil {
		out["if"] = k.sub(s.If)
		if s.Then != nil {
			out["then"] = k.sub(s.Then)
		}
		if s.Else != nil {
			out["else"] = k.sub(s.Else)
		}
	}
}
