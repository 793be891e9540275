package mcpkit

import (
	"bytes"
	"encoding/json"
	"sync"
)

// A tool lists its input schema in the subset of JSON Schema that model
// APIs accept for strict function calling (Tool.StrictSchema): every
// property required, the optional ones nullable; maps as lists of
// {key, value} pairs; free-form values as JSON text. A call made against
// that form is mapped back, before validation against the full schema
// (Tool.InputSchema) and before anything else reads it, by the tool's
// StrictPlan, which the generator writes beside the schema:
//
//   - a null for an optional property means the property is left out;
//   - a list of {key, value} pairs where the full schema has an object
//     becomes that object;
//   - JSON text where the full schema has an object, an array or a value
//     of any type is parsed (text that is not JSON, or not an object or
//     array, stays as it is, and validation says what is wrong).
//
// A call in the full form passes through unchanged, but for nulls of
// optional properties: a client that reads the full schema sends the
// same arguments as before.

// strictPlan is the generator's plan (schema.StrictPlan), decoded.
type strictPlan struct {
	Ref      string                 `json:"r"`
	Optional []string               `json:"o"`
	Props    map[string]*strictPlan `json:"p"`
	Items    *strictPlan            `json:"i"`
	Pairs    *strictPlan            `json:"m"`
	JSON     bool                   `json:"j"`
	Any      []*strictPlan          `json:"a"`
	Defs     map[string]*strictPlan `json:"d"`
}

// strictPlans holds each tool's decoded plan, decoded on its first call.
var strictPlans sync.Map // *Tool → *strictPlan (nil when unusable)

func (t *Tool) strictPlan() *strictPlan {
	if t.StrictPlan == "" {
		return nil
	}
	if p, ok := strictPlans.Load(t); ok {
		return p.(*strictPlan)
	}
	var p *strictPlan
	if err := json.Unmarshal([]byte(t.StrictPlan), &p); err != nil {
		p = nil
	}
	strictPlans.Store(t, p)
	return p
}

// fromStrict maps arguments given in the strict form back to the full
// schema's shape, in place.
func (t *Tool) fromStrict(args map[string]any) {
	p := t.strictPlan()
	if p == nil || args == nil {
		return
	}
	p.apply(args, p.Defs, 0)
}

// maxPlanDepth bounds how deep a recursive plan is followed: the
// arguments' own nesting is bounded before (MaxArgumentDepth).
const maxPlanDepth = 128

func (p *strictPlan) apply(v any, defs map[string]*strictPlan, depth int) any {
	if p == nil || depth > maxPlanDepth {
		return v
	}
	if p.Ref != "" {
		return defs[p.Ref].apply(v, defs, depth+1)
	}
	if p.JSON {
		if s, ok := v.(string); ok {
			dec := json.NewDecoder(bytes.NewReader([]byte(s)))
			dec.UseNumber()
			var parsed any
			if dec.Decode(&parsed) == nil && !dec.More() {
				switch parsed.(type) {
				case map[string]any, []any:
					return parsed
				}
			}
		}
		return v
	}
	if p.Pairs != nil {
		if l, ok := v.([]any); ok {
			obj := make(map[string]any, len(l))
			for _, e := range l {
				pair, _ := e.(map[string]any)
				k, ok := pair["key"].(string)
				if !ok {
					return v // not pairs: validation says what is wrong
				}
				obj[k] = p.Pairs.apply(pair["value"], defs, depth+1)
			}
			return obj
		}
		return v
	}
	for _, b := range p.Any {
		v = b.apply(v, defs, depth+1)
	}
	switch x := v.(type) {
	case map[string]any:
		for _, name := range p.Optional {
			if val, given := x[name]; given && val == nil {
				delete(x, name)
			}
		}
		for name, sub := range p.Props {
			if val, given := x[name]; given {
				x[name] = sub.apply(val, defs, depth+1)
			}
		}
	case []any:
		if p.Items != nil {
			for i := range x {
				x[i] = p.Items.apply(x[i], defs, depth+1)
			}
		}
	}
	return v
}
