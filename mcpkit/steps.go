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
// something absent leaves the argument unset.
func (s *Scope) Value(text string) Value {
	if m := singleRef.FindStringSubmatch(strings.TrimSpace(text)); m != nil {
		var cur any = s.data
		for _, id := range strings.Split(strings.TrimPrefix(m[1], "."), ".") {
			obj, ok := cur.(map[string]any)
			if !ok {
				return Value{}
			}
			if cur, ok = obj[id]; !ok {
				return Value{}
			}
		}
		return Value{V: cur, Set: cur != nil}
	}
	t, err := cachedTemplate(text)
	if err != nil {
		return Value{}
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, s.data); err != nil {
		return Value{}
	}
	return Value{V: buf.String(), Set: true}
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
			if r.err != nil {
				return c.partial(done, st, i, errorResult(fmt.Sprintf("Step %s could not be built: %s. This is a problem in the tool's definition, not in your arguments.", st.Name, r.err)))
			}
			c.step = st.Name
			resp := c.send(r)
			c.audit.Steps = append(c.audit.Steps, auditStep{Step: st.Name, Method: r.Method, Path: r.template, Status: resp.status})
			if resp.err != nil || resp.status < 200 || resp.status > 299 {
				return c.partial(done, st, i, c.failure(r, resp))
			}
			var body any
			if v, _, ok := decodeJSON(resp.body); ok {
				body = v
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
	if t.Text != "" {
		if tm, err := cachedTemplate(t.Text); err == nil {
			var buf bytes.Buffer
			if err := tm.Execute(&buf, s.data); err == nil {
				content = append(content, &mcp.TextContent{Text: strings.TrimSpace(buf.String())})
			} else {
				c.kit.log.Error("result template failed", "tool", t.Name, "error", err.Error())
			}
		}
	}
	if len(content) == 0 {
		content = append(content, &mcp.TextContent{Text: "Done: " + describeEffects(done) + "."})
	}
	limit := t.MaxBytes
	if limit <= 0 {
		limit = c.kit.cfg.MaxResultBytes
	}
	v, note := fit(any(structured), limit)
	if note != "" {
		content = append(content, &mcp.TextContent{Text: note})
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
	var b strings.Builder
	if len(done) == 0 {
		fmt.Fprintf(&b, "Nothing was done: the first step, %s, failed. %s", failed.Name, reason)
	} else {
		fmt.Fprintf(&b, "Only part of %s was done. These steps took effect: %s. Then step %s failed", t.Name, describeEffects(done), failed.Name)
		if len(notRun) > 0 {
			fmt.Fprintf(&b, ", and the steps after it (%s) did not run", strings.Join(notRun, ", "))
		}
		fmt.Fprintf(&b, ". %s", reason)
		if t.Confirms != "" {
			fmt.Fprintf(&b, " The quote is used up: do not call %s again with it. Tell the user exactly what was and was not done.", t.Name)
		} else {
			b.WriteString(" Tell the user exactly what was and was not done before trying anything else.")
		}
	}
	c.audit.Failed = failed.Name
	return errorResult(b.String())
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
		return nil, errorResult(fmt.Sprintf("There is no quote %q. Quote ids come from %s; call it (it changes nothing) and use the quote_id it returns. Nothing was done.", id, t.Confirms))
	case err != nil:
		c.kit.log.Error("quote store failed", "tool", t.Name, "error", err.Error())
		return nil, errorResult("The quote could not be read (the server's quote store failed). Nothing was done; try again in a moment.")
	case q.Identity != c.identity():
		return nil, errorResult(fmt.Sprintf("Quote %s was made in another customer's session, so it cannot be used here. Nothing was done. Call %s for this customer and show them the amount.", id, t.Confirms))
	case q.Tool != t.Confirms:
		return nil, errorResult(fmt.Sprintf("%s is a quote of %s, not of %s. Nothing was done; call %s to get a quote for this action.", id, q.Tool, t.Confirms, t.Confirms))
	case q.Used:
		return nil, errorResult(fmt.Sprintf("Quote %s was already carried out (at %s) and cannot be used twice. Nothing more was done. Check the current state (e.g. the order's refunds) instead of retrying.", id, q.UsedAt.UTC().Format("15:04:05 UTC")))
	case now.After(q.Expires):
		return nil, errorResult(fmt.Sprintf("Quote %s expired at %s. Nothing was done. Call %s again, tell the customer the new amount, and carry out the new quote.", id, q.Expires.UTC().Format("15:04:05 UTC"), t.Confirms))
	}
	s.data["quote"] = map[string]any{"id": q.ID, "expires_at": q.Expires.UTC().Format(time.RFC3339), "args": q.Args, "body": q.Body}
	if t.Approval != nil {
		if res := c.approve(s, q); res != nil {
			return nil, res
		}
	}
	if err := store.Consume(c.ctx, id, now); err != nil {
		if errors.Is(err, ErrQuoteUsed) {
			return nil, errorResult(fmt.Sprintf("Quote %s was carried out by another call a moment ago and cannot be used twice. Nothing more was done.", id))
		}
		return nil, errorResult("The quote could not be consumed (the server's quote store failed). Nothing was done; try again in a moment.")
	}
	return q, nil
}

// approve asks the person through MCP elicitation; nil means approved. The
// handler returns an input request; go-sdk gets the answer (from a client
// that speaks multi-round-trip, or by eliciting on the session for older
// clients) and calls the handler again with it.
func (c *Call) approve(s *Scope, q *Quote) *mcp.CallToolResult {
	t := c.tool
	msg := t.Approval.Message
	if tm, err := cachedTemplate(msg); err == nil {
		var buf bytes.Buffer
		if tm.Execute(&buf, s.data) == nil {
			msg = strings.TrimSpace(buf.String())
		}
	}
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
				return errorResult(fmt.Sprintf("The user declined (%q). Nothing was done, and quote %s stays valid until %s. Ask the user what they want instead; do not retry without their agreement.", msg, q.ID, q.Expires.UTC().Format("15:04 UTC")))
			default:
				return errorResult(fmt.Sprintf("The user dismissed the approval request without answering. Nothing was done; quote %s stays valid until %s.", q.ID, q.Expires.UTC().Format("15:04 UTC")))
			}
		}
	}
	if !c.canElicit() {
		if t.Approval.Proceed {
			c.audit.Approval = "not asked: the client cannot elicit; the overlay allows proceeding"
			return nil
		}
		c.audit.Approval = "refused: the client cannot elicit"
		return errorResult(fmt.Sprintf("This action needs the user's explicit approval (%q), and this client cannot ask for it, so nothing was done. Tell the user it needs their approval in a client that supports it, or in the back office.", msg))
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
		"approval": &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}},
	}}
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
