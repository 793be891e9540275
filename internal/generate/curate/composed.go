package curate

import (
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/generate/tmplcheck"
)

// quote makes t a quote tool: its result is stored under a quote id, which
// the structured result and the text carry.
func (c *curator) quote(t *ir.Tool, ot *overlay.Tool) {
	t.Quote = &ir.QuoteSpec{TTLSeconds: ot.Quote.TTLSeconds, Hold: ot.Quote.Hold}
	if ot.Quote.Hold {
		// Nothing is sent: the quote is the arguments, checked against
		// the operation's schema, and the result says so.
		t.Annotations = ir.Annotations{ReadOnly: true, OpenWorld: false}
		t.OutputSchema = encodeSchema(map[string]any{"type": "object", "properties": map[string]any{
			"quote_id":         map[string]any{"type": "string", "description": "Id of the stored quote; pass it to the confirm tool to carry the quote out."},
			"quote_expires_at": map[string]any{"type": "string", "format": "date-time", "description": "When the quote stops being valid."},
			"args":             map[string]any{"type": "object", "description": "The arguments held: what the confirm tool sends."},
		}})
		return
	}
	if t.OutputSchema == nil {
		c.errorf(ot.Quote.Pos, "tool `%s`: a quote tool needs an operation that answers with JSON (the quote's values), and %s does not", ot.Name, describeOp(t))
		return
	}
	root, err := decodeSchema(t.OutputSchema)
	if err != nil {
		return
	}
	for _, f := range []string{"quote_id", "quote_expires_at"} {
		if _, clash := root.props[f]; clash {
			c.errorf(ot.Quote.Pos, "tool `%s`: the response already has a field `%s`, which the quote would shadow", ot.Name, f)
			return
		}
	}
	root.props["quote_id"] = map[string]any{"type": "string", "description": "Id of the stored quote; pass it to the confirm tool to carry the quote out."}
	root.props["quote_expires_at"] = map[string]any{"type": "string", "format": "date-time", "description": "When the quote stops being valid."}
	// Not required, like every field of an output schema (schema/output.go):
	// the server adds both to every quote, and a result that must fall back
	// to {} still validates.
	t.OutputSchema = encodeSchema(root.root)
}

// composed builds a tool whose steps call several operations.
func (c *curator) composed(ot *overlay.Tool) *ir.Tool {
	t := &ir.Tool{Name: ot.Name, Annotations: ir.Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true}}
	if ot.Title != nil {
		t.Title = *ot.Title
	}
	where := fmt.Sprintf("tool `%s`", ot.Name)

	// The tool's own arguments.
	var quoteTool *ir.Tool
	props := map[string]any{}
	var required []string
	if ot.Confirms != "" {
		quoteTool = c.curated[ot.Confirms]
		switch {
		case quoteTool == nil:
			names := make([]string, 0, len(c.curated))
			for n, ct := range c.curated {
				if ct.Quote != nil {
					names = append(names, n)
				}
			}
			sort.Strings(names)
			c.errorf(ot.ConfirmsPos, "%s confirms `%s`, which is not a tool of this overlay%s", where, ot.Confirms, diag.DidYouMean(ot.Confirms, names))
			return nil
		case quoteTool.Quote == nil:
			c.errorf(ot.ConfirmsPos, "%s confirms `%s`, which is not a quote tool: give `%s` a `quote:` entry", where, ot.Confirms, ot.Confirms)
			return nil
		}
		t.Confirms = ot.Confirms
		if quoteTool.Quote.ConfirmTool != "" {
			c.errorf(ot.ConfirmsPos, "%s confirms `%s`, which `%s` already confirms: a quote tool has one confirm tool", where, ot.Confirms, quoteTool.Quote.ConfirmTool)
		}
		quoteTool.Quote.ConfirmTool = ot.Name
		props["quote_id"] = map[string]any{"type": "string", "description": fmt.Sprintf("The quote_id that %s returned, for the quote the user agreed to. Nothing else can be passed: the values come from the quote.", ot.Confirms)}
		required = append(required, "quote_id")
	}
	for _, a := range ot.Args {
		if err := checkSchema(a.Schema); err != nil {
			c.errorf(a.Pos, "%s, argument `%s`: not a usable JSON Schema: %v", where, a.Name, err)
			continue
		}
		props[a.Name] = a.Schema
		if a.Required {
			required = append(required, a.Name)
		}
	}
	in := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		sort.Strings(required)
		in["required"] = required
	}
	t.InputSchema = encodeSchema(in)

	t.Approval = approvalOf(ot)

	// The steps, each checked against what is known before it runs.
	scope := c.stepScope(t, quoteTool)
	stepsSym := map[string]tmplcheck.Sym{}
	scope["steps"] = tmplcheck.Map("a step before this one", stepsSym)
	outProps := map[string]any{}
	var descr []string
	for _, st := range ot.Steps {
		raw := c.operation(st.Operation, st.OperationPos)
		if raw == nil || st.Name == "" {
			continue
		}
		step := &ir.Step{Name: st.Name, Call: copyTool(raw).Call, IdempotencyKey: st.IdempotencyKey}
		if t.Toolset == "" {
			t.Toolset = raw.Toolset
		}
		stepWhere := fmt.Sprintf("%s, step `%s`", where, st.Name)
		stepScope := tmplcheck.Scope{}
		for k, v := range scope {
			stepScope[k] = v
		}
		if st.ForEach != nil {
			step.ForEach = st.ForEach.S
			if !singleRef.MatchString(strings.TrimSpace(st.ForEach.S)) {
				c.errorf(st.ForEach.Pos, "%s: for_each must be one reference to a list, such as \"{{.quote.body.cancel_line_item_ids}}\"", stepWhere)
			} else {
				c.checkTemplate(st.ForEach, stepWhere+" for_each", stepScope)
			}
			stepScope["item"] = tmplcheck.Sym{}
		}
		if st.IdempotencyKey && t.Confirms == "" {
			c.errorf(st.Pos, "%s: idempotency_key sends the quote id, so it needs a confirm tool (`confirms:`)", stepWhere)
		}
		c.bindStep(step, raw, st, stepScope, stepWhere, props, quoteTool)
		t.Steps = append(t.Steps, step)

		a := raw.Annotations
		t.Annotations.ReadOnly = t.Annotations.ReadOnly && a.ReadOnly
		t.Annotations.Idempotent = t.Annotations.Idempotent && (a.Idempotent || a.ReadOnly)
		t.Annotations.Destructive = t.Annotations.Destructive || a.Destructive || raw.Call.Method == http.MethodDelete

		body := tmplcheck.Schema(raw.OutputSchema, true, raw.Call.Result.Wrap)
		stepSym := tmplcheck.Map(fmt.Sprintf("a field of step `%s` (body, status, items)", st.Name), map[string]tmplcheck.Sym{"body": body, "status": {}, "items": {}})
		stepsSym[st.Name] = stepSym
		outProps[st.Name] = map[string]any{"description": fmt.Sprintf("The response of step %s (%s %s)%s.", st.Name, raw.Call.Method, raw.Call.Path, map[bool]string{true: ", one per element", false: ""}[st.ForEach != nil])}
		descr = append(descr, fmt.Sprintf("%s %s", raw.Call.Method, raw.Call.Path))
	}
	if !t.Annotations.ReadOnly {
		// A write is not idempotent unless every step is.
		t.Annotations.ReadOnly = false
	}
	a := ot.Annotations
	for _, o := range []struct {
		dst *bool
		v   *bool
	}{{&t.Annotations.ReadOnly, a.ReadOnly}, {&t.Annotations.Destructive, a.Destructive}, {&t.Annotations.Idempotent, a.Idempotent}, {&t.Annotations.OpenWorld, a.OpenWorld}} {
		if o.v != nil {
			*o.dst = *o.v
		}
	}
	t.OutputSchema = encodeSchema(map[string]any{"type": "object", "properties": outProps})
	if ot.Description != nil {
		t.Description = *ot.Description
	} else {
		t.Description = "Calls, in order: " + strings.Join(descr, ", then ") + "."
	}

	// The result text and the approval message see every step.
	if ot.Result != nil {
		if len(ot.Result.Keep)+len(ot.Result.Drop) > 0 {
			c.errorf(ot.Result.Pos, "%s: keep and drop apply to one response; a composed tool's result is shaped by its text", where)
		}
		sh := &ir.Shape{MaxBytes: ot.Result.MaxBytes}
		if ot.Result.Text != nil {
			sh.Text = ot.Result.Text.S
			c.checkTemplate(ot.Result.Text, where+" result text", scope)
		}
		t.Shape = sh
	}
	if ot.Approval != nil && ot.Approval.Message.S != "" {
		approvalScope := c.stepScope(t, quoteTool)
		if t.Confirms == "" {
			// A tool that is not a confirm tool runs its first read-only
			// steps before asking: the question may show what they read.
			approvalScope["steps"] = tmplcheck.Map("a read-only step this tool starts with (the question is asked before any write)", leadingReads(ot, t, stepsSym))
		}
		c.checkTemplate(&ot.Approval.Message, where+" approval message", approvalScope)
	}
	c.errorRules(t, ot)
	return t
}

// stepScope is what a composed tool's templates see besides earlier steps.
func (c *curator) stepScope(t *ir.Tool, quoteTool *ir.Tool) tmplcheck.Scope {
	ctx := map[string]bool{}
	for n := range c.context {
		ctx[n] = true
	}
	s := tmplcheck.Scope{
		"args":    tmplcheck.Names("an argument of this tool", argNames(t)),
		"context": tmplcheck.Names("a context value (server.context)", ctx),
	}
	if quoteTool != nil {
		body := tmplcheck.Schema(quoteTool.OutputSchema, true, quoteTool.Call.Result.Wrap)
		if quoteTool.Quote != nil && quoteTool.Quote.Hold {
			// A held quote's body is what the server stored: the request
			// and the results of the quote tool's first reads.
			body = tmplcheck.Map("a field of the held quote (request, steps)", map[string]tmplcheck.Sym{
				"request": {}, "steps": tmplcheck.Map("a read the quote tool ran (reads:)", c.reads[quoteTool.Name]),
			})
		}
		s["quote"] = tmplcheck.Map("a field of the quote (id, expires_at, args, body)", map[string]tmplcheck.Sym{
			"id":         {},
			"expires_at": {},
			"args":       tmplcheck.Names("an argument of "+quoteTool.Name, argNames(quoteTool)),
			"body":       body,
		})
	}
	return s
}

// singleRef matches a template that is one field reference, whose value
// keeps its JSON type when bound.
var singleRef = regexp.MustCompile(`^\{\{-?\s*(\.[A-Za-z_][A-Za-z0-9_]*)+\s*-?\}\}$`)

var contextRef = regexp.MustCompile(`^\{\{\s*\.context\.([A-Za-z0-9_-]+)\s*\}\}$`)

// bindStep binds the step operation's arguments: explicitly under args,
// else implicitly to the tool's (or, for a confirm tool, the quote's)
// argument of the same name. A required argument left unbound is an error.
func (c *curator) bindStep(step *ir.Step, raw *ir.Tool, st *overlay.Step, scope tmplcheck.Scope, where string, toolArgs map[string]any, quoteTool *ir.Tool) {
	in, _ := decodeSchema(raw.InputSchema)
	slots, names := argRefs(step.Call)

	bound := map[string]ir.ValueSource{}
	for _, a := range st.Args {
		if _, ok := slots[a.Name]; !ok {
			c.errorf(a.Pos, "%s: %s has no parameter `%s`%s", where, describeOp(raw), a.Name, diag.DidYouMean(a.Name, names))
			continue
		}
		if a.Value == nil {
			continue
		}
		if s, isStr := a.Value.V.(string); isStr && strings.Contains(s, "{{") {
			if m := contextRef.FindStringSubmatch(strings.TrimSpace(s)); m != nil && c.context[m[1]] {
				bound[a.Name] = ir.ValueSource{Context: m[1]}
				continue
			}
			c.checkTemplate(&overlay.Text{S: s, Pos: a.Value.Pos}, fmt.Sprintf("%s, argument `%s`", where, a.Name), scope)
			bound[a.Name] = ir.ValueSource{Template: s}
			continue
		}
		if err := checkValue(in.root, in.props[a.Name], a.Value.V); err != nil {
			c.errorf(a.Value.Pos, "%s, argument `%s`: value does not fit the parameter's schema: %v", where, a.Name, err)
			continue
		}
		bound[a.Name] = ir.ValueSource{Fixed: encodeValue(a.Value.V)}
	}
	for _, n := range names {
		if _, ok := bound[n]; ok {
			continue
		}
		switch {
		case toolArgs[n] != nil:
			bound[n] = ir.ValueSource{Template: "{{.args." + n + "}}"}
		case quoteTool != nil && argNames(quoteTool)[n]:
			bound[n] = ir.ValueSource{Template: "{{.quote.args." + n + "}}"}
		case in.required[n]:
			c.errorf(st.Pos, "%s: %s requires `%s`; bind it under the step's args (e.g. `%s: \"{{.args.%s}}\"`)", where, describeOp(raw), n, n, n)
		}
	}
	for n, sl := range slots {
		src, ok := bound[n]
		switch {
		case sl.param != nil || sl.field != nil:
			sl.setArg("")
			sl.setSource(src)
		case ok:
			step.Call.Body.Arg = ""
			step.Call.Body.Source = src
		default:
			step.Call.Body.Arg = ""
		}
	}
}

// checkSchema checks that a declared argument schema compiles.
func checkSchema(s map[string]any) error {
	_, err := compile(s)
	return err
}

// approvalOf is the curated tool's approval, from the overlay's entry.
func approvalOf(ot *overlay.Tool) *ir.Approval {
	a := ot.Approval
	if a == nil {
		return nil
	}
	if a.Never {
		return &ir.Approval{Never: true}
	}
	return &ir.Approval{Message: a.Message.S, Proceed: a.WithoutElicitation == "proceed"}
}

// leadingReads are the symbols of the read-only steps a composed tool
// starts with, up to its first write or step over a list: what the
// runtime has read when it asks for approval.
func leadingReads(ot *overlay.Tool, t *ir.Tool, steps map[string]tmplcheck.Sym) map[string]tmplcheck.Sym {
	out := map[string]tmplcheck.Sym{}
	for i, st := range t.Steps {
		m := st.Call.Method
		if m != http.MethodGet && m != http.MethodHead || i >= len(ot.Steps) || ot.Steps[i].ForEach != nil {
			break
		}
		out[st.Name] = steps[st.Name]
	}
	return out
}
