package curate

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template/parse"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/mcpkit"
)

// templateScope is what a template can see: its top-level names.
type templateScope map[string]sym

// schemaSym is a value described by a JSON Schema inside doc (an
// outputSchema, whose $defs its refs use); nil doc means unknown.
func schemaSym(doc json.RawMessage, unwrap bool, wrap string) sym {
	if doc == nil {
		return sym{}
	}
	root, err := decodeSchema(doc)
	if err != nil {
		return sym{}
	}
	o := &outputSchema{root: root.root}
	if unwrap {
		o.wrap = wrap
	}
	return sym{kind: symSchema, schema: o.body(), doc: o}
}

func namesSym(what string, names map[string]bool) sym {
	return sym{kind: symNames, what: what, names: names}
}

func mapSym(what string, fields map[string]sym) sym {
	return sym{kind: symMap, what: what, fields: fields}
}

// resultScope is what a single-operation tool's result text sees.
func resultScope(t *ir.Tool) templateScope {
	s := templateScope{
		"args":   namesSym("an argument of this tool", argNames(t)),
		"body":   schemaSym(t.OutputSchema, true, t.Call.Result.Wrap),
		"status": {},
	}
	if t.Quote != nil {
		s["quote"] = mapSym("a field of the quote", map[string]sym{"id": {}, "expires_at": {}})
	}
	return s
}

// argNames lists what .args holds: the properties of the tool's input
// schema, i.e. the model's arguments after curation.
func argNames(t *ir.Tool) map[string]bool {
	out := map[string]bool{}
	if in, err := decodeSchema(t.InputSchema); err == nil {
		for n := range in.props {
			out[n] = true
		}
	}
	return out
}

// checkTemplate parses a template with mcpkit's functions and checks each
// field it reads: .args.X must be an argument, .body.X a field of the
// response schema (where the schema says which fields exist).
func (c *curator) checkTemplate(text *overlay.Text, where string, scope templateScope) {
	tmpl, err := mcpkit.ParseTemplate("t", text.S)
	if err != nil {
		c.errorf(templatePos(text, err.Error()), "%s: bad template: %s", where, cleanTemplateError(err.Error()))
		return
	}
	tc := &templateChecker{c: c, text: text, where: where}
	root := mapSym("", scope)
	tc.root = root
	tc.list(tmpl.Tree.Root, root)
}

var templateLine = regexp.MustCompile(`^template: t:(\d+)(?::(\d+))?: `)

// templatePos places a template error in the overlay: at the start of
// the line of the template it names.
func templatePos(text *overlay.Text, msg string) diag.Pos {
	m := templateLine.FindStringSubmatch(msg)
	if m == nil {
		return text.Pos
	}
	l, _ := strconv.Atoi(m[1])
	off := 0
	for ; l > 1; l-- {
		i := strings.IndexByte(text.S[off:], '\n')
		if i < 0 {
			return text.Pos
		}
		off += i + 1
	}
	return text.At(off)
}

func cleanTemplateError(msg string) string {
	return templateLine.ReplaceAllString(msg, "")
}

type symKind int

const (
	symUnknown symKind = iota
	symMap             // known fields, each with its own sym
	symNames           // known names whose values are unknown (.args)
	symSchema          // described by a JSON Schema
)

// sym is what a template expression evaluates to, as far as the checker
// can tell.
type sym struct {
	kind   symKind
	what   string // "an argument of this tool", for messages
	fields map[string]sym
	names  map[string]bool
	schema any
	doc    *outputSchema
}

type templateChecker struct {
	c     *curator
	text  *overlay.Text
	where string
	root  sym
}

func (tc *templateChecker) list(l *parse.ListNode, dot sym) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		tc.node(n, dot)
	}
}

func (tc *templateChecker) node(n parse.Node, dot sym) sym {
	switch x := n.(type) {
	case *parse.ActionNode:
		return tc.pipe(x.Pipe, dot)
	case *parse.IfNode:
		tc.pipe(x.Pipe, dot)
		tc.list(x.List, dot)
		tc.list(x.ElseList, dot)
	case *parse.WithNode:
		v := tc.pipe(x.Pipe, dot)
		tc.list(x.List, v)
		tc.list(x.ElseList, dot)
	case *parse.RangeNode:
		v := tc.pipe(x.Pipe, dot)
		tc.list(x.List, tc.element(v))
		tc.list(x.ElseList, dot)
	case *parse.ListNode:
		tc.list(x, dot)
	case *parse.FieldNode:
		return tc.fields(dot, x.Ident, x.Position())
	case *parse.VariableNode:
		if len(x.Ident) > 0 && x.Ident[0] == "$" {
			return tc.fields(tc.root, x.Ident[1:], x.Position())
		}
	case *parse.ChainNode:
		base := tc.node(x.Node, dot)
		return tc.fields(base, x.Field, x.Position())
	case *parse.PipeNode:
		return tc.pipe(x, dot)
	case *parse.DotNode:
		return dot
	}
	return sym{}
}

func (tc *templateChecker) pipe(p *parse.PipeNode, dot sym) sym {
	if p == nil {
		return sym{}
	}
	var last sym
	for _, cmd := range p.Cmds {
		if isTruthy(cmd) {
			// mcpkit.ParseTemplate ends every if/with pipeline with
			// `| truthy`, which passes the value on.
			continue
		}
		last = sym{}
		args := make([]sym, len(cmd.Args))
		for i, arg := range cmd.Args {
			args[i] = tc.node(arg, dot)
			if i == 0 && len(cmd.Args) == 1 {
				last = args[i]
			}
		}
		tc.comparison(cmd, args)
	}
	return last
}

// comparison reports a comparison of a field the response schema types as
// a number with a quoted literal, or a text field with a number: mcpkit
// compares numbers by value and refuses to compare a number with text, so
// `gt .body.credit "0"` would fail every call.
func (tc *templateChecker) comparison(cmd *parse.CommandNode, args []sym) {
	id, ok := cmd.Args[0].(*parse.IdentifierNode)
	if !ok {
		return
	}
	switch id.Ident {
	case "eq", "ne", "lt", "le", "gt", "ge":
	default:
		return
	}
	for i, a := range cmd.Args[1:] {
		for j, b := range cmd.Args[1:] {
			if i == j {
				continue
			}
			typ := schemaType(args[i+1])
			switch lit := b.(type) {
			case *parse.StringNode:
				if typ == "number" || typ == "integer" {
					tc.report(lit.Position(), "`%s` compares %s, a number, with the text %s: write the number without quotes", id.Ident, a, lit.Quoted)
				}
			case *parse.NumberNode:
				if typ == "string" {
					tc.report(lit.Position(), "`%s` compares %s, a text, with the number %s: quote it", id.Ident, a, lit.Text)
				}
			}
		}
	}
}

// schemaType is the JSON type a schema-described value has, when it has
// exactly one besides null.
func schemaType(v sym) string {
	if v.kind != symSchema {
		return ""
	}
	m, _ := v.schema.(map[string]any)
	for depth := 0; m != nil && depth < 16; depth++ {
		ref, isRef := m["$ref"].(string)
		if !isRef || !strings.HasPrefix(ref, "#/$defs/") {
			break
		}
		defs, _ := v.doc.root["$defs"].(map[string]any)
		m, _ = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
	}
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		var types []string
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				types = append(types, s)
			}
		}
		if len(types) == 1 {
			return types[0]
		}
	}
	return ""
}

// isTruthy reports whether cmd is the bare `truthy` that
// mcpkit.ParseTemplate appends to conditions.
func isTruthy(cmd *parse.CommandNode) bool {
	if len(cmd.Args) != 1 {
		return false
	}
	id, ok := cmd.Args[0].(*parse.IdentifierNode)
	return ok && id.Ident == "truthy"
}

// element is what range yields over v.
func (tc *templateChecker) element(v sym) sym {
	if v.kind != symSchema {
		return sym{}
	}
	_, _, items, known := v.doc.resolve(v.schema, 0)
	if !known || items == nil {
		return sym{}
	}
	return sym{kind: symSchema, schema: items, doc: v.doc}
}

func (tc *templateChecker) fields(base sym, idents []string, pos parse.Pos) sym {
	cur := base
	prefix := ""
	for i, id := range idents {
		at := parse.Pos(identAt(tc.text.S, int(pos), idents, i))
		switch cur.kind {
		case symMap:
			next, ok := cur.fields[id]
			if !ok {
				names := make([]string, 0, len(cur.fields))
				for n := range cur.fields {
					names = append(names, "."+prefix+n)
				}
				sort.Strings(names)
				if prefix == "" {
					tc.report(at, "`.%s` does not exist: this template sees %s%s", id, strings.Join(names, ", "), suggestion("."+id, names))
				} else {
					tc.report(at, "`.%s%s` is not %s%s", prefix, id, cur.what, suggestionOrNames("."+prefix+id, names))
				}
				return sym{}
			}
			cur = next
		case symNames:
			if !cur.names[id] {
				names := make([]string, 0, len(cur.names))
				for n := range cur.names {
					names = append(names, n)
				}
				sort.Strings(names)
				tc.report(at, "`.%s%s` is not %s%s", prefix, id, cur.what, suggestionOrNames(id, names))
				return sym{}
			}
			cur = sym{}
		case symSchema:
			props, _, _, known := cur.doc.resolve(cur.schema, 0)
			if !known || props == nil {
				return sym{}
			}
			p, ok := props[id]
			if !ok {
				if allowsMore(cur.schema) {
					return sym{}
				}
				names := make([]string, 0, len(props))
				for n := range props {
					names = append(names, n)
				}
				sort.Strings(names)
				tc.report(at, "the response has no field `%s`%s", id, suggestionOrNames(id, names))
				return sym{}
			}
			cur = sym{kind: symSchema, schema: p, doc: cur.doc}
		default:
			return sym{}
		}
		prefix += id + "."
	}
	return cur
}

// identAt is the offset in the template of idents[i] (with its dot) in
// the field chain the parser placed at pos, which is not the chain's start
// (for .a.b it is where .b begins).
func identAt(src string, pos int, idents []string, i int) int {
	full := "." + strings.Join(idents, ".")
	for start := max(0, pos-len(full)); start <= pos && start < len(src); start++ {
		if strings.HasPrefix(src[start:], full) {
			for _, id := range idents[:i] {
				start += len(id) + 1
			}
			return start
		}
	}
	return pos
}

// allowsMore reports whether a schema explicitly admits fields beyond its
// properties (a map-like object).
func allowsMore(s any) bool {
	m, _ := s.(map[string]any)
	ap, ok := m["additionalProperties"]
	if !ok {
		return false
	}
	if b, isBool := ap.(bool); isBool {
		return b
	}
	return true
}

func (tc *templateChecker) report(pos parse.Pos, format string, args ...any) {
	tc.c.errorf(tc.text.At(int(pos)), "%s: %s", tc.where, fmt.Sprintf(format, args...))
}

func suggestion(s string, names []string) string {
	if best := overlay.Nearest(s, names); best != "" {
		return fmt.Sprintf("; did you mean `%s`?", best)
	}
	return ""
}

// suggestionOrNames is the name nearest to s, or else the names there are.
func suggestionOrNames(s string, names []string) string {
	if hint := suggestion(s, names); hint != "" || len(names) == 0 {
		return hint
	}
	return "; there are: " + joinNames(names)
}
