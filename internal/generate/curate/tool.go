package curate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/generate/tmplcheck"
	"github.com/tailormcp/tailor/internal/jsonv"
)

// tool builds the curated tool for one overlay entry from the raw tool of
// its operation.
func (c *curator) tool(raw *ir.Tool, ot *overlay.Tool) *ir.Tool {
	t := copyTool(raw)
	if !validName(ot.Name) {
		// The parser reported it; keep going to find other problems.
		return t
	}
	t.Name = ot.Name
	if ot.Title != nil {
		t.Title = *ot.Title
	}
	if ot.Description != nil {
		t.Description = *ot.Description
	}
	a := ot.Annotations
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	set(&t.Annotations.ReadOnly, a.ReadOnly)
	set(&t.Annotations.Destructive, a.Destructive)
	set(&t.Annotations.Idempotent, a.Idempotent)
	set(&t.Annotations.OpenWorld, a.OpenWorld)

	in, err := decodeSchema(t.InputSchema)
	if err != nil {
		c.errorf(ot.Pos, "tool `%s`: cannot read the input schema of %s: %v", ot.Name, describeOp(raw), err)
		return t
	}
	c.params(t, ot, in)
	t.InputSchema = encodeSchema(in.root)
	if ot.Quote != nil {
		c.quote(t, ot)
	}
	reads := c.firstReads(t, ot)
	c.shape(t, ot)
	c.errorRules(t, ot)
	if t.Approval = approvalOf(ot); t.Approval != nil && ot.Approval.Message.S != "" {
		scope := c.stepScope(t, nil)
		if reads != nil {
			scope["steps"] = tmplcheck.Map("a read this tool runs before asking (reads:)", reads)
		}
		c.checkTemplate(&ot.Approval.Message, fmt.Sprintf("tool `%s` approval message", ot.Name), scope)
	}
	return t
}

// copyTool copies what curation changes, so the raw tool stays intact for
// other tools on the same operation (and for `tailor diff`).
func copyTool(raw *ir.Tool) *ir.Tool {
	t := *raw
	call := *raw.Call
	call.Params = make([]*ir.Param, len(raw.Call.Params))
	for i, p := range raw.Call.Params {
		cp := *p
		call.Params[i] = &cp
	}
	if raw.Call.Body != nil {
		b := *raw.Call.Body
		b.Fields = make([]*ir.BodyField, len(raw.Call.Body.Fields))
		for i, f := range raw.Call.Body.Fields {
			cf := *f
			b.Fields[i] = &cf
		}
		call.Body = &b
	}
	t.Call = &call
	return &t
}

// inputSchema is a tool's inputSchema being edited.
type inputSchema struct {
	root     map[string]any
	props    map[string]any
	required map[string]bool
}

func decodeSchema(raw json.RawMessage) (*inputSchema, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return nil, err
	}
	s := &inputSchema{root: root, required: map[string]bool{}}
	s.props, _ = root["properties"].(map[string]any)
	if s.props == nil {
		s.props = map[string]any{}
		root["properties"] = s.props
	}
	if req, ok := root["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.required[name] = true
			}
		}
	}
	return s, nil
}

func encodeSchema(s map[string]any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(fmt.Sprintf("tailor: curated schema is not JSON: %v", err))
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n"))
}

// setRequired writes the required list back in sorted order.
func (s *inputSchema) setRequired() {
	var req []string
	for n, ok := range s.required {
		if ok {
			if _, exists := s.props[n]; exists {
				req = append(req, n)
			}
		}
	}
	sort.Strings(req)
	if len(req) == 0 {
		delete(s.root, "required")
		return
	}
	s.root["required"] = req
}

// argRef is a model argument of the raw tool: a parameter or a body field.
type argRef struct {
	param *ir.Param
	field *ir.BodyField
}

func (r argRef) setArg(name string) {
	if r.param != nil {
		r.param.Arg = name
	} else {
		r.field.Arg = name
	}
}

func (r argRef) setSource(s ir.ValueSource) {
	if r.param != nil {
		r.param.Source = s
	} else {
		r.field.Source = s
	}
}

// argRefs maps each model argument of a call to its parameter or body
// field, and lists the names in order. The whole body, when it is one
// argument, maps to an argRef with neither set.
func argRefs(call *ir.Call) (map[string]argRef, []string) {
	args := map[string]argRef{}
	for _, p := range call.Params {
		args[p.Arg] = argRef{param: p}
	}
	if b := call.Body; b != nil {
		for _, f := range b.Fields {
			args[f.Arg] = argRef{field: f}
		}
		if b.Arg != "" {
			args[b.Arg] = argRef{}
		}
	}
	names := make([]string, 0, len(args))
	for n := range args {
		names = append(names, n)
	}
	sort.Strings(names)
	return args, names
}

// params applies the overlay's parameter entries.
func (c *curator) params(t *ir.Tool, ot *overlay.Tool, in *inputSchema) {
	args, names := argRefs(t.Call)

	renamed := map[string]string{} // raw arg → new name
	for _, p := range ot.Params {
		ref, ok := args[p.Name]
		if !ok {
			hint := ""
			if why := settledBySpec(t.Call, p.Name); why != "" {
				hint = "; the spec settles it (" + why + "), so it is not an argument"
			} else if best := diag.DidYouMean(p.Name, names); best != "" {
				hint = best
			} else if len(names) > 0 {
				hint = "; its arguments are: " + diag.JoinNames(names)
			}
			c.errorf(p.Pos, "tool `%s`: %s has no parameter `%s`%s", ot.Name, describeOp(t), p.Name, hint)
			continue
		}
		prop := in.props[p.Name]
		where := fmt.Sprintf("tool `%s`, parameter `%s`", ot.Name, p.Name)
		switch {
		case p.Value != nil:
			if ref.param == nil && ref.field == nil {
				c.errorf(p.Pos, "%s: the whole request body cannot be fixed; fix its fields instead", where)
				continue
			}
			if err := checkValue(in.root, prop, p.Value.V); err != nil {
				c.errorf(p.Value.Pos, "%s: value does not fit the parameter's schema: %v", where, err)
				continue
			}
			ref.setSource(ir.ValueSource{Fixed: encodeValue(p.Value.V)})
			ref.setArg("")
			c.remove(in, p.Name)
			continue
		case p.From != "":
			if ref.param == nil && ref.field == nil {
				c.errorf(p.Pos, "%s: the whole request body cannot come from context", where)
				continue
			}
			if !c.context[p.From] {
				known := make([]string, 0, len(c.context))
				for n := range c.context {
					known = append(known, n)
				}
				sort.Strings(known)
				hint := "; define it under server.context"
				if best := diag.Nearest(p.From, known); best != "" {
					hint = fmt.Sprintf("; did you mean `context.%s`?", best)
				} else if len(known) > 0 {
					hint = fmt.Sprintf("; server.context defines %s (or define `%s` there)", diag.JoinNames(known), p.From)
				}
				c.errorf(p.FromPos, "%s: unknown context value `%s`%s", where, p.From, hint)
				continue
			}
			ref.setSource(ir.ValueSource{Context: p.From})
			ref.setArg("")
			c.remove(in, p.Name)
			continue
		case p.Hidden:
			if in.required[p.Name] {
				c.errorf(p.Pos, "%s is required by the API, so it cannot just be hidden: give it a `value` or take it `from` context", where)
				continue
			}
			ref.setArg("")
			if ref.param == nil && ref.field == nil {
				t.Call.Body.Arg = ""
			}
			c.remove(in, p.Name)
			continue
		}

		m := editable(prop)
		if p.Description != nil {
			m["description"] = *p.Description
		}
		if p.Examples != nil {
			m["examples"] = p.Examples
		}
		if p.Enum != nil {
			if old, ok := m["enum"].([]any); ok {
				for _, v := range p.Enum {
					if !containsJSON(old, v) {
						c.errorf(p.Pos, "%s: enum value %s is not one of the spec's values (%s); an overlay can narrow an enum, not widen it", where, jsonv.Text(v), jsonList(old))
					}
				}
			}
			m["enum"] = p.Enum
		}
		c.tighten(m, p, where)
		in.props[p.Name] = m
		if p.Default != nil {
			if err := checkValue(in.root, m, p.Default.V); err != nil {
				c.errorf(p.Default.Pos, "%s: default does not fit the parameter's schema: %v", where, err)
			} else {
				m["default"] = p.Default.V
				if t.Defaults == nil {
					t.Defaults = map[string]json.RawMessage{}
				}
				t.Defaults[p.Name] = encodeValue(p.Default.V)
			}
		}
		if p.Required != nil {
			if !*p.Required && in.required[p.Name] && p.Default == nil {
				c.errorf(p.Pos, "%s is required by the API; it can only be made optional with a `default`", where)
			} else {
				in.required[p.Name] = *p.Required
			}
		}
		if p.Rename != nil && *p.Rename != p.Name {
			renamed[p.Name] = *p.Rename
		}
	}

	// Renames last, so every entry above could refer to raw names.
	for old, nu := range renamed {
		if _, taken := in.props[nu]; taken {
			c.errorf(posOf(ot, old), "tool `%s`: cannot rename `%s` to `%s`: another argument already has that name", ot.Name, old, nu)
			continue
		}
		in.props[nu] = in.props[old]
		delete(in.props, old)
		in.required[nu] = in.required[old]
		delete(in.required, old)
		if d, ok := t.Defaults[old]; ok {
			t.Defaults[nu] = d
			delete(t.Defaults, old)
		}
		ref := args[old]
		if ref.param == nil && ref.field == nil {
			t.Call.Body.Arg = nu
		} else {
			ref.setArg(nu)
		}
	}
	in.setRequired()
}

func posOf(ot *overlay.Tool, param string) diag.Pos {
	for _, p := range ot.Params {
		if p.Name == param {
			return p.Pos
		}
	}
	return ot.Pos
}

func (c *curator) remove(in *inputSchema, arg string) {
	delete(in.props, arg)
	delete(in.required, arg)
}

// tighten applies minimum, maximum, pattern and length limits; each must be
// at least as strict as what the spec says, since the API enforces that.
func (c *curator) tighten(m map[string]any, p *overlay.Param, where string) {
	if p.Minimum != nil {
		if old, ok := jsonv.Float(m["minimum"]); ok && *p.Minimum < old {
			c.errorf(p.Pos, "%s: minimum %v is looser than the spec's %v", where, *p.Minimum, old)
		}
		m["minimum"] = *p.Minimum
	}
	if p.Maximum != nil {
		if old, ok := jsonv.Float(m["maximum"]); ok && *p.Maximum > old {
			c.errorf(p.Pos, "%s: maximum %v is looser than the spec's %v", where, *p.Maximum, old)
		}
		m["maximum"] = *p.Maximum
	}
	if p.Minimum != nil && p.Maximum != nil && *p.Minimum > *p.Maximum {
		c.errorf(p.Pos, "%s: minimum %v is above maximum %v", where, *p.Minimum, *p.Maximum)
	}
	if p.MinLength != nil {
		if old, ok := jsonv.Float(m["minLength"]); ok && float64(*p.MinLength) < old {
			c.errorf(p.Pos, "%s: min_length %d is looser than the spec's %v", where, *p.MinLength, old)
		}
		m["minLength"] = *p.MinLength
	}
	if p.MaxLength != nil {
		if old, ok := jsonv.Float(m["maxLength"]); ok && float64(*p.MaxLength) > old {
			c.errorf(p.Pos, "%s: max_length %d is looser than the spec's %v", where, *p.MaxLength, old)
		}
		m["maxLength"] = *p.MaxLength
	}
	if p.Pattern != nil {
		if _, err := regexp.Compile(*p.Pattern); err != nil {
			c.errorf(p.Pos, "%s: pattern %q is not a regular expression Go can compile: %v", where, *p.Pattern, err)
		} else if old, ok := m["pattern"].(string); ok && old != *p.Pattern {
			// Both must hold: keep the spec's and add the overlay's.
			m["allOf"] = append(anyList(m["allOf"]), map[string]any{"pattern": *p.Pattern})
		} else {
			m["pattern"] = *p.Pattern
		}
	}
}

// editable returns a copy of a property schema that keywords can be added
// to; a bare boolean schema becomes an object.
func editable(prop any) map[string]any {
	m, ok := prop.(map[string]any)
	if !ok {
		return map[string]any{}
	}
	cp := make(map[string]any, len(m)+2)
	for k, v := range m {
		cp[k] = v
	}
	return cp
}

func anyList(v any) []any {
	l, _ := v.([]any)
	return l
}

func encodeValue(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func jsonList(l []any) string {
	var parts []string
	for _, v := range l {
		parts = append(parts, jsonv.Text(v))
	}
	return diag.JoinNames(parts)
}

func containsJSON(l []any, v any) bool {
	want := jsonv.Text(normalize(v))
	for _, e := range l {
		if jsonv.Text(normalize(e)) == want {
			return true
		}
	}
	return false
}

// normalize makes numbers compare equal whatever their Go type.
func normalize(v any) any {
	if f, ok := jsonv.Float(v); ok {
		return f
	}
	return v
}

// settledBySpec says why a parameter or body field of that wire name is no
// argument of the raw tool because the spec settles its value, or "".
func settledBySpec(c *ir.Call, name string) string {
	why := func(src ir.ValueSource) string {
		switch {
		case src.Credential != "":
			return "it carries the secret of security scheme `" + src.Credential + "`"
		case src.Fixed != nil:
			return "it allows only " + string(src.Fixed)
		}
		return ""
	}
	for _, p := range c.Params {
		if p.Name == name && p.Arg == "" {
			return why(p.Source)
		}
	}
	if c.Body != nil {
		for _, f := range c.Body.Fields {
			if f.Name == name && f.Arg == "" {
				return why(f.Source)
			}
		}
	}
	return ""
}
