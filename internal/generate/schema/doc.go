package schema

import (
	"bytes"
	"encoding/json"
	"strings"

	sjson "github.com/segmentio/encoding/json"
)

// The stages after conversion read what a generated schema says: curate
// narrows output schemas and checks paths against them, the template
// checker the fields a template reads. They read it here.

// Decode decodes a generated schema, numbers as json.Number (so that they
// are written back as they were).
func Decode(raw json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return nil, err
	}
	return root, nil
}

// Unmarshal decodes a generated schema into v as encoding/json would. The
// text is the generator's own compact JSON, read back: segmentio reads it
// several times faster than encoding/json, which checks and copies every
// nested level again, and leaves its strings in place (they share raw's
// memory).
func Unmarshal(raw []byte, v any) error {
	_, err := sjson.Parse(raw, v, sjson.ZeroCopy)
	return err
}

// OutputDoc is a decoded outputSchema.
type OutputDoc struct {
	Root map[string]any
	// Wrap is the property a non-object response is put under in
	// structuredContent ("" when the response is an object).
	Wrap string
}

// Body is the schema of the response body (unwrapped).
func (o *OutputDoc) Body() any {
	if o.Wrap == "" {
		cp := map[string]any{}
		for k, v := range o.Root {
			if k != "$defs" {
				cp[k] = v
			}
		}
		return cp
	}
	props, _ := o.Root["properties"].(map[string]any)
	return props[o.Wrap]
}

// Def is the schema s refers to in the document's $defs, or s itself.
func (o *OutputDoc) Def(s any) any {
	m, _ := s.(map[string]any)
	if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#/$defs/") {
		defs, _ := o.Root["$defs"].(map[string]any)
		return defs[strings.TrimPrefix(ref, "#/$defs/")]
	}
	return s
}

// Resolve follows $ref and merges allOf branches' properties (and, as
// alternatives, anyOf's and oneOf's), returning the properties, the
// required names, the items schema and whether the object's fields are
// known.
func (o *OutputDoc) Resolve(s any) (props map[string]any, required []any, items any, known bool) {
	return o.resolve(s, 0)
}

func (o *OutputDoc) resolve(s any, depth int) (props map[string]any, required []any, items any, known bool) {
	m, ok := s.(map[string]any)
	if !ok || depth > 16 {
		return nil, nil, nil, false
	}
	if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#/$defs/") {
		p, r, it, k := o.resolve(o.Def(m), depth+1)
		props, required, items, known = merge(props, p), append(required, r...), firstNonNil(items, it), k
	}
	if p, ok := m["properties"].(map[string]any); ok {
		props = merge(props, p)
		known = true
	}
	if r, ok := m["required"].([]any); ok {
		required = append(required, r...)
	}
	if it, ok := m["items"]; ok {
		items = it
		known = true
	}
	for _, br := range anyList(m["allOf"]) {
		p, r, it, k := o.resolve(br, depth+1)
		props, required, items = merge(props, p), append(required, r...), firstNonNil(items, it)
		known = known || k
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		for _, br := range anyList(m[key]) {
			p, _, it, k := o.resolve(br, depth+1)
			props, items = merge(props, p), firstNonNil(items, it)
			known = known || k
		}
	}
	return props, required, items, known
}

func merge(a, b map[string]any) map[string]any {
	if len(b) == 0 {
		return a
	}
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func firstNonNil(a, b any) any {
	if a != nil {
		return a
	}
	return b
}

func anyList(v any) []any {
	l, _ := v.([]any)
	return l
}
