package schema

import "strings"

// A definition that the strict conversion made a scalar (an object deep
// in a body, summarised as JSON text) is no longer worth a $ref: the
// reference, the anyOf that makes it nullable and the $defs entry cost
// more tokens than the text itself where it is used once or is short.
// inlineScalarDefs writes such definitions in place, their plans too.

// inlineMax is the size in bytes under which a scalar definition is
// written in place however often it is used.
const inlineMax = 80

// inlineScalarDefs inlines the scalar definitions of st.defs into root
// and the other definitions, and their plans into plan; it returns the
// plan (nil when nothing is left of it).
func (st *strictConv) inlineScalarDefs(root map[string]any, plan *StrictPlan) *StrictPlan {
	uses := map[string]int{}
	var count func(v any)
	count = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				uses[strings.TrimPrefix(ref, "#/$defs/")]++
			}
			for k, sub := range x {
				if k != "$defs" {
					count(sub)
				}
			}
		case []any:
			for _, sub := range x {
				count(sub)
			}
		}
	}
	count(root)
	for _, d := range st.defs {
		count(d)
	}
	inline := map[string]map[string]any{}
	for name, d := range st.defs {
		dm, _ := d.(map[string]any)
		t, _ := dm["type"].(string)
		if dm == nil || t == "" || t == "object" || t == "array" || t == "null" {
			continue
		}
		if uses[name] <= 1 || len(Marshal(dm)) <= inlineMax {
			inline[name] = dm
		}
	}
	if len(inline) == 0 {
		return plan
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				if d := inline[strings.TrimPrefix(ref, "#/$defs/")]; d != nil {
					out := make(map[string]any, len(d))
					for k, dv := range d {
						out[k] = dv
					}
					if desc, _ := x["description"].(string); desc != "" {
						out["description"] = joinDesc(desc, stringOf(d["description"]))
					}
					return out
				}
			}
			for k, sub := range x {
				if k != "$defs" {
					x[k] = walk(sub)
				}
			}
			if branches, ok := x["anyOf"].([]any); ok {
				if merged := mergeScalars(branches); len(merged) == 1 {
					out := merged[0].(map[string]any)
					if desc, _ := x["description"].(string); desc != "" {
						out["description"] = joinDesc(desc, stringOf(out["description"]))
					}
					return out
				}
			}
			return x
		case []any:
			for i, sub := range x {
				x[i] = walk(sub)
			}
			return x
		}
		return v
	}
	walk(root)
	for name := range inline {
		delete(st.defs, name)
	}
	for name, d := range st.defs {
		st.defs[name] = walk(d)
	}
	var fix func(p *StrictPlan) *StrictPlan
	fix = func(p *StrictPlan) *StrictPlan {
		if p == nil {
			return nil
		}
		if p.Ref != "" {
			if _, ok := inline[p.Ref]; ok {
				return fix(st.plans[p.Ref])
			}
			return p
		}
		for name, sub := range p.Props {
			if f := fix(sub); f.empty() {
				delete(p.Props, name)
			} else {
				p.Props[name] = f
			}
		}
		if len(p.Props) == 0 {
			p.Props = nil
		}
		p.Items = nonEmpty(fix(p.Items))
		p.Pairs = fixPairs(p.Pairs, fix)
		var any []*StrictPlan
		for _, b := range p.Any {
			if f := fix(b); !f.empty() {
				any = append(any, f)
			}
		}
		p.Any = any
		if len(p.Any) == 1 && p.Ref == "" && len(p.Optional) == 0 && len(p.Props) == 0 && p.Items == nil && p.Pairs == nil && !p.JSON {
			return p.Any[0]
		}
		return p
	}
	plan = fix(plan)
	for name := range inline {
		delete(st.plans, name)
	}
	for name, p := range st.plans {
		if f := fix(p); f.empty() {
			delete(st.plans, name)
		} else {
			st.plans[name] = f
		}
	}
	return nonEmpty(plan)
}

// fixPairs keeps a pairs plan (its presence says "pairs", even empty).
func fixPairs(p *StrictPlan, fix func(*StrictPlan) *StrictPlan) *StrictPlan {
	if p == nil {
		return nil
	}
	if f := fix(p); f != nil {
		return f
	}
	return &StrictPlan{}
}

func nonEmpty(p *StrictPlan) *StrictPlan {
	if p.empty() {
		return nil
	}
	return p
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}
