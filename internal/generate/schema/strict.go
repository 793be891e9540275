package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Strict mode. The clients people use hand a tool's inputSchema to their
// model's API, and the APIs accept only a subset of JSON Schema for
// constrained ("strict") function calling: OpenAI's structured outputs,
// which the OpenAI Agents SDK turns on, and Anthropic's and Gemini's, which
// accept the same subset. A schema outside it makes the client fall back
// to unconstrained calls, or the API refuse the whole request. So the
// schema a tool lists is, by default, its full schema rewritten into that
// subset:
//
//   - every object closed: additionalProperties false, every property
//     required, the optional ones admitting null (null means "left out");
//   - a map (additionalProperties with a schema) becomes an array of
//     {key, value} pairs; a free-form object or a value of any type, JSON
//     text in a string;
//   - allOf merged into one schema, oneOf written as anyOf, keywords beside
//     an anyOf or a $ref moved into it;
//   - every node typed, keywords of another type dropped (uniqueItems on a
//     string), and the keywords and formats the subset lacks (minLength,
//     uniqueItems, format uri, default …) said in the description;
//   - nesting bounded: deeper values become JSON text.
//
// Alongside the listed schema goes a plan (StrictPlan) that the runtime
// (mcpkit/strict.go) follows to turn a call in that form back into the
// arguments the full schema describes: nulls of optional properties
// removed, pairs back into objects, JSON text parsed. The full schema still
// validates the arguments and builds the request.

// strictFormats are the string formats the strict subset accepts.
var strictFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// StrictMaxDepth is how many objects and arrays deep a strict schema
// spells out inline; a value deeper is JSON text. OpenAI allows 10 levels.
const StrictMaxDepth = 8

// ToolBudget is the size in bytes a tool's listed input schema should keep
// within. A schema that is larger is listed at the first of the levels
// below that fits (the last when none does): every argument stays, typed;
// what goes first is the text and the structure deep inside request
// bodies, which make most of a large API's tokens (stripe's form bodies)
// and little of what a model needs to choose and call a tool. The full
// schema still validates every call, and its errors say what is wrong.
const ToolBudget = 800

// LargeSetBudget is ToolBudget for a tool set of more than LargeSet tools:
// there the list is long enough that each tool's share of it matters more
// than its optional arguments' descriptions.
const (
	LargeSetBudget = 600
	LargeSet       = 100
)

// A level says how much a strict schema spells out. Depths count the root
// 0, an argument 1, its fields 2.
type level struct {
	// argText and fieldText bound descriptions, in bytes (TrimText): an
	// argument's, and those deeper (0: none).
	argText, fieldText int
	// summary is the depth from which an object's fields are not spelled
	// out: it is JSON text, and its description names its fields.
	summary int
	// optionalText: optional arguments keep their descriptions.
	optionalText bool
	// lengths: string length bounds are said in descriptions.
	lengths bool
	// maxEnum, when positive, is the most values an enum lists; a longer
	// one is said in the description by a few of its values (the full
	// schema's error lists them all when the model picks another).
	maxEnum int
}

var levels = []level{
	{argText: 400, fieldText: 160, summary: 3, optionalText: true, lengths: true},
	{argText: 160, fieldText: 0, summary: 3, optionalText: true},
	{argText: 100, fieldText: 0, summary: 2, optionalText: true},
	{argText: 80, fieldText: 0, summary: 2, optionalText: false},
	{argText: 80, fieldText: 0, summary: 1, optionalText: false, maxEnum: 24},
}

// StrictPlan says how to map a call made against a strict schema back to
// the full schema's shape. A node is one of a JSON value's places; only
// places where something happens are kept.
type StrictPlan struct {
	// Ref is the plan of a $defs entry (Defs[Ref]).
	Ref string `json:"r,omitempty"`
	// Optional are properties made required and nullable: null means absent.
	Optional []string `json:"o,omitempty"`
	// Props are the plans of properties.
	Props map[string]*StrictPlan `json:"p,omitempty"`
	// Items is the plan of array items.
	Items *StrictPlan `json:"i,omitempty"`
	// Pairs: the value is an array of {key, value} standing for an
	// object; Pairs is the plan of each value.
	Pairs *StrictPlan `json:"m,omitempty"`
	// JSON: the value is JSON text of an object or array.
	JSON bool `json:"j,omitempty"`
	// Any are the plans of anyOf branches, applied in turn.
	Any []*StrictPlan `json:"a,omitempty"`
	// Defs are the plans of $defs entries (at the root only).
	Defs map[string]*StrictPlan `json:"d,omitempty"`
}

func (p *StrictPlan) empty() bool {
	return p == nil || (p.Ref == "" && len(p.Optional) == 0 && len(p.Props) == 0 && p.Items == nil && p.Pairs == nil && !p.JSON && len(p.Any) == 0 && len(p.Defs) == 0)
}

// StrictForm is a tool's input schema in the strict subset.
type StrictForm struct {
	// Schema is the schema to list (compact JSON, sorted keys).
	Schema []byte
	// Plan maps a call back (JSON; empty when the call needs no change).
	Plan []byte
	// Lost says, one sentence each, what the model can no longer send.
	Lost []string
}

// ToStrict rewrites a full input schema (a generated tool's, whose root is
// an object) into the strict subset.
func ToStrict(full []byte) (*StrictForm, error) { return ToStrictWith(full, StrictOptions{}) }

// StrictOptions are what a tool set changes in its tools' strict forms.
type StrictOptions struct {
	// Said maps an argument's name to a description the tool set says
	// once for all its tools (in the server's instructions): an argument
	// of the root whose description is exactly it is listed with its
	// short form (SaidShort).
	Said map[string]string
	// Budget replaces ToolBudget when positive.
	Budget int
}

// ToStrictWith is ToStrict with a tool set's options.
func ToStrictWith(full []byte, opts StrictOptions) (*StrictForm, error) {
	budget := ToolBudget
	if opts.Budget > 0 {
		budget = opts.Budget
	}
	var parts map[string]json.RawMessage
	if err := Unmarshal(full, &parts); err != nil {
		return nil, err
	}
	// The definitions are decoded when a level reaches them: the leaner
	// levels reach few of a large schema's.
	defs := &lazyDefs{decoded: map[string]any{}}
	if raw, ok := parts["$defs"]; ok {
		if err := Unmarshal(raw, &defs.raw); err != nil {
			return nil, err
		}
		delete(parts, "$defs")
	}
	root := make(map[string]any, len(parts))
	for k, raw := range parts {
		v, err := decodeValue(raw)
		if err != nil {
			return nil, err
		}
		root[k] = v
	}
	var sf *StrictForm
	var err error
	// Levels that spell out all of a schema many times the budget would
	// not fit: they are not tried (kubernetes' bodies, tens of kilobytes,
	// would be converted whole twice for nothing).
	first := 0
	switch {
	case len(full) > 16*budget:
		first = 2
	case len(full) > 4*budget:
		first = 1
	}
	for _, lv := range levels[first:] {
		if sf, err = toStrict(root, defs, opts.Said, lv); err != nil || len(sf.Schema) <= budget {
			break
		}
	}
	return sf, err
}

// lazyDefs are a schema's $defs, each decoded on first use.
type lazyDefs struct {
	raw     map[string]json.RawMessage
	decoded map[string]any
}

func (d *lazyDefs) get(name string) any {
	if v, ok := d.decoded[name]; ok {
		return v
	}
	raw, ok := d.raw[name]
	if !ok {
		return nil
	}
	v, err := decodeValue(raw)
	if err != nil {
		v = nil
	}
	d.decoded[name] = v
	return v
}

// decodeValue decodes a generated schema's value with numbers as
// json.Number, as Decode does. encoding/json, not segmentio: decoding into
// any, segmentio's cost grows with the square of the nesting (10,000
// levels: 1.6 s against 0.4 ms).
func decodeValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func toStrict(root map[string]any, defs *lazyDefs, said map[string]string, lv level) (*StrictForm, error) {
	st := &strictConv{full: defs, lv: lv, said: said, defs: map[string]any{}, plans: map[string]*StrictPlan{}, lostSeen: map[string]bool{}}
	out, plan := st.node(root, "", 0, true)
	m, _ := out.(map[string]any)
	if m == nil || m["type"] != "object" {
		// A root that is not an object (a curated schema gone wrong):
		// every value as JSON text would not help; keep an empty object.
		m = closedObject(map[string]any{})
	}
	// Only the definitions reached from the root are kept.
	for len(st.queue) > 0 {
		name := st.queue[0]
		st.queue = st.queue[1:]
		d, p := st.node(st.full.get(name), "#/$defs/"+name, 1, false)
		st.defs[name] = d
		if !p.empty() {
			st.plans[name] = p
		}
	}
	plan = st.inlineScalarDefs(m, plan)
	if len(st.defs) > 0 {
		m["$defs"] = st.defs
	}
	if len(st.plans) > 0 {
		if plan == nil {
			plan = &StrictPlan{}
		}
		plan.Defs = st.plans
	}
	sf := &StrictForm{Schema: Marshal(m), Lost: st.lost}
	if !plan.empty() {
		b, err := json.Marshal(plan)
		if err != nil {
			return nil, err
		}
		sf.Plan = b
	}
	return sf, nil
}

type strictConv struct {
	lv    level
	said  map[string]string
	full  *lazyDefs
	defs  map[string]any
	plans map[string]*StrictPlan
	// queue lists referenced definitions not converted yet.
	queue    []string
	queued   map[string]bool
	lost     []string
	lostSeen map[string]bool
}

func (st *strictConv) loses(where, what string) {
	msg := what
	if where != "" {
		msg = where + ": " + what
	}
	if !st.lostSeen[msg] {
		st.lostSeen[msg] = true
		st.lost = append(st.lost, msg)
	}
}

func (st *strictConv) ref(name string) {
	if st.queued == nil {
		st.queued = map[string]bool{}
	}
	if !st.queued[name] {
		st.queued[name] = true
		st.queue = append(st.queue, name)
	}
}

// resolve follows a local $ref to the full definition (nil when absent).
func (st *strictConv) resolve(ref string) (string, map[string]any) {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return "", nil
	}
	m, _ := st.full.get(name).(map[string]any)
	return name, m
}

// jsonText is the strict form of a value of any type, or of a free-form
// object: JSON in a string.
func jsonText(desc, what string) (any, *StrictPlan) {
	return map[string]any{"type": "string", "description": joinDesc(desc, what)}, &StrictPlan{JSON: true}
}

// node rewrites one schema; where names it in warnings; depth counts the
// objects and arrays around it.
func (st *strictConv) node(s any, where string, depth int, root bool) (any, *StrictPlan) {
	m, ok := s.(map[string]any)
	if !ok {
		if b, isBool := s.(bool); isBool && !b {
			return map[string]any{"type": "null"}, nil
		}
		return jsonText("", "Any JSON value, written as JSON text.")
	}
	m = st.flatten(m, 0)
	desc := st.notes(m, depth)
	if ref, ok := m["$ref"].(string); ok {
		if name, target := st.resolve(ref); target != nil {
			st.ref(name)
			out := map[string]any{"$ref": ref}
			if desc != "" {
				out["description"] = desc
			}
			return out, &StrictPlan{Ref: name}
		}
		return jsonText(desc, "Any JSON value, written as JSON text.")
	}
	if branches, ok := m["anyOf"].([]any); ok {
		var outs []any
		plan := &StrictPlan{}
		seen := map[string]bool{}
		for i, b := range branches {
			o, p := st.node(b, fmt.Sprintf("%s/anyOf/%d", where, i), depth, false)
			key := string(Marshal(o))
			if seen[key] {
				continue
			}
			seen[key] = true
			outs = append(outs, o)
			if !p.empty() {
				plan.Any = append(plan.Any, p)
			}
		}
		if len(outs) > 1 {
			outs = mergeScalars(outs)
		}
		if len(outs) == 1 {
			out := outs[0].(map[string]any)
			if desc != "" {
				out = withDesc(out, desc)
			}
			switch len(plan.Any) {
			case 0:
				return out, nil
			case 1:
				return out, plan.Any[0]
			}
			return out, plan
		}
		out := map[string]any{"anyOf": outs}
		if desc != "" {
			out["description"] = desc
		}
		if plan.empty() {
			plan = nil
		}
		return out, plan
	}
	types := typesOfNode(m)
	nullable := slices.Contains(types, "null")
	types = slices.DeleteFunc(types, func(t string) bool { return t == "null" })
	if len(types) == 0 {
		if nullable {
			if desc == "" {
				return map[string]any{"type": "null"}, nil
			}
			return withDesc(map[string]any{"type": "null"}, desc), nil
		}
		return jsonText(desc, "Any JSON value, written as JSON text.")
	}
	if slices.Contains(types, "object") && len(types) > 1 {
		// An object or something else: the object's fields cannot be
		// listed beside another type; the whole value is JSON text.
		return jsonText(desc, "Written as JSON text.")
	}
	if slices.Contains(types, "array") && len(types) > 1 {
		return jsonText(desc, "Written as JSON text.")
	}
	var out map[string]any
	var plan *StrictPlan
	switch types[0] {
	case "object":
		out, plan = st.object(m, where, depth, root, &desc)
	case "array":
		out, plan = st.array(m, where, depth, &desc)
	default:
		out = st.scalar(m, types, &desc)
	}
	if out == nil {
		return jsonText(desc, "Written as JSON text.")
	}
	if e, ok := m["enum"].([]any); ok {
		if st.lv.maxEnum > 0 && len(e) > st.lv.maxEnum && out["type"] == "string" {
			some := make([]string, 0, 4)
			for _, v := range e[:4] {
				some = append(some, string(Marshal(v)))
			}
			desc = joinDesc(desc, fmt.Sprintf("One of %d values such as %s.", len(e), strings.Join(some, ", ")))
		} else {
			out["enum"] = e
		}
	}
	if c, ok := m["const"]; ok {
		out["enum"] = []any{c}
	}
	if nullable {
		addNull(out)
	}
	if desc != "" {
		out["description"] = desc
	}
	return out, plan
}

// typesOfNode is a schema's types, inferred from its keywords when it
// has none.
func typesOfNode(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		return out
	case []string:
		return slices.Clone(t)
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := m[k]; ok {
				return true
			}
		}
		return false
	}
	switch {
	case has("properties", "additionalProperties", "patternProperties", "required", "minProperties", "maxProperties"):
		return []string{"object"}
	case has("items", "prefixItems", "minItems", "maxItems", "uniqueItems"):
		return []string{"array"}
	case has("pattern", "minLength", "maxLength", "format"):
		return []string{"string"}
	case has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
		return []string{"number"}
	}
	var vals []any
	if e, ok := m["enum"].([]any); ok {
		vals = e
	} else if c, ok := m["const"]; ok {
		vals = []any{c}
	}
	var out []string
	for _, v := range vals {
		t := jsonType(v)
		if _, num := v.(json.Number); num {
			t = "number"
		}
		if t == "integer" {
			t = "number"
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) > 0 && !slices.ContainsFunc(out, func(t string) bool {
		return t == "object" || t == "array" || strings.HasPrefix(t, "map") || strings.HasPrefix(t, "[]")
	}) {
		return out
	}
	return nil
}

// object rewrites an object schema: closed, every property required, the
// optional ones nullable; a map as pairs, a free-form object as JSON text.
func (st *strictConv) object(m map[string]any, where string, depth int, root bool, desc *string) (map[string]any, *StrictPlan) {
	props, _ := m["properties"].(map[string]any)
	ap, hasAP := m["additionalProperties"]
	if _, ok := m["patternProperties"]; ok && len(props) == 0 {
		ap, hasAP = true, true
	}
	if len(props) == 0 {
		if b, ok := ap.(bool); hasAP && ok && !b {
			return closedObject(map[string]any{}), nil
		}
		if depth >= st.lv.summary && !root {
			*desc = joinDesc(*desc, "JSON object.")
			return map[string]any{"type": "string"}, &StrictPlan{JSON: true}
		}
		if vm, ok := ap.(map[string]any); hasAP && ok && len(vm) > 0 {
			// A map: pairs, each value in strict form.
			v, vp := st.node(vm, where+"/additionalProperties", depth+2, false)
			pair := closedObject(map[string]any{"key": map[string]any{"type": "string"}, "value": v})
			*desc = joinDesc(*desc, "Key/value pairs.")
			if vp.empty() {
				vp = &StrictPlan{}
			}
			return map[string]any{"type": "array", "items": pair}, &StrictPlan{Pairs: vp}
		}
		if root {
			return closedObject(map[string]any{}), nil
		}
		out, plan := jsonText("", "JSON object.")
		*desc = joinDesc(*desc, out.(map[string]any)["description"].(string))
		return map[string]any{"type": "string"}, plan
	}
	if depth >= st.lv.summary && !root {
		names := sortedKeys(props)
		if len(names) > 12 {
			names = append(names[:12], "…")
		}
		*desc = joinDesc(*desc, "JSON object with fields "+strings.Join(names, ", ")+".")
		return map[string]any{"type": "string"}, &StrictPlan{JSON: true}
	}
	if hasAP {
		if b, ok := ap.(bool); !ok || b {
			st.loses(where, "properties beyond the listed ones cannot be sent in the strict schema")
		}
	}
	required := map[string]bool{}
	for _, r := range anyList(m["required"]) {
		if s, ok := r.(string); ok {
			required[s] = true
		}
	}
	outProps := make(map[string]any, len(props))
	plan := &StrictPlan{}
	for _, name := range sortedKeys(props) {
		in := props[name]
		if pm, ok := in.(map[string]any); ok && root {
			switch d, _ := pm["description"].(string); {
			case !required[name] && !st.lv.optionalText:
				// The spec's text goes; what the conversion says (JSON
				// text, pairs) stays.
				in = withoutKey(pm, "description")
			case d != "" && st.said[name] == d:
				// Said once for the tool set: its short form stays.
				in = withKey(pm, "description", SaidShort(d))
			}
		}
		sub, sp := st.node(in, where+"/properties/"+name, depth+1, false)
		sm, _ := sub.(map[string]any)
		if !required[name] {
			if root && isEmptyObject(sm) {
				// An optional object that can only be {} (stripe's GET
				// form bodies) says nothing: it is left out of the list.
				continue
			}
			sm = nullable(sm)
			plan.Optional = append(plan.Optional, name)
		}
		outProps[name] = sm
		if !sp.empty() {
			if plan.Props == nil {
				plan.Props = map[string]*StrictPlan{}
			}
			plan.Props[name] = sp
		}
	}
	if plan.empty() {
		plan = nil
	}
	return closedObject(outProps), plan
}

func closedObject(props map[string]any) map[string]any {
	req := make([]any, 0, len(props))
	for _, k := range sortedKeys(props) {
		req = append(req, k)
	}
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

// array rewrites an array schema; its item count bounds stay, uniqueness
// goes into the description.
func (st *strictConv) array(m map[string]any, where string, depth int, desc *string) (map[string]any, *StrictPlan) {
	if depth >= StrictMaxDepth {
		return nil, nil
	}
	out := map[string]any{"type": "array"}
	var plan *StrictPlan
	items, ok := m["items"]
	if !ok {
		if pi := anyList(m["prefixItems"]); len(pi) > 0 {
			st.loses(where, "the positions of a tuple's items are not in the strict schema")
			items = map[string]any{"anyOf": pi}
		} else {
			items = true
		}
	}
	it, ip := st.node(items, where+"/items", depth+1, false)
	out["items"] = it
	if !ip.empty() {
		plan = &StrictPlan{Items: ip}
	}
	for _, k := range []string{"minItems", "maxItems"} {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	if u, _ := m["uniqueItems"].(bool); u {
		*desc = joinDesc(*desc, "Items must be unique.")
	}
	return out, plan
}

// scalar rewrites a string, number, integer or boolean schema (types
// several of them).
func (st *strictConv) scalar(m map[string]any, types []string, desc *string) map[string]any {
	out := map[string]any{}
	if len(types) == 1 {
		out["type"] = types[0]
	} else {
		l := make([]any, len(types))
		for i, t := range types {
			l[i] = t
		}
		out["type"] = l
	}
	str := slices.Contains(types, "string")
	num := slices.Contains(types, "number") || slices.Contains(types, "integer")
	if str {
		if p, ok := m["pattern"].(string); ok {
			out["pattern"] = p
		}
		if f, ok := m["format"].(string); ok {
			if lf := strings.ToLower(f); strictFormats[lf] {
				out["format"] = lf
			} else if f != "" {
				*desc = joinDesc(*desc, "Format: "+f+".")
			}
		}
		// Bounds that say something to the model; a minimum of 1 or a
		// maximum of thousands (stripe's 5000 on every id) only cost
		// tokens, and the full schema still checks them.
		var lengths []string
		if v, ok := m["minLength"].(json.Number); ok && v.String() != "0" && v.String() != "1" {
			lengths = append(lengths, fmt.Sprintf("at least %v", v))
		}
		if v, ok := m["maxLength"].(json.Number); ok {
			if n, err := v.Int64(); err == nil && n < 1000 {
				lengths = append(lengths, fmt.Sprintf("at most %v", v))
			}
		}
		if len(lengths) > 0 && st.lv.lengths {
			*desc = joinDesc(*desc, "Length: "+strings.Join(lengths, ", ")+" characters.")
		}
		if e, ok := m["contentEncoding"].(string); ok && e != "" {
			*desc = joinDesc(*desc, "Encoded as "+e+".")
		}
	}
	if num {
		for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
			if v, ok := m[k]; ok {
				if _, isNum := v.(json.Number); isNum {
					out[k] = v
				}
			}
		}
	}
	return out
}

// notes is a schema's description with what the strict subset cannot say
// as keywords: deprecation and the default.
func (st *strictConv) notes(m map[string]any, depth int) string {
	d, _ := m["description"].(string)
	budget := st.lv.fieldText
	if depth <= 1 {
		budget = st.lv.argText
	}
	d = TrimText(PlainText(d), budget)
	if dep, _ := m["deprecated"].(bool); dep {
		d = joinDesc("Deprecated.", d)
	}
	if v, ok := m["default"]; ok {
		if b := Marshal(v); len(b) <= 80 {
			d = joinDesc(d, "Default: "+string(b)+".")
		}
	}
	return d
}

func joinDesc(a, b string) string {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	switch {
	case a == "":
		return b
	case b == "" || strings.Contains(a, b):
		return a
	}
	if !strings.HasSuffix(a, ".") && !strings.HasSuffix(a, "!") && !strings.HasSuffix(a, "?") && !strings.HasSuffix(a, ")") {
		a += "."
	}
	return a + " " + b
}

func withDesc(m map[string]any, desc string) map[string]any {
	cp := make(map[string]any, len(m)+1)
	for k, v := range m {
		cp[k] = v
	}
	if d, _ := cp["description"].(string); d != "" {
		cp["description"] = joinDesc(desc, d)
	} else {
		cp["description"] = desc
	}
	return cp
}

// addNull makes a typed schema admit null.
func addNull(out map[string]any) {
	switch t := out["type"].(type) {
	case string:
		if t != "null" {
			out["type"] = []any{t, "null"}
		}
	case []any:
		if !slices.Contains(t, any("null")) {
			out["type"] = append(t, "null")
		}
	}
	if e, ok := out["enum"].([]any); ok && !slices.Contains(e, nil) {
		out["enum"] = append(slices.Clone(e), nil)
	}
}

// nullable is s admitting null, for an optional property made required.
func nullable(s map[string]any) map[string]any {
	if s == nil {
		return map[string]any{"type": "null"}
	}
	if _, typed := s["type"]; typed {
		cp := make(map[string]any, len(s))
		for k, v := range s {
			cp[k] = v
		}
		addNull(cp)
		return cp
	}
	if branches, ok := s["anyOf"].([]any); ok {
		for _, b := range branches {
			if bm, _ := b.(map[string]any); bm["type"] == "null" {
				return s
			}
		}
		cp := make(map[string]any, len(s))
		for k, v := range s {
			cp[k] = v
		}
		cp["anyOf"] = append(slices.Clone(branches), map[string]any{"type": "null"})
		return cp
	}
	// A $ref: the description stays beside the anyOf.
	out := map[string]any{}
	inner := map[string]any{}
	for k, v := range s {
		if k == "description" {
			out[k] = v
		} else {
			inner[k] = v
		}
	}
	out["anyOf"] = []any{inner, map[string]any{"type": "null"}}
	return out
}

// flatten merges allOf into the schema, writes oneOf as anyOf, and moves
// the keywords beside an anyOf into each branch, so that node sees at most
// one of: a $ref with annotations, an anyOf with annotations, or a plain
// schema.
func (st *strictConv) flatten(m map[string]any, depth int) map[string]any {
	if depth > 16 {
		return m
	}
	_, hasAll := m["allOf"]
	_, hasOne := m["oneOf"]
	_, hasAny := m["anyOf"]
	_, hasRef := m["$ref"]
	if !hasAll && !hasOne && !(hasRef && hasAssertions(m)) && !(hasAny && hasAssertions(m)) {
		return m
	}
	base := map[string]any{}
	for k, v := range m {
		switch k {
		case "allOf", "oneOf", "anyOf":
		default:
			base[k] = v
		}
	}
	if hasRef && (hasAll || hasAssertions(base)) {
		// A $ref among other assertions: merged with its target's keywords.
		ref, _ := base["$ref"].(string)
		delete(base, "$ref")
		if _, target := st.resolve(ref); target != nil {
			base = mergeSchemas(st.flatten(target, depth+1), base)
		}
	}
	all := merger{out: base} // base is this call's own map
	for _, b := range anyList(m["allOf"]) {
		bm, _ := b.(map[string]any)
		if bm == nil {
			continue
		}
		if ref, ok := bm["$ref"].(string); ok && len(bm) == 1 && len(anyList(m["allOf"])) == 1 && !hasAssertions(base) && !hasOne && !hasAny {
			// allOf of one $ref with annotations beside: the $ref.
			base["$ref"] = ref
			continue
		}
		if ref, ok := bm["$ref"].(string); ok {
			if _, target := st.resolve(ref); target != nil {
				bm = mergeSchemas(target, withoutKey(bm, "$ref"))
			}
		}
		all.add(st.flatten(bm, depth+1))
	}
	base = all.out
	var alts []any
	alts = append(alts, anyList(m["anyOf"])...)
	if one := anyList(m["oneOf"]); len(one) > 0 {
		if len(alts) > 0 {
			// Both: each pair of branches (rare; keeps the meaning).
			var both []any
			for _, a := range alts {
				for _, o := range one {
					am, _ := a.(map[string]any)
					om, _ := o.(map[string]any)
					both = append(both, mergeSchemas(st.deref(am), st.deref(om)))
				}
			}
			alts = both
		} else {
			alts = one
		}
	}
	if len(alts) == 0 {
		return base
	}
	if !hasAssertions(base) {
		base["anyOf"] = alts
		return base
	}
	// Keywords beside the alternatives apply to each.
	out := map[string]any{}
	for _, k := range []string{"description", "title", "deprecated", "default"} {
		if v, ok := base[k]; ok {
			out[k] = v
			delete(base, k)
		}
	}
	branches := make([]any, 0, len(alts))
	for _, a := range alts {
		am, _ := a.(map[string]any)
		branches = append(branches, mergeSchemas(base, st.flatten(st.deref(am), depth+1)))
	}
	out["anyOf"] = branches
	return out
}

// deref is the full definition a bare $ref names, or s.
func (st *strictConv) deref(s map[string]any) map[string]any {
	if ref, ok := s["$ref"].(string); ok {
		if _, target := st.resolve(ref); target != nil {
			return mergeSchemas(target, withoutKey(s, "$ref"))
		}
	}
	return s
}

func withoutKey(m map[string]any, key string) map[string]any {
	cp := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			cp[k] = v
		}
	}
	return cp
}

// metaKeywords describe a value without constraining it.
var metaKeywords = map[string]bool{
	"description": true, "title": true, "deprecated": true, "default": true, "examples": true,
	"readOnly": true, "writeOnly": true, "$comment": true,
}

func hasAssertions(m map[string]any) bool {
	for k := range m {
		if !metaKeywords[k] && k != "$ref" && k != "anyOf" && k != "oneOf" && k != "allOf" {
			return true
		}
	}
	return false
}

// mergeSchemas is the conjunction of a and b as one schema, as far as the
// strict subset needs: properties and required united, types intersected,
// other keywords b's over a's. Descriptions join.
func mergeSchemas(a, b map[string]any) map[string]any {
	m := merger{out: make(map[string]any, len(a)+len(b))}
	for k, v := range a {
		m.out[k] = v
	}
	m.add(b)
	return m.out
}

// merger folds schemas into out one after another, as mergeSchemas does
// two. It owns out, and the properties map and required list it built
// there, and adds to them in place: n allOf branches cost n merges, where
// merging two at a time copied everything gathered so far n times (6,000
// branches: 4 s). The maps and lists out held when the merger got it may
// be shared: they are copied before anything is added to them.
type merger struct {
	out      map[string]any
	props    map[string]any // out["properties"], once built here
	required []any          // out["required"], once built here
	seen     map[string]bool
}

func (m *merger) add(b map[string]any) {
	out := m.out
	for k, v := range b {
		switch k {
		case "properties":
			if m.props == nil {
				pa, _ := out[k].(map[string]any)
				m.props = make(map[string]any, len(pa))
				for n, s := range pa {
					m.props[n] = s
				}
				out[k] = m.props
			}
			pb, _ := v.(map[string]any)
			for n, s := range pb {
				if prev, ok := m.props[n].(map[string]any); ok {
					if sm, ok := s.(map[string]any); ok {
						m.props[n] = mergeSchemas(prev, sm)
						continue
					}
				}
				m.props[n] = s
			}
		case "required":
			if m.seen == nil {
				m.seen = map[string]bool{}
				m.required = m.unite(nil, anyList(out[k]))
			}
			m.required = m.unite(m.required, anyList(v))
			out[k] = m.required
		case "type":
			if prev, ok := out[k]; ok {
				ta, tb := typesOfNode(map[string]any{"type": prev}), typesOfNode(map[string]any{"type": v})
				var both []any
				for _, t := range ta {
					if slices.Contains(tb, t) || (t == "integer" && slices.Contains(tb, "number")) {
						both = append(both, t)
					} else if t == "number" && slices.Contains(tb, "integer") {
						both = append(both, "integer")
					}
				}
				switch len(both) {
				case 0:
					out[k] = v
				case 1:
					out[k] = both[0]
				default:
					out[k] = both
				}
				continue
			}
			out[k] = v
		case "description":
			if d, _ := out[k].(string); d != "" {
				out[k] = joinDesc(d, v.(string))
			} else {
				out[k] = v
			}
		case "additionalProperties":
			if prev, ok := out[k]; ok {
				if pb, ok := prev.(bool); ok && !pb {
					continue // closed stays closed
				}
			}
			out[k] = v
		default:
			out[k] = v
		}
	}
}

// unite appends the names in list that req does not hold yet.
func (m *merger) unite(req, list []any) []any {
	for _, r := range list {
		if s, ok := r.(string); ok && !m.seen[s] {
			m.seen[s] = true
			req = append(req, s)
		}
	}
	return req
}

// TrimText shortens s to at most max bytes, ending at the last sentence
// that fits; when not even the first sentence fits, at the last word that
// does, followed by "…". Text within max is returned as it is.
func TrimText(s string, max int) string {
	s = strings.TrimSpace(s)
	if len(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	cut := s[:max]
	best := -1
	for i := 0; i+1 < len(cut); i++ {
		if (cut[i] == '.' || cut[i] == '!' || cut[i] == '?') && (cut[i+1] == ' ' || cut[i+1] == '\n') {
			best = i + 1
		}
	}
	if best > max/4 {
		return strings.TrimSpace(cut[:best])
	}
	room := max - len("…")
	cut = s[:room]
	for !utf8.ValidString(cut) && len(cut) > 0 {
		cut = cut[:len(cut)-1]
	}
	if i := strings.LastIndexAny(cut, " \n\t"); i > room/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " \n\t,;:") + "…"
}

var (
	htmlTag    = regexp.MustCompile(`(?i)</?(p|br|code|strong|em|b|i|a|ul|ol|li|span|div|h[1-6])(\s[^<>]*)?/?>`)
	htmlBreak  = regexp.MustCompile(`(?i)</p>\s*<p>|<br\s*/?>|</li>`)
	spaceRun   = regexp.MustCompile(`[ \t]+`)
	htmlEntity = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&nbsp;", " ")
)

// PlainText turns the HTML of a description (stripe writes <p>, <code>,
// <a href>) into text: the tags cost tokens (and six bytes each once
// encoded as \u003c) and tell the model nothing. Text without tags is
// returned as it is.
func PlainText(s string) string {
	if !strings.Contains(s, "<") || !htmlTag.MatchString(s) {
		return s
	}
	s = htmlBreak.ReplaceAllString(s, "\n")
	s = htmlTag.ReplaceAllString(s, "")
	s = htmlEntity.Replace(s)
	return strings.TrimSpace(spaceRun.ReplaceAllString(s, " "))
}

// isEmptyObject reports whether s admits only {} (and null).
func isEmptyObject(s map[string]any) bool {
	props, _ := s["properties"].(map[string]any)
	return s["additionalProperties"] == false && len(props) == 0 && s["type"] == "object"
}

// mergeScalars writes branches of one scalar type as one schema: stripe's
// "an id, or an object as JSON text" and "a value, or \"\" to unset" are a
// string each, described as both (about half the tokens of the anyOf). It
// merges only branches that say no more than a type, a description and,
// beside a branch of the same type, a few enum values (said in words);
// anything else is returned as it is. The plans of the branches stay,
// applied in turn: JSON text is parsed, other text stays text.
func mergeScalars(outs []any) []any {
	var typ, desc string
	var nullable bool
	var extra []string
	plain := false
	for _, o := range outs {
		m, _ := o.(map[string]any)
		t, _ := m["type"].(string)
		if t == "null" && len(m) == 1 {
			nullable = true
			continue
		}
		if t == "" || t == "object" || t == "array" || typ != "" && t != typ {
			return outs
		}
		typ = t
		for k := range m {
			if k != "type" && k != "description" && k != "enum" {
				return outs
			}
		}
		if e, ok := m["enum"].([]any); ok {
			if len(e) > 3 {
				return outs
			}
			for _, v := range e {
				extra = append(extra, string(Marshal(v)))
			}
		} else {
			plain = true
		}
		if d, _ := m["description"].(string); d != "" {
			desc = joinDesc(desc, d)
		}
	}
	if typ == "" || !plain {
		return outs
	}
	if len(extra) > 0 {
		desc = joinDesc(desc, "Or "+strings.Join(extra, ", ")+".")
	}
	out := map[string]any{"type": typ}
	if nullable {
		addNull(out)
	}
	if desc != "" {
		out["description"] = desc
	}
	return []any{out}
}
