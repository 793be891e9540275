package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tailormcp/tailor/internal/jsonv"
)

// In OpenAPI 3.1 the keywords written beside a $ref apply along with it
// ({$ref: Snowflake, description: "the guild's id"}). kin-openapi honours
// them by giving that $ref its own copy of the target schema with the
// keywords applied. Converted as it is, every such copy would become a $defs
// entry of its own (Snowflake_2 … Snowflake_19 on discord, whose numbers
// depended on the order Go's maps were visited in). Instead, a copy whose
// siblings are only annotations is written the way JSON Schema 2020-12
// says it: a $ref to the one definition of the target, with the annotations
// beside it. Siblings that assert something (maxLength next to the $ref)
// keep the copy, under a name given in conversion order.

// UseDocument tells the converter which document its schemas come from, so
// that a 3.1 $ref with sibling keywords can be written as a $ref to its
// target plus those keywords. It walks the document's schemas once (3.1
// only) to learn what each $ref points at.
func (c *Converter) UseDocument(doc *openapi3.T) {
	if doc == nil || !doc.IsOpenAPI31OrLater() {
		return
	}
	c.targets = map[string]*openapi3.Schema{}
	w := targetWalker{c: c, seen: map[*openapi3.Schema]bool{}}
	if doc.Components != nil {
		for _, name := range sortedKeys(doc.Components.Schemas) {
			ref := doc.Components.Schemas[name]
			if ref != nil && ref.Ref == "" && ref.Value != nil && ref.RefPath() != nil {
				// An inline component: where $refs to it point.
				c.targets[ref.RefPath().String()] = ref.Value
			}
			w.schema(ref)
		}
	}
	if doc.Paths != nil {
		paths := doc.Paths.Map()
		for _, path := range sortedKeys(paths) {
			item := paths[path]
			if item == nil {
				continue
			}
			for _, p := range item.Parameters {
				w.parameter(p)
			}
			ops := item.Operations()
			for _, method := range sortedKeys(ops) {
				op := ops[method]
				if op == nil {
					continue
				}
				for _, p := range op.Parameters {
					w.parameter(p)
				}
				if op.RequestBody != nil && op.RequestBody.Value != nil {
					w.content(op.RequestBody.Value.Content)
				}
				if op.Responses != nil {
					responses := op.Responses.Map()
					for _, code := range sortedKeys(responses) {
						if r := responses[code]; r != nil && r.Value != nil {
							w.content(r.Value.Content)
						}
					}
				}
			}
		}
	}
}

// targetWalker records, for every $ref without siblings it meets, the
// schema its target is. Every $ref to one place without siblings should
// have the same target; the walk still goes in name order everywhere, so
// that if a loader ever hands out two copies, the same one wins every run.
type targetWalker struct {
	c    *Converter
	seen map[*openapi3.Schema]bool
}

func (w *targetWalker) parameter(p *openapi3.ParameterRef) {
	if p != nil && p.Value != nil {
		w.schema(p.Value.Schema)
		w.content(p.Value.Content)
	}
}

func (w *targetWalker) content(c openapi3.Content) {
	for _, mt := range sortedKeys(c) {
		if m := c[mt]; m != nil {
			w.schema(m.Schema)
		}
	}
}

func (w *targetWalker) schema(ref *openapi3.SchemaRef) {
	if ref == nil || ref.Value == nil {
		return
	}
	if ref.Ref != "" && ref.RefPath() != nil && siblings(ref) == nil {
		w.c.targets[ref.RefPath().String()] = ref.Value
	}
	s := ref.Value
	if w.seen[s] {
		return
	}
	w.seen[s] = true
	for _, r := range []*openapi3.SchemaRef{s.Items, s.Not, s.Contains, s.PropertyNames, s.If, s.Then, s.Else, s.ContentSchema,
		s.AdditionalProperties.Schema, s.UnevaluatedItems.Schema, s.UnevaluatedProperties.Schema} {
		w.schema(r)
	}
	for _, rs := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems} {
		for _, r := range rs {
			w.schema(r)
		}
	}
	for _, m := range []openapi3.Schemas{s.Properties, s.PatternProperties, s.DependentSchemas, s.Defs} {
		for _, name := range sortedKeys(m) {
			w.schema(m[name])
		}
	}
}

// siblings returns the keywords written beside ref's $ref (extensions
// left out), or nil when there are none.
func siblings(ref *openapi3.SchemaRef) map[string]any {
	y, err := ref.MarshalYAML()
	if err != nil {
		return nil
	}
	m, _ := y.(map[string]any)
	var out map[string]any
	for k, v := range m {
		if k == "$ref" || strings.HasPrefix(k, "x-") {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[k] = v
	}
	return out
}

// annotations are the sibling keywords that describe a value without
// constraining it; a copy whose siblings are all annotations is written as
// a $ref plus those keywords.
var annotations = map[string]bool{
	"title": true, "description": true, "deprecated": true, "default": true,
	"example": true, "examples": true, "readOnly": true, "writeOnly": true,
	"$comment": true, "externalDocs": true,
}

// convertSiblings converts a 3.1 $ref whose value kin-openapi copied to
// apply annotation siblings as {"$ref": target, annotations...}; it returns
// nil for every other $ref.
func (c *Converter) convertSiblings(ref *openapi3.SchemaRef, mode Mode, note noteFunc) map[string]any {
	if c.targets == nil || ref.RefPath() == nil {
		return nil
	}
	target := c.targets[ref.RefPath().String()]
	if target == nil || target == ref.Value {
		return nil
	}
	sib := siblings(ref)
	if len(sib) == 0 {
		return nil
	}
	for k := range sib {
		if !annotations[k] {
			return nil
		}
	}
	// The annotations convert as a schema of their own (prose only in
	// input schemas, 3.0 spellings to 2020-12), merged beside the $ref.
	data, err := json.Marshal(sib)
	if err != nil {
		return nil
	}
	var s openapi3.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil
	}
	s.Origin = ref.Origin
	out, _ := c.convert(&s, mode, note).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	if _, ok := out["default"]; ok {
		// Whether the default fits is a question for the target's type,
		// which this schema of annotations alone does not have.
		if ok, why := fits(s.Default, typesOf(target), target.Enum); !ok {
			delete(out, "default")
			c.warnOnce(c.fieldOf(&s, ref, "default"), fmt.Sprintf("dropped default %s: %s", jsonv.Text(s.Default), why))
		}
	}
	out["$ref"] = "#/$defs/" + c.component(ref, target, mode, note)
	return out
}

func typesOf(s *openapi3.Schema) []string {
	if s.Type == nil {
		return nil
	}
	t := append([]string(nil), (*s.Type)...)
	if s.Nullable && !slices.Contains(t, "null") {
		t = append(t, "null")
	}
	sort.Strings(t)
	return t
}
