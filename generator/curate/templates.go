package curate

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template/parse"

	"github.com/tailormcp/tailor/generator/diag"
	"github.com/tailormcp/tailor/generator/ir"
	"github.com/tailormcp/tailor/mcpkit"
	"github.com/tailormcp/tailor/overlays"
)

// templateScope is what a template can see: the tool's argument names and
// the schema of .body (an outputSchema, possibly wrapped; nil: unknown).
type templateScope struct {
	args map[string]bool
	body json.RawMessage
	wrap string
}

// argNames lists what .args holds: the model's arguments after defaults.
func argNames(t *ir.Tool) map[string]bool {
	out := map[string]bool{}
	for _, p := range t.Call.Params {
		if p.Arg != "" {
			out[p.Arg] = true
		}
	}
	if b := t.Call.Body; b != nil {
		if b.Arg != "" {
			out[b.Arg] = true
		}
		for _, f := range b.Fields {
			if f.Arg != "" {
				out[f.Arg] = true
			}
		}
	}
	return out
}

// checkTemplate parses a template with mcpkit's functions and checks each
// field it reads: .args.X must be an argument, .body.X a field of the
// response schema (where the schema says which fields exist).
func (c *curator) checkTemplate(text *overlays.Text, where string, scope templateScope) {
	tmpl, err := mcpkit.ParseTemplate("t", text.S)
	if err != nil {
		c.errorf(templatePos(text, err.Error()), "%s: bad template: %s", where, cleanTemplateError(err.Error()))
		return
	}
	tc := &templateChecker{c: c, text: text, where: where, scope: scope}
	if scope.body != nil {
		if root, err := decodeSchema(scope.body); err == nil {
			tc.schema = &outputSchema{root: root.root, wrap: scope.wrap}
		}
	}
	tc.list(tmpl.Tree.Root, sym{kind: symRoot})
}

var templateLine = regexp.MustCompile(`^template: t:(\d+)(?::(\d+))?: `)

// templatePos places a template error in the overlay: the template's
// position plus its line within the template.
func templatePos(text *overlays.Text, msg string) diag.Pos {
	pos := text.Pos
	if m := templateLine.FindStringSubmatch(msg); m != nil {
		if l, _ := strconv.Atoi(m[1]); l > 1 {
			pos.Line += l - 1
			pos.Col = 1
		}
	}
	return pos
}

func cleanTemplateError(msg string) string {
	return templateLine.ReplaceAllString(msg, "")
}

type symKind int

const (
	symUnknown symKind = iota
	symRoot
	symArgs
	symSchema
)

// sym is what a template expression evaluates to, as far as the checker
// can tell.
type sym struct {
	kind   symKind
	schema any
}

type templateChecker struct {
	c      *curator
	text   *overlays.Text
	where  string
	scope  templateScope
	schema *outputSchema
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
			return tc.fields(sym{kind: symRoot}, x.Ident[1:], x.Position())
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
		last = sym{}
		for i, arg := range cmd.Args {
			v := tc.node(arg, dot)
			if i == 0 && len(cmd.Args) == 1 {
				last = v
			}
		}
	}
	return last
}

// element is what range yields over v.
func (tc *templateChecker) element(v sym) sym {
	if v.kind != symSchema || tc.schema == nil {
		return sym{}
	}
	_, _, items, known := tc.schema.resolve(v.schema, 0)
	if !known || items == nil {
		return sym{}
	}
	return sym{kind: symSchema, schema: items}
}

func (tc *templateChecker) fields(base sym, idents []string, pos parse.Pos) sym {
	cur := base
	for _, id := range idents {
		switch cur.kind {
		case symRoot:
			switch id {
			case "args":
				cur = sym{kind: symArgs}
			case "body":
				cur = sym{}
				if tc.schema != nil {
					cur = sym{kind: symSchema, schema: tc.schema.body()}
				}
			case "status":
				cur = sym{}
			default:
				tc.report(pos, "`.%s` does not exist: templates see .args (the call's arguments), .body (the response) and .status%s", id, suggestion(id, []string{"args", "body", "status"}))
				return sym{}
			}
		case symArgs:
			if !tc.scope.args[id] {
				names := make([]string, 0, len(tc.scope.args))
				for n := range tc.scope.args {
					names = append(names, n)
				}
				sort.Strings(names)
				tc.report(pos, "`.args.%s` is not an argument of this tool%s", id, suggestion(id, names))
				return sym{}
			}
			cur = sym{}
		case symSchema:
			props, _, _, known := tc.schema.resolve(cur.schema, 0)
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
				tc.report(pos, "the response has no field `%s`%s", id, suggestion(id, names))
				return sym{}
			}
			cur = sym{kind: symSchema, schema: p}
		default:
			return sym{}
		}
	}
	return cur
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
	p := tc.text.Pos
	// Find the line of pos within the template.
	if off := int(pos); off > 0 && off <= len(tc.text.S) {
		if l := strings.Count(tc.text.S[:off], "\n"); l > 0 {
			p.Line += l
			p.Col = 1
		}
	}
	tc.c.errorf(p, "%s: %s", tc.where, fmt.Sprintf(format, args...))
}

func suggestion(s string, names []string) string {
	if best := overlays.Nearest(s, names); best != "" {
		return fmt.Sprintf("; did you mean `%s`?", best)
	}
	return ""
}
