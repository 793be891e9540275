// Package schema translates OpenAPI schemas (3.0 and 3.1, as kin-openapi
// reads them) into self-contained JSON Schema 2020-12 documents, the dialect
// MCP tool schemas use.
//
// Every $ref becomes a local "#/$defs/Name" reference, so a tool schema never
// points outside itself (go-sdk refuses remote refs) and cyclic component
// graphs (stripe, kubernetes) need no special handling: a cycle is just a
// $ref back to a def already being collected. Component conversions are
// cached per mode, so a spec whose 700 operations share the same components
// converts each component once.
package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tailormcp/tailor/internal/jsonv"
)

// Mode says which direction a schema describes: what the model sends
// (readOnly properties dropped) or what the API returns (writeOnly dropped).
type Mode int

const (
	Input Mode = iota
	Output
)

// Warner receives problems that were fixed up during translation, with the
// place in the spec of the keyword concerned when the loader recorded it
// (at is nil otherwise).
type Warner func(at *openapi3.Location, msg string)

// Converter translates schemas of one spec. It is not safe for concurrent use.
type Converter struct {
	warn Warner
	// names gives each referenced schema one $defs name for the whole spec,
	// so the same component reads the same in every tool.
	names map[*openapi3.Schema]string
	taken map[string]bool
	// cache holds converted components per mode, and the defs each one
	// refers to directly.
	cache [2]map[string]*def
	// warned de-duplicates warnings about shared components.
	warned map[string]bool
	// targets maps the place an OpenAPI 3.1 $ref points at to the schema
	// there (see UseDocument); nil for earlier versions, where kin-openapi
	// never copies a schema for the keywords beside its $ref.
	targets map[string]*openapi3.Schema
}

type def struct {
	value any
	refs  []string
	size  int // bytes of value as JSON; 0 until measured
}

// size measures a cached component once.
func (c *Converter) size(mode Mode, name string) int {
	df := c.cache[mode][name]
	if df.size == 0 {
		b, _ := json.Marshal(df.value)
		df.size = len(b)
	}
	return df.size
}

// NewConverter returns a converter that reports fix-ups to warn (may be nil).
func NewConverter(warn Warner) *Converter {
	if warn == nil {
		warn = func(*openapi3.Location, string) {}
	}
	return &Converter{
		warn:   warn,
		names:  map[*openapi3.Schema]string{},
		taken:  map[string]bool{},
		cache:  [2]map[string]*def{{}, {}},
		warned: map[string]bool{},
	}
}

// Doc builds one self-contained schema document (a tool's input or output).
type Doc struct {
	c    *Converter
	mode Mode
	refs map[string]bool
	// Budget, when positive, bounds the size in bytes of $defs: components
	// are spelled out level by level ($ref hops from the root) while the
	// total stays within it, and components
	// further away become permissive placeholders. Output schemas of APIs
	// with rich, cross-linked objects (stripe) otherwise run to hundreds of
	// kilobytes per tool while adding nothing the model needs; a placeholder
	// accepts any value, so the structured result still conforms.
	Budget int
}

// NewDoc starts a document in the given mode.
func (c *Converter) NewDoc(mode Mode) *Doc {
	return &Doc{c: c, mode: mode, refs: map[string]bool{}}
}

// Convert translates ref into a JSON Schema value (map, or bool for the
// boolean schemas). References it makes are remembered for Defs.
func (d *Doc) Convert(ref *openapi3.SchemaRef) any {
	return d.c.convertRef(ref, d.mode, d.note)
}

// Resolve follows ref to its schema value (nil when absent).
func Resolve(ref *openapi3.SchemaRef) *openapi3.Schema {
	if ref == nil {
		return nil
	}
	return ref.Value
}

func (d *Doc) note(name string) { d.refs[name] = true }

// Defs returns the $defs object: every component the converted values refer
// to, transitively. It is nil when there are none.
func (d *Doc) Defs() map[string]any {
	if len(d.refs) == 0 {
		return nil
	}
	out := map[string]any{}
	level := make([]string, 0, len(d.refs))
	for n := range d.refs {
		level = append(level, n)
	}
	sort.Strings(level)
	size := 0
	cut := false
	for depth := 1; len(level) > 0; depth++ {
		var fresh []string
		levelSize := 0
		for _, n := range level {
			if _, ok := out[n]; ok || contains(fresh, n) {
				continue
			}
			fresh = append(fresh, n)
			levelSize += d.c.size(d.mode, n)
		}
		if d.Budget > 0 && size+levelSize > d.Budget {
			cut = true
		}
		size += levelSize
		var next []string
		for _, n := range fresh {
			if cut {
				out[n] = map[string]any{"description": "A " + n + " (its fields are not spelled out here)."}
				continue
			}
			df := d.c.cache[d.mode][n]
			out[n] = df.value
			next = append(next, df.refs...)
		}
		sort.Strings(next)
		level = next
	}
	return out
}

type noteFunc func(name string)

func (c *Converter) convertRef(ref *openapi3.SchemaRef, mode Mode, note noteFunc) any {
	if ref == nil || ref.Value == nil {
		return map[string]any{}
	}
	if ref.Ref == "" {
		return c.convert(ref.Value, mode, note)
	}
	if out := c.convertSiblings(ref, mode, note); out != nil {
		return out
	}
	return map[string]any{"$ref": "#/$defs/" + c.component(ref, ref.Value, mode, note)}
}

// component converts value, the schema ref points at, once per mode as a
// $defs entry and returns its name.
func (c *Converter) component(ref *openapi3.SchemaRef, value *openapi3.Schema, mode Mode, note noteFunc) string {
	name := c.defName(ref, value)
	note(name)
	if _, done := c.cache[mode][name]; !done {
		df := &def{}
		// Registered before converting so that a cycle back to this
		// component finds it and stops.
		c.cache[mode][name] = df
		seen := map[string]bool{}
		df.value = c.convert(value, mode, func(n string) {
			if !seen[n] {
				seen[n] = true
				df.refs = append(df.refs, n)
			}
		})
		sort.Strings(df.refs)
	}
	return name
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// defName gives value, the schema ref points at, its $defs name, derived
// from the last segment of the $ref and made unique across the spec. Names
// are handed out in the order schemas are first converted, which is the
// order of operations, parameters and (sorted) property names, so that the
// same spec always gets the same names.
func (c *Converter) defName(ref *openapi3.SchemaRef, value *openapi3.Schema) string {
	if n, ok := c.names[value]; ok {
		return n
	}
	r := ref.Ref
	frag := ""
	if i := strings.IndexByte(r, '#'); i >= 0 {
		r, frag = r[:i], r[i+1:]
	}
	var base string
	switch {
	case strings.HasPrefix(frag, "/components/schemas/"):
		base = strings.ReplaceAll(strings.TrimPrefix(frag, "/components/schemas/"), "/", "_")
	case strings.HasPrefix(frag, "/definitions/"):
		base = strings.ReplaceAll(strings.TrimPrefix(frag, "/definitions/"), "/", "_")
	case frag != "":
		segs := strings.Split(strings.Trim(frag, "/"), "/")
		base = segs[len(segs)-1]
	default:
		base = r[strings.LastIndexAny(r, "/\\")+1:]
		if i := strings.LastIndexByte(base, '.'); i > 0 {
			base = base[:i]
		}
	}
	base = strings.ReplaceAll(strings.ReplaceAll(base, "~1", "_"), "~0", "_")
	base = strings.Trim(unsafeName.ReplaceAllString(base, "_"), "_")
	if base == "" {
		base = "schema"
	}
	name := base
	for i := 2; c.taken[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	c.taken[name] = true
	c.names[value] = name
	return name
}

// convert translates one schema value; nested refs go through convertRef.
func (c *Converter) convert(s *openapi3.Schema, mode Mode, note noteFunc) any {
	if s.Always != nil {
		return *s.Always || mode == Output
	}
	out := map[string]any{}
	sub := func(r *openapi3.SchemaRef) any { return c.convertRef(r, mode, note) }
	subs := func(rs openapi3.SchemaRefs) []any {
		l := make([]any, 0, len(rs))
		for _, r := range rs {
			l = append(l, sub(r))
		}
		return l
	}

	types := []string(nil)
	if s.Type != nil {
		types = append(types, (*s.Type)...)
	}
	if s.Nullable && len(types) > 0 && !contains(types, "null") {
		types = append(types, "null")
	}
	switch len(types) {
	case 0:
	case 1:
		out["type"] = types[0]
	default:
		out["type"] = types
	}

	// Prose goes into input schemas, where it tells the model what to send.
	// An output schema describes structure for clients that check
	// structuredContent; the model reads the data itself, so its prose
	// would only cost bytes (stripe: 10.6 MB of output schemas, 4 MB
	// without it).
	prose := mode == Input
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
	if len(s.Enum) > 0 {
		enum := append([]any(nil), s.Enum...)
		if s.Nullable && !containsNil(enum) {
			enum = append(enum, nil)
		}
		out["enum"] = enum
	}
	if s.Const != nil {
		out["const"] = s.Const
	}
	if s.Default != nil {
		if ok, why := fits(s.Default, types, s.Enum); ok {
			out["default"] = s.Default
		} else {
			c.warnOnce(field(s, "default"), fmt.Sprintf("dropped default %s: %s", jsonv.Text(s.Default), why))
		}
	}
	switch {
	case !prose:
	case len(s.Examples) > 0:
		out["examples"] = s.Examples
	case s.Example != nil:
		out["examples"] = []any{s.Example}
	}

	// Numbers. OpenAPI 3.0 writes exclusiveMinimum as a boolean modifier of
	// minimum; 2020-12 wants the bound itself.
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

	// Strings.
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
			c.warnOnce(field(s, "pattern"), fmt.Sprintf("dropped pattern %q: not a regular expression Go can compile (%v); the API still checks it", s.Pattern, err))
		}
	}
	if s.ContentMediaType != "" {
		out["contentMediaType"] = s.ContentMediaType
	}
	if s.ContentEncoding != "" {
		out["contentEncoding"] = s.ContentEncoding
	}

	// Arrays.
	if s.Items != nil {
		out["items"] = sub(s.Items)
	}
	if len(s.PrefixItems) > 0 {
		out["prefixItems"] = subs(s.PrefixItems)
	}
	if s.Contains != nil {
		out["contains"] = sub(s.Contains)
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
	if v := boolSchema(s.UnevaluatedItems, sub); v != nil {
		out["unevaluatedItems"] = v
	}

	// Objects.
	if len(s.Properties) > 0 {
		props := map[string]any{}
		skipped := map[string]bool{}
		for _, name := range sortedKeys(s.Properties) {
			p := s.Properties[name]
			if Skip(p, mode) {
				skipped[name] = true
				continue
			}
			props[name] = sub(p)
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
	if v := boolSchema(s.AdditionalProperties, sub); v != nil {
		out["additionalProperties"] = v
	}
	if v := boolSchema(s.UnevaluatedProperties, sub); v != nil {
		out["unevaluatedProperties"] = v
	}
	if len(s.PatternProperties) > 0 {
		pp := map[string]any{}
		for _, k := range sortedKeys(s.PatternProperties) {
			v := s.PatternProperties[k]
			if _, err := regexp.Compile(k); err != nil {
				c.warnOnce(key(s), fmt.Sprintf("dropped patternProperties %q: not a regular expression Go can compile (%v)", k, err))
				continue
			}
			pp[k] = sub(v)
		}
		if len(pp) > 0 {
			out["patternProperties"] = pp
		}
	}
	if s.PropertyNames != nil {
		out["propertyNames"] = sub(s.PropertyNames)
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
		for _, k := range sortedKeys(s.DependentSchemas) {
			ds[k] = sub(s.DependentSchemas[k])
		}
		out["dependentSchemas"] = ds
	}

	// Composition.
	if len(s.AllOf) > 0 {
		out["allOf"] = subs(s.AllOf)
	}
	if len(s.AnyOf) > 0 {
		out["anyOf"] = subs(s.AnyOf)
	}
	if len(s.OneOf) > 0 {
		out["oneOf"] = subs(s.OneOf)
	}
	if s.Not != nil {
		out["not"] = sub(s.Not)
	}
	if s.If != nil {
		out["if"] = sub(s.If)
		if s.Then != nil {
			out["then"] = sub(s.Then)
		}
		if s.Else != nil {
			out["else"] = sub(s.Else)
		}
	}
	if mode == Output {
		describeOnly(out)
	}
	// A 3.0 nullable schema without a type (e.g. `nullable: true` next to
	// allOf) still admits null.
	if s.Nullable && len(types) == 0 && hasComposition(s) {
		return map[string]any{"anyOf": []any{out, map[string]any{"type": "null"}}}
	}
	return out
}

// Skip reports whether a property is left out in mode: readOnly ones are not
// the model's to send; writeOnly ones never come back.
func Skip(p *openapi3.SchemaRef, mode Mode) bool {
	if p == nil || p.Value == nil {
		return false
	}
	if mode == Input {
		return p.Value.ReadOnly
	}
	return p.Value.WriteOnly
}

func hasComposition(s *openapi3.Schema) bool {
	return len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0
}

func boolSchema(b openapi3.BoolSchema, sub func(*openapi3.SchemaRef) any) any {
	if b.Schema != nil {
		return sub(b.Schema)
	}
	if b.Has != nil {
		return *b.Has
	}
	return nil
}

// warnOnce reports a fix-up once per place: a component shared by many
// operations is converted once per direction, and its problem is one
// problem. Without a place, the message alone identifies it.
func (c *Converter) warnOnce(at *openapi3.Location, msg string) {
	k := msg
	if at != nil {
		k = fmt.Sprintf("%s:%d:%d %s", at.File, at.Line, at.Column, msg)
	}
	if c.warned[k] {
		return
	}
	c.warned[k] = true
	c.warn(at, msg)
}

// field is where s spells the keyword name, when known.
func field(s *openapi3.Schema, name string) *openapi3.Location {
	if s.Origin == nil {
		return nil
	}
	if loc, ok := s.Origin.Fields.Lookup(name); ok && loc.Line > 0 {
		return &loc
	}
	return key(s)
}

// key is where s itself starts, when known.
func key(s *openapi3.Schema) *openapi3.Location {
	if s.Origin == nil || s.Origin.Key == nil || s.Origin.Key.Line == 0 {
		return nil
	}
	return s.Origin.Key
}

// fits reports whether a default value agrees with the schema's types and
// enum; clients and validators reject schemas whose default does not.
func fits(v any, types []string, enum []any) (bool, string) {
	if len(enum) > 0 {
		found := false
		for _, e := range enum {
			if jsonv.Text(e) == jsonv.Text(v) {
				found = true
				break
			}
		}
		if !found {
			return false, "not one of the enum values"
		}
	}
	if len(types) == 0 {
		return true, ""
	}
	have := jsonType(v)
	for _, t := range types {
		if t == have || (t == "number" && have == "integer") {
			return true, ""
		}
	}
	return false, fmt.Sprintf("it is a %s but the schema's type is %s", have, strings.Join(types, " or "))
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return "integer"
		}
		return "number"
	case int, int32, int64, uint64:
		return "integer"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// sortedKeys lists a map's names in order: converting a schema has
// effects (the $defs names it hands out, the warnings it gives) whose order
// must not depend on Go's map iteration.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func containsNil(l []any) bool {
	for _, x := range l {
		if x == nil {
			return true
		}
	}
	return false
}

// SetWarner replaces the function fix-ups are reported to, so that each
// operation's warnings name that operation.
func (c *Converter) SetWarner(warn Warner) {
	if warn == nil {
		warn = func(*openapi3.Location, string) {}
	}
	c.warn = warn
}
