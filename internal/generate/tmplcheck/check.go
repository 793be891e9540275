// Package tmplcheck type-checks the text/templates of an overlay (result
// texts, error rules, messages, step bindings, approval messages) before
// they reach a server: every field a template reads must exist in what it
// sees (.args, .body, .steps, ...), as far as the tool's schemas say, and
// a number is never compared with text. Templates are parsed with mcpkit's
// own ParseTemplate, so what passes here parses at run time.
//
// The caller builds the Scope (what a template sees) and places each
// Problem in its file; this package knows nothing of overlays.
package tmplcheck

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template/parse"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/schema"
	"github.com/tailormcp/tailor/mcpkit"
)

// Scope is what a template can see: its top-level names.
type Scope map[string]Sym

// Problem is one mistake in a template: a message, and the byte offset in
// the template where it is (-1: the template as a whole).
type Problem struct {
	Offset  int
	Message string
}

// Schema is a value described by an outputSchema doc (whose $defs its
// refs use): the response body, unwrapped from wrap when unwrap is set.
// A nil doc means unknown.
func Schema(doc json.RawMessage, unwrap bool, wrap string) Sym {
	if doc == nil {
		return Sym{}
	}
	root, err := schema.Decode(doc)
	if err != nil {
		return Sym{}
	}
	o := &schema.OutputDoc{Root: root}
	if unwrap {
		o.Wrap = wrap
	}
	return Sym{kind: symSchema, schema: o.Body(), doc: o}
}

// Names is a value with known fields whose values are unknown (.args):
// what says what they are, in messages ("an argument of this tool").
func Names(what string, names map[string]bool) Sym {
	return Sym{kind: symNames, what: what, names: names}
}

// Map is a value with known fields, each its own Sym.
func Map(what string, fields map[string]Sym) Sym {
	return Sym{kind: symMap, what: what, fields: fields}
}

// Check parses text with mcpkit's functions and checks each field it
// reads against scope.
func Check(text string, scope Scope) []Problem {
	tmpl, err := mcpkit.ParseTemplate("t", text)
	if err != nil {
		return []Problem{{Offset: lineOffset(text, err.Error()), Message: "bad template: " + templateLine.ReplaceAllString(err.Error(), "")}}
	}
	tc := &checker{text: text}
	root := Map("", scope)
	tc.root = root
	tc.list(tmpl.Tree.Root, root)
	return tc.problems
}

var templateLine = regexp.MustCompile(`^template: t:(\d+)(?::(\d+))?: `)

// lineOffset is the offset of the start of the line a parse error names,
// or -1.
func lineOffset(text, msg string) int {
	m := templateLine.FindStringSubmatch(msg)
	if m == nil {
		return -1
	}
	l, _ := strconv.Atoi(m[1])
	off := 0
	for ; l > 1; l-- {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	return off
}

type symKind int

const (
	symUnknown symKind = iota
	symMap             // known fields, each with its own sym
	symNames           // known names whose values are unknown (.args)
	symSchema          // described by a JSON Schema
)

// Sym is what a template expression evaluates to, as far as the checker
// can tell; the zero Sym is a value of which nothing is known.
type Sym struct {
	kind   symKind
	what   string // "an argument of this tool", for messages
	fields map[string]Sym
	names  map[string]bool
	schema any
	doc    *schema.OutputDoc
}

type checker struct {
	text     string
	root     Sym
	problems []Problem
}

func (tc *checker) list(l *parse.ListNode, dot Sym) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		tc.node(n, dot)
	}
}

func (tc *checker) node(n parse.Node, dot Sym) Sym {
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
	return Sym{}
}

func (tc *checker) pipe(p *parse.PipeNode, dot Sym) Sym {
	if p == nil {
		return Sym{}
	}
	var last Sym
	for _, cmd := range p.Cmds {
		if isTruthy(cmd) {
			// mcpkit.ParseTemplate ends every if/with pipeline with
			// `| truthy`, which passes the value on.
			continue
		}
		last = Sym{}
		args := make([]Sym, len(cmd.Args))
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
func (tc *checker) comparison(cmd *parse.CommandNode, args []Sym) {
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
func schemaType(v Sym) string {
	if v.kind != symSchema {
		return ""
	}
	m, _ := v.schema.(map[string]any)
	for depth := 0; m != nil && depth < 16; depth++ {
		ref, isRef := m["$ref"].(string)
		if !isRef || !strings.HasPrefix(ref, "#/$defs/") {
			break
		}
		m, _ = v.doc.Def(m).(map[string]any)
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
func (tc *checker) element(v Sym) Sym {
	if v.kind != symSchema {
		return Sym{}
	}
	_, _, items, known := v.doc.Resolve(v.schema)
	if !known || items == nil {
		return Sym{}
	}
	return Sym{kind: symSchema, schema: items, doc: v.doc}
}

func (tc *checker) fields(base Sym, idents []string, pos parse.Pos) Sym {
	cur := base
	prefix := ""
	for i, id := range idents {
		at := parse.Pos(identAt(tc.text, int(pos), idents, i))
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
					tc.report(at, "`.%s` does not exist: this template sees %s%s", id, strings.Join(names, ", "), diag.DidYouMean("."+id, names))
				} else {
					tc.report(at, "`.%s%s` is not %s%s", prefix, id, cur.what, suggestionOrNames("."+prefix+id, names))
				}
				return Sym{}
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
				return Sym{}
			}
			cur = Sym{}
		case symSchema:
			props, _, _, known := cur.doc.Resolve(cur.schema)
			if !known || props == nil {
				return Sym{}
			}
			p, ok := props[id]
			if !ok {
				if allowsMore(cur.schema) {
					return Sym{}
				}
				names := make([]string, 0, len(props))
				for n := range props {
					names = append(names, n)
				}
				sort.Strings(names)
				tc.report(at, "the response has no field `%s`%s", id, suggestionOrNames(id, names))
				return Sym{}
			}
			cur = Sym{kind: symSchema, schema: p, doc: cur.doc}
		default:
			return Sym{}
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

func (tc *checker) report(pos parse.Pos, format string, args ...any) {
	tc.problems = append(tc.problems, Problem{Offset: int(pos), Message: fmt.Sprintf(format, args...)})
}

// suggestionOrNames is the name nearest to s, or else the names there are.
func suggestionOrNames(s string, names []string) string {
	if hint := diag.DidYouMean(s, names); hint != "" || len(names) == 0 {
		return hint
	}
	return "; there are: " + diag.JoinNames(names)
}
