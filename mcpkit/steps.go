package mcpkit

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Step is one operation of a composed tool.
type Step struct {
	Name string
	// ForEach is a reference to a list; the step runs once per element,
	// bound to .item.
	ForEach string
	// IdempotencyKey sends the quote id as the Idempotency-Key header.
	IdempotencyKey bool
	// ReadOnly steps may be retried; writes never are once sent.
	ReadOnly bool
	Security [][]string
	// Build makes the step's request from the scope.
	Build func(c *Call, s *Scope) *Request
}

// Scope is what a composed tool's bindings and templates see: .args,
// .context, .quote (id, expires_at, args, body), .steps.<name> (body,
// status, items) and, in a for_each step, .item.
type Scope struct {
	c    *Call
	data map[string]any
	// preflight: bindings that read other steps' results are skipped (see
	// Call.preflight).
	preflight bool
}

var singleRef = regexp.MustCompile(`^\{\{-?\s*((?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*-?\}\}$`)

var templates sync.Map // template text → *template.Template

func cachedTemplate(text string) (*template.Template, error) {
	if t, ok := templates.Load(text); ok {
		return t.(*template.Template), nil
	}
	t, err := ParseTemplate("binding", text)
	if err != nil {
		return nil, err
	}
	templates.Store(text, t)
	return t, nil
}

// Value evaluates a binding. One reference ("{{.quote.body.amount}}") keeps
// the value's JSON type; anything else renders as text. A reference to
// something absent (or null) leaves the argument unset. A binding that
// cannot be evaluated — a field read of something that is not an object,
// a template that fails — leaves it unset too and is recorded on the call:
// the step's request is then not sent (see Call.bindingFailed).
func (s *Scope) Value(text string) Value {
	if s.preflight && strings.Contains(text, ".steps") {
		return Value{}
	}
	if m := singleRef.FindStringSubmatch(strings.TrimSpace(text)); m != nil {
		var cur any = s.data
		path := ""
		for _, id := range strings.Split(strings.TrimPrefix(m[1], "."), ".") {
			if cur == nil {
				return Value{}
			}
			obj, ok := cur.(map[string]any)
			if !ok {
				s.c.bindingFailed(text, fmt.Errorf("%s is %s, not an object with a field %q", orDot(path), describeValue(cur), id))
				return Value{}
			}
			if cur, ok = obj[id]; !ok {
				return Value{}
			}
			path += "." + id
		}
		return Value{V: cur, Set: cur != nil}
	}
	t, err := cachedTemplate(text)
	if err != nil {
		s.c.bindingFailed(text, err)
		return Value{}
	}
	var buf bytes.Buffer
	if err := executeTemplate(t, &buf, s.data); err != nil {
		s.c.bindingFailed(text, errors.New(templateError(err)))
		return Value{}
	}
	return Value{V: buf.String(), Set: true}
}

func orDot(path string) string {
	if path == "" {
		return "."
	}
	return path
}

// bindingFailed records the first binding of the call that could not be
// evaluated; RunSteps stops before sending the request that needed it.
func (c *Call) bindingFailed(text string, err error) {
	if c.bindErr == nil {
		c.bindErr = fmt.Errorf("%s: %v", strings.TrimSpace(text), err)
	}
}

// effect is a step call that took effect, for messages and the audit log.
type effect struct {
	Step    string   `json:"step"`
	Method  string   `json:"method"`
	Path    string   `json:"path"`
	Status  int      `json:"status"`
	Created []string `json:"created,omitempty"`
}

// RunSteps runs a composed tool: for a confirm tool it first checks the
// quote, asks for approval and consumes the quote; then each step in order.
// A failed step stops the run; the result says which steps took effect.
func (c *Call) RunSteps() *mcp.CallToolResult {
	t := c.tool
	s := &Scope{c: c, data: map[string]any{"args": c.args, "context": c.contextValues()}}
	if t.Confirms != "" {
		q, res := c.takeQuote(s)
		if res != nil {
			return res
		}
		c.audit.Quote = q
	} else if res := c.preflight(s); res != nil {
		return res
	}
	stepsData := map[string]any{}
	s.data["steps"] = stepsData
	var done []effect
	for i, st := range t.Steps {
		items := []any{nil}
		if st.ForEach != "" {
			list, _ := s.Value(st.ForEach).V.([]any)
			items = list
		}
		var bodies []any
		var last response
		for j, item := range items {
			if st.ForEach != "" {
				s.data["item"] = item
			}
			r := st.Build(c, s)
			r.readOnly, r.idempotent, r.security = st.ReadOnly, st.ReadOnly, st.Security
			if st.IdempotencyKey {
				if q, ok := s.data["quote"].(map[string]any); ok {
					key := fmt.Sprint(q["id"])
					if st.ForEach != "" {
						key += fmt.Sprintf("-%d", j)
					}
					r.header["Idempotency-Key"] = key
				}
			}
			if c.missing != nil {
				return c.partial(done, st, i, c.missingContext())
			}
			if c.bindErr != nil {
				c.kit.log.Error("step binding failed; its request was not sent", "tool", t.Name, "step", st.Name, "error", c.redact(c.bindErr.Error()))
				return c.partial(done, st, i, errorResult(c.say("step_not_built", M{"step": st.Name, "problem": c.bindErr.Error()})))
			}
			if r.err != nil {
				return c.partial(done, st, i, errorResult(c.say("step_not_built", M{"step": st.Name, "problem": r.err.Error()})))
			}
			c.step = st.Name
			resp := c.send(r)
			c.audit.Steps = append(c.audit.Steps, auditStep{Step: st.Name, Method: r.Method, Path: r.template, Status: resp.status})
			if resp.err != nil || resp.status < 200 || resp.status > 299 {
				return c.partial(done, st, i, c.failure(r, resp))
			}
			body, _, fail := c.readBody(r, resp, false)
			if fail != nil {
				return c.partial(done, st, i, fail)
			}
			bodies = append(bodies, body)
			path, _ := r.expandPath()
			e := effect{Step: st.Name, Method: r.Method, Path: path, Status: resp.status}
			if !st.ReadOnly {
				e.Created = createdIDs(body, r)
				c.audit.Created = append(c.audit.Created, e.Created...)
			}
			done = append(done, e)
			last = resp
		}
		entry := map[string]any{"items": bodies, "status": last.status}
		if len(bodies) > 0 {
			entry["body"] = bodies[len(bodies)-1]
		}
		stepsData[st.Name] = entry
	}
	delete(s.data, "item")
	return c.composedResult(s, stepsData, done)
}

// composedResult renders the overlay's text (or a summary) and the steps'
// responses.
func (c *Call) composedResult(s *Scope, stepsData map[string]any, done []effect) *mcp.CallToolResult {
	t := c.tool
	structured := map[string]any{}
	for name, e := range stepsData {
		entry := e.(map[string]any)
		var v any = entry["body"]
		for _, st := range t.Steps {
			if st.Name == name && st.ForEach != "" {
				v = entry["items"]
			}
		}
		structured[name] = v
	}
	var content []mcp.Content
	rendered := false
	if t.Text != "" {
		tm, err := cachedTemplate(t.Text)
		var buf bytes.Buffer
		if err == nil {
			err = executeTemplate(tm, &buf, s.data)
		}
		if err == nil {
			content = append(content, &mcp.TextContent{Text: strings.TrimSpace(buf.String())})
			rendered = true
		} else {
			// The steps ran: the model is told what they did, that the
			// summary failed, and gets the data below.
			c.kit.log.Error("result template failed", "tool", t.Name, "error", c.redact(err.Error()))
			content = append(content, &mcp.TextContent{Text: c.say("result_text_failed", M{"error": templateError(err)})})
		}
	}
	if !rendered {
		content = append(content, &mcp.TextContent{Text: c.say("steps_done", M{"done": describeEffects(done)})})
	}
	limit := c.resultLimit()
	v, cuts := fit(any(structured), limit)
	if cuts != "" {
		content = append(content, &mcp.TextContent{Text: c.say("result_trimmed", M{"limit": limit, "cuts": cuts})})
	}
	content = append(content, &mcp.TextContent{Text: jsonText(v)})
	return &mcp.CallToolResult{Content: content, StructuredContent: v}
}

// partial reports a failed step: what had taken effect, what failed, and
// what did not run.
func (c *Call) partial(done []effect, failed Step, index int, failure *mcp.CallToolResult) *mcp.CallToolResult {
	t := c.tool
	reason := strings.TrimSpace(textOf(failure))
	var notRun []string
	for _, st := range t.Steps[index+1:] {
		notRun = append(notRun, st.Name)
	}
	c.audit.Failed = failed.Name
	if len(done) == 0 {
		return errorResult(c.say("steps_none_done", M{"step": failed.Name, "reason": reason}))
	}
	return errorResult(c.say("steps_partly_done", M{"step": failed.Name, "reason": reason, "done": describeEffects(done),
		"not_run": strings.Join(notRun, ", "), "quote": t.Confirms != ""}))
}

func textOf(res *mcp.CallToolResult) string {
	var parts []string
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, " ")
}

func describeEffects(done []effect) string {
	var parts []string
	for _, e := range done {
		s := fmt.Sprintf("%s (%s %s → %d", e.Step, e.Method, e.Path, e.Status)
		if len(e.Created) > 0 {
			s += ", created " + strings.Join(e.Created, ", ")
		}
		parts = append(parts, s+")")
	}
	if len(parts) == 0 {
		return "no step had anything to do"
	}
	return strings.Join(parts, ", ")
}

// createdIDs lists the ids a write returned that its request did not
// already name (top-level fields named id or ending in _id), for the audit
// log and messages: the refund id, not the order id.
func createdIDs(body any, r *Request) []string {
	m, ok := body.(map[string]any)
	if !ok {
		return nil
	}
	path, _ := r.expandPath()
	sent := path + "?" + r.query.Encode() + "\x00" + string(r.body)
	var out []string
	for _, k := range sortedKeys(m) {
		if k == "id" || strings.HasSuffix(k, "_id") {
			if s, ok := m[k].(string); ok && s != "" && !strings.Contains(sent, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// takeQuote loads and checks the quote a confirm tool was given, asks for
// approval, and consumes the quote. A nil result means: go on.
func (c *Call) takeQuote(s *Scope) (*Quote, *mcp.CallToolResult) {
	t := c.tool
	id, _ := c.args["quote_id"].(string)
	id = strings.TrimSpace(id)
	store := c.kit.quotes
	q, err := store.Load(c.ctx, id)
	now := c.kit.now()
	switch {
	case errors.Is(err, ErrQuoteNotFound):
		return nil, errorResult(c.say("quote_unknown", M{"id": id, "quote_tool": t.Confirms}))
	case err != nil:
		c.kit.log.Error("quote store failed", "tool", t.Name, "error", err.Error())
		return nil, errorResult(c.say("quote_unreadable", nil))
	case q.Identity != c.identity():
		return nil, errorResult(c.say("quote_other_caller", M{"id": id, "quote_tool": t.Confirms}))
	case q.Tool != t.Confirms:
		return nil, errorResult(c.say("quote_wrong_tool", M{"id": id, "made_by": q.Tool, "quote_tool": t.Confirms}))
	case q.Used:
		return nil, errorResult(c.say("quote_used", M{"id": id, "used_at": q.UsedAt.UTC().Format("15:04:05 UTC")}))
	case now.After(q.Expires):
		return nil, errorResult(c.say("quote_expired", M{"id": id, "expires_at": q.Expires.UTC().Format("15:04:05 UTC"), "quote_tool": t.Confirms}))
	}
	s.data["quote"] = map[string]any{"id": q.ID, "expires_at": q.Expires.UTC().Format(time.RFC3339), "args": q.Args, "body": q.Body}
	if res := c.preflight(s); res != nil {
		return nil, res
	}
	if t.Approval != nil {
		if res := c.approve(s, q); res != nil {
			return nil, res
		}
	}
	if err := store.Consume(c.ctx, id, now); err != nil {
		if errors.Is(err, ErrQuoteUsed) {
			return nil, errorResult(c.say("quote_taken", M{"id": id}))
		}
		return nil, errorResult(c.say("quote_not_consumed", nil))
	}
	return q, nil
}

// approve asks the person through MCP elicitation; nil means approved. The
// handler returns an input request; go-sdk gets the answer (from a client
// that speaks multi-round-trip, or by eliciting on the session for older
// clients) and calls the handler again with it.
func (c *Call) approve(s *Scope, q *Quote) *mcp.CallToolResult {
	t := c.tool
	msg := c.approvalQuestion(s, q)
	c.audit.Approval = "asked"
	if c.req != nil && c.req.Params != nil {
		if resp, ok := c.req.Params.InputResponses["approval"]; ok {
			er, _ := resp.(*mcp.ElicitResult)
			action := ""
			if er != nil {
				action = er.Action
			}
			c.audit.Approval = action
			switch action {
			case "accept":
				return nil
			case "decline":
				return errorResult(c.say("approval_declined", M{"question": msg, "id": q.ID, "expires_at": q.Expires.UTC().Format("15:04 UTC")}))
			default:
				return errorResult(c.say("approval_dismissed", M{"id": q.ID, "expires_at": q.Expires.UTC().Format("15:04 UTC")}))
			}
		}
	}
	if !c.canElicit() {
		if t.Approval.Proceed {
			c.audit.Approval = "not asked: the client cannot elicit; the overlay allows proceeding"
			return nil
		}
		c.audit.Approval = "refused: the client cannot elicit"
		return errorResult(c.say("approval_unavailable", M{"question": msg}))
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
		"approval": &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}},
	}}
}

// approvalQuestion renders the overlay's approval message. If it fails, the
// person is still asked, with the quoted values spelled out: they never see
// template source, and are never asked about nothing.
func (c *Call) approvalQuestion(s *Scope, q *Quote) string {
	t := c.tool
	tm, err := cachedTemplate(t.Approval.Message)
	var buf bytes.Buffer
	if err == nil {
		err = executeTemplate(tm, &buf, s.data)
	}
	if err == nil {
		return strings.TrimSpace(buf.String())
	}
	c.kit.log.Error("approval message template failed; asking with the quoted values instead", "tool", t.Name, "error", c.redact(err.Error()))
	return c.say("approval_question", M{"id": q.ID, "quote": jsonText(q.Body)})
}

func (c *Call) canElicit() bool {
	if c.req == nil || c.req.Session == nil {
		return false
	}
	p := c.req.Session.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// saveQuote stores the result of a quote tool and returns what the model
// and the result text see of it.
func (c *Call) saveQuote(body any) (map[string]any, error) {
	t := c.tool
	now := c.kit.now()
	ttl := time.Duration(t.Quote.TTLSeconds) * time.Second
	if c.kit.cfg.QuoteTTL > 0 {
		ttl = c.kit.cfg.QuoteTTL
	}
	q := &Quote{ID: newQuoteID(), Tool: t.Name, Args: c.args, Body: body, Identity: c.identity(), Created: now, Expires: now.Add(ttl)}
	if err := c.kit.quotes.Save(c.ctx, q); err != nil {
		return nil, err
	}
	c.audit.Quote = q
	return map[string]any{"id": q.ID, "expires_at": q.Expires.UTC().Format(time.RFC3339)}, nil
}

// preflight builds every step's requests that do not depend on an earlier
// step's result, without sending anything, so that a binding that cannot
// be evaluated (or a missing context value) stops the tool before its
// first request rather than after its first writes. A binding that reads
// .steps is checked when its step runs.
func (c *Call) preflight(s *Scope) *mcp.CallToolResult {
	s.preflight = true
	defer func() {
		s.preflight = false
		delete(s.data, "item")
	}()
	for _, st := range c.tool.Steps {
		items := []any{nil}
		if st.ForEach != "" {
			if strings.Contains(st.ForEach, ".steps") {
				continue
			}
			list, ok := s.Value(st.ForEach).V.([]any)
			if !ok {
				list = nil
			}
			items = list
		}
		for _, item := range items {
			if st.ForEach != "" {
				s.data["item"] = item
			}
			st.Build(c, s)
			if c.missing != nil {
				return c.missingContext()
			}
			if c.bindErr != nil {
				c.kit.log.Error("step binding failed; nothing was sent", "tool", c.tool.Name, "step", st.Name, "error", c.redact(c.bindErr.Error()))
				return errorResult(c.say("steps_none_done", M{"step": st.Name,
					"reason": c.say("step_not_built", M{"step": st.Name, "problem": c.bindErr.Error()})}))
			}
		}
	}
	return nil
}
