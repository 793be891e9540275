package model

import (
	"sort"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/schema"
)

// result derives the outputSchema from the operation's success response.
// MCP requires an outputSchema whose root is an object, so a JSON response
// that is not certainly an object is wrapped: arrays under "items", other
// values under "value"; the handler wraps structuredContent the same way.
func (b *builder) result(op *openapi3.Operation) (enc *encoding, res ir.Result) {
	resp := successResponse(op)
	if resp == nil || len(resp.Content) == 0 {
		return nil, res
	}
	mt, media := pickMedia(resp.Content)
	res.ContentType = mt
	if !isJSON(mt) || media == nil || media.Schema == nil || media.Schema.Value == nil {
		return nil, res
	}
	// Operations that return the same schema (stripe's retrieve, update
	// and delete of a resource) have the same outputSchema: converting it
	// again would hand out no new $defs names and repeat no warning
	// (each is given once), so it is made once.
	key := resultKey{media.Schema.Ref, media.Schema.Value}
	if r, ok := b.results[key]; ok {
		res.Wrap = r.wrap
		return r.enc, res
	}
	defer func() { b.results[key] = madeResult{enc, res.Wrap} }()
	doc := b.conv.NewDoc(schema.Output)
	doc.Budget = b.opts.OutputSchemaBudget
	var root map[string]any
	s := media.Schema.Value
	if isObject(media.Schema, 0) {
		// Convert the value itself so the root is an object schema, not a
		// bare $ref; a cycle back to it still goes through $defs.
		v := doc.Convert(&openapi3.SchemaRef{Value: s})
		root, _ = v.(map[string]any)
		if root == nil {
			root = map[string]any{}
		}
		root["type"] = "object"
	} else {
		res.Wrap = "value"
		if s.Type != nil && s.Type.Is("array") {
			res.Wrap = "items"
		}
		// Not required: an output schema describes, it does not police
		// (see schema/output.go).
		root = map[string]any{
			"type":       "object",
			"properties": map[string]any{res.Wrap: doc.Convert(media.Schema)},
		}
	}
	return b.encode(doc, root), res
}

// resultKey is the schema of a success response: its $ref and its value.
type resultKey struct {
	ref   string
	value *openapi3.Schema
}

// madeResult is the outputSchema made for a resultKey, and its wrap.
type madeResult struct {
	enc  *encoding
	wrap string
}

// DefaultOutputSchemaBudget bounds the $defs of an outputSchema, in bytes
// (see schema.Doc.Budget).
const DefaultOutputSchemaBudget = 4 << 10

// successResponse picks the first 2xx response by status code, then 2XX.
func successResponse(op *openapi3.Operation) *openapi3.Response {
	if op.Responses == nil {
		return nil
	}
	m := op.Responses.Map()
	var codes []int
	for k := range m {
		if n, err := strconv.Atoi(k); err == nil && n >= 200 && n < 300 {
			codes = append(codes, n)
		}
	}
	sort.Ints(codes)
	for _, c := range codes {
		if r := m[strconv.Itoa(c)]; r != nil && r.Value != nil {
			return r.Value
		}
	}
	for _, k := range []string{"2XX", "2xx"} {
		if r := m[k]; r != nil && r.Value != nil {
			return r.Value
		}
	}
	return nil
}

// isObject reports whether every value the schema admits is a JSON object
// (null excluded), looking through compositions.
func isObject(ref *openapi3.SchemaRef, depth int) bool {
	if ref == nil || ref.Value == nil || depth > 8 {
		return false
	}
	s := ref.Value
	if s.Nullable {
		return false
	}
	if s.Type != nil && len(*s.Type) > 0 {
		return s.Type.Is("object")
	}
	branches := s.AllOf
	if len(branches) == 0 {
		branches = append(append(openapi3.SchemaRefs{}, s.AnyOf...), s.OneOf...)
	}
	if len(branches) == 0 {
		return len(s.Properties) > 0
	}
	if len(s.AllOf) > 0 {
		// allOf: one object branch makes the whole an object.
		for _, br := range branches {
			if isObject(br, depth+1) {
				return true
			}
		}
		return false
	}
	for _, br := range branches {
		if !isObject(br, depth+1) {
			return false
		}
	}
	return true
}
