package mcpkit

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"text/template/parse"
)

// rewriteConditions makes every condition of a template tree go through
// truthy: the pipelines of if and with, and the operands of and, or and
// not.
func rewriteConditions(n parse.Node) {
	switch x := n.(type) {
	case *parse.ListNode:
		if x == nil {
			return
		}
		for _, c := range x.Nodes {
			rewriteConditions(c)
		}
	case *parse.IfNode:
		x.Pipe = truthyPipe(x.Pipe)
		rewriteConditions(x.List)
		rewriteConditions(x.ElseList)
	case *parse.WithNode:
		x.Pipe = truthyPipe(x.Pipe)
		rewriteConditions(x.List)
		rewriteConditions(x.ElseList)
	case *parse.RangeNode:
		rewritePipe(x.Pipe)
		rewriteConditions(x.List)
		rewriteConditions(x.ElseList)
	case *parse.ActionNode:
		rewritePipe(x.Pipe)
	case *parse.TemplateNode:
		rewritePipe(x.Pipe)
	}
}

// rewritePipe wraps the operands of and, or and not inside a pipeline.
func rewritePipe(p *parse.PipeNode) {
	if p == nil {
		return
	}
	for _, cmd := range p.Cmds {
		for _, a := range cmd.Args {
			if sub, ok := a.(*parse.PipeNode); ok {
				rewritePipe(sub)
			}
		}
		if len(cmd.Args) == 0 {
			continue
		}
		id, ok := cmd.Args[0].(*parse.IdentifierNode)
		if !ok || (id.Ident != "and" && id.Ident != "or" && id.Ident != "not") {
			continue
		}
		for i, a := range cmd.Args[1:] {
			cmd.Args[i+1] = truthyCall(a)
		}
	}
}

// truthyPipe turns `P` into `P | truthy`; with a declaration
// (`$x := P`) the variable then holds the value when it is true.
func truthyPipe(p *parse.PipeNode) *parse.PipeNode {
	if p == nil {
		return p
	}
	rewritePipe(p)
	p.Cmds = append(p.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: p.Pos, Args: []parse.Node{truthyIdent(p.Pos)}})
	return p
}

func truthyCall(a parse.Node) parse.Node {
	inner := a
	if _, isPipe := a.(*parse.PipeNode); !isPipe {
		inner = &parse.PipeNode{NodeType: parse.NodePipe, Pos: a.Position(), Cmds: []*parse.CommandNode{{
			NodeType: parse.NodeCommand, Pos: a.Position(), Args: []parse.Node{a},
		}}}
	}
	return &parse.PipeNode{NodeType: parse.NodePipe, Pos: a.Position(), Cmds: []*parse.CommandNode{{
		NodeType: parse.NodeCommand, Pos: a.Position(),
		Args: []parse.Node{truthyIdent(a.Position()), inner},
	}}}
}

func truthyIdent(pos parse.Pos) *parse.IdentifierNode {
	id := parse.NewIdentifier("truthy")
	id.Pos = pos
	return id
}

// truthy is v, or false when v is a number equal to zero: the API's
// numbers arrive as json.Number, which text/template would take as a
// non-empty string.
func truthy(v any) any {
	if r, ok := number(v); ok && r.Sign() == 0 {
		return false
	}
	return v
}

// number reads v as an exact rational when it is a number.
func number(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case json.Number:
		r, ok := new(big.Rat).SetString(string(x))
		return r, ok
	case nil, string, bool:
		return nil, false
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return new(big.Rat).SetInt64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return new(big.Rat).SetInt(new(big.Int).SetUint64(rv.Uint())), true
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(f), true
	}
	return nil, false
}

// compare orders a and b: numbers by value (any mix of json.Number, ints
// and floats), strings by bytes. ordered is false for values that are
// equal-comparable only (booleans, nil).
func compare(a, b any) (c int, ordered bool, err error) {
	x, aNum := number(a)
	y, bNum := number(b)
	switch {
	case aNum && bNum:
		return x.Cmp(y), true, nil
	case aNum != bNum && a != nil && b != nil:
		// A number is not text: "10" < "5" as text would silently be
		// the wrong answer.
		return 0, false, fmt.Errorf("cannot compare %s with %s", describeValue(a), describeValue(b))
	}
	av, bv := reflect.ValueOf(a), reflect.ValueOf(b)
	switch {
	case !av.IsValid() || !bv.IsValid():
		if !av.IsValid() && !bv.IsValid() {
			return 0, false, nil
		}
		return 1, false, nil
	case av.Kind() == reflect.String && bv.Kind() == reflect.String:
		x, y := av.String(), bv.String()
		switch {
		case x < y:
			return -1, true, nil
		case x > y:
			return 1, true, nil
		}
		return 0, true, nil
	case av.Kind() == reflect.Bool && bv.Kind() == reflect.Bool:
		if av.Bool() == bv.Bool() {
			return 0, false, nil
		}
		return 1, false, nil
	}
	return 0, false, fmt.Errorf("cannot compare %s with %s", describeValue(a), describeValue(b))
}

func describeValue(v any) string {
	switch v.(type) {
	case nil:
		return "nothing (null)"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return fmt.Sprintf("the text %q", v)
	}
	if _, ok := number(v); ok {
		return "the number " + fmt.Sprint(v)
	}
	return fmt.Sprintf("%T", v)
}

func eqFunc(a any, bs ...any) (bool, error) {
	if len(bs) == 0 {
		return false, fmt.Errorf("eq needs at least two values")
	}
	for _, b := range bs {
		c, _, err := compare(a, b)
		if err != nil {
			return false, err
		}
		if c == 0 {
			return true, nil
		}
	}
	return false, nil
}

func neFunc(a, b any) (bool, error) {
	eq, err := eqFunc(a, b)
	return !eq, err
}

func order(op string, a, b any, ok func(int) bool) (bool, error) {
	c, ordered, err := compare(a, b)
	if err != nil {
		return false, err
	}
	if !ordered {
		return false, fmt.Errorf("%s: %s and %s have no order", op, describeValue(a), describeValue(b))
	}
	return ok(c), nil
}

func ltFunc(a, b any) (bool, error) { return order("lt", a, b, func(c int) bool { return c < 0 }) }
func leFunc(a, b any) (bool, error) { return order("le", a, b, func(c int) bool { return c <= 0 }) }
func gtFunc(a, b any) (bool, error) { return order("gt", a, b, func(c int) bool { return c > 0 }) }
func geFunc(a, b any) (bool, error) { return order("ge", a, b, func(c int) bool { return c >= 0 }) }
