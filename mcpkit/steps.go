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

	"github.com/tailormcp/tailor/internal/jsonv"
	"github.com/tailormcp/tailor/mcpkit/quotestore"
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
	// Request builds the step's request from the scope.
	Request func(c *Call, s *Scope) *Request
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
	// unread names the steps whose writes took effect in an earlier run
	// but whose answers could not be read: a binding that reads one fails.
	unread map[string]bool
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
	for step := range s.unread {
		if readsStep(text, step) {
			s.c.bindingFailed(text, &unreadAnswerError{step: step})
			return Value{}
		}
	}
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
		c.bindErr = fmt.Errorf("%s: %w", strings.TrimSpace(text), err)
	}
}

// unreadAnswerError: a binding reads the answer of a write that took effect
// in an earlier run but whose answer could not be read. The write is not
// sent again, so the value will never be known: the run cannot finish.
type unreadAnswerError struct{ step string }

func (e *unreadAnswerError) Error() string {
	return fmt.Sprintf("it reads the answer of step %s, which took effect but whose answer could not be read", e.step)
}

// readsStep reports whether a binding refers to .steps.<step>.
func readsStep(text, step string) bool {
	ref := ".steps." + step
	for i := strings.Index(text, ref); i >= 0; {
		end := i + len(ref)
		if end == len(text) || !isIdentByte(text[end]) {
			return true
		}
		next := strings.Index(text[end:], ref)
		if next < 0 {
			break
		}
		i = end + next
	}
	return false
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// RunSteps runs a composed tool's steps in order, after the preflight (see
// Call.preflight). A failed step stops the run; the result says which
// writes took effect, which may have, and which did not run.
//
// A confirm tool runs its steps through its quote instead (TakeQuote,
// then Preflight, Reserve and Run, see Confirmation): RunSteps refuses to
// run them without it.
func (c *Call) RunSteps() *mcp.CallToolResult {
	if c.tool.Confirms != "" {
		c.logger().Error("a confirm tool's handler called RunSteps; it takes its quote first (TakeQuote)", "tool", c.tool.Name)
		return errorResult(c.say("internal_error", nil))
	}
	s := c.newScope()
	run := &stepRun{c: c, s: s, prior: map[string]quotestore.CallOutcome{}}
	if i, problem := c.preflight(s); problem != "" {
		return run.stopped(i, 0, 1, outcomeNotSent, problem)
	}
	res, complete := run.run()
	run.settle(complete)
	return res
}

// newScope is what the call's bindings and templates see before any step
// ran: its arguments and context values.
func (c *Call) newScope() *Scope {
	return &Scope{c: c, data: map[string]any{"args": c.args, "context": c.contextValues()}, unread: map[string]bool{}}
}

// stepRun is one run of a composed tool's steps.
type stepRun struct {
	c     *Call
	s     *Scope
	lease *lease
	// prior are the write calls of an earlier, stopped run of the quote.
	prior map[string]quotestore.CallOutcome
	// calls are the write calls that took effect or may have, earlier
	// runs' included, in order.
	calls []quotestore.CallOutcome
	// reads names the read-only steps that ran.
	reads []string
}

func callKey(step string, item int) string { return fmt.Sprintf("%s#%d", step, item) }

// run performs the steps; complete is false when one failed. The caller
// has run the preflight.
func (r *stepRun) run() (res *mcp.CallToolResult, complete bool) {
	c, s, t := r.c, r.s, r.c.tool
	stepsData := map[string]any{}
	s.data["steps"] = stepsData
	for i, st := range t.Steps {
		items := []any{nil}
		if st.ForEach != "" {
			list, problem := c.forEach(s, st)
			if problem != "" {
				return r.stopped(i, 0, 1, outcomeNotSent, problem), false
			}
			items = list
		}
		var bodies []any
		status := 0
		for j, item := range items {
			if st.ForEach != "" {
				s.data["item"] = item
			}
			prev, seen := r.prior[callKey(st.Name, j)]
			if seen && prev.Outcome == quotestore.OutcomeDone {
				r.calls = append(r.calls, prev)
				bodies = append(bodies, prev.Body)
				status = prev.Status
				if prev.Unread != "" {
					s.unread[st.Name] = true
				}
				continue
			}
			req := st.Request(c, s)
			req.readOnly, req.idempotent, req.security = st.ReadOnly, st.ReadOnly, st.Security
			if st.IdempotencyKey {
				if q, ok := s.data["quote"].(map[string]any); ok {
					key := fmt.Sprint(q["id"])
					if st.ForEach != "" {
						key += fmt.Sprintf("-%d", j)
					}
					req.header["Idempotency-Key"] = key
				}
			}
			if c.missing != nil {
				return r.stopped(i, j, len(items), outcomeNotSent, textOf(c.missingContext())), false
			}
			if c.bindErr != nil {
				c.logger().Error("step binding failed; its request was not sent", "tool", t.Name, "step", st.Name, "error", c.redact(c.bindErr.Error()))
				outcome := outcomeNotSent
				if errors.As(c.bindErr, new(*unreadAnswerError)) {
					outcome = outcomeHeld
				}
				return r.stopped(i, j, len(items), outcome, c.say("step_not_built", M{"step": st.Name, "problem": c.bindErr.Error()})), false
			}
			if req.err != nil {
				return r.stopped(i, j, len(items), outcomeNotSent, c.say("step_not_built", M{"step": st.Name, "problem": req.err.Error()})), false
			}
			if seen {
				// Its outcome is unknown: sent again only where that is safe,
				// with the key it was first sent with.
				if prev.IdempotencyKey != "" {
					setIdempotencyKey(req, prev.IdempotencyKey)
				}
				if !safeToRepeat(req) {
					r.calls = append(r.calls, prev)
					return r.stopped(i, j, len(items), outcomeHeld, c.say("step_unknown_not_resent", M{"step": st.Name, "method": req.Method})), false
				}
			}
			if !st.ReadOnly {
				if res := r.checkpoint(i, j, len(items), req); res != nil {
					return res, false
				}
			}
			c.step = st.Name
			resp := c.send(req)
			outcome := quotestore.OutcomeDone
			if resp.err != nil || resp.status < 200 || resp.status > 299 {
				outcome = failedOutcome(resp)
				if st.ReadOnly && outcome == quotestore.OutcomeUnknown {
					outcome = outcomeRefused
				}
			}
			var body any
			var bad *badAnswer
			if outcome == quotestore.OutcomeDone {
				if body, _, bad = c.readBody(req, resp, false); bad != nil {
					// A 2xx: a write took effect, only its answer is lost; a
					// read did nothing worth keeping.
					outcome = outcomeUnread
					if st.ReadOnly {
						outcome = outcomeRefused
					}
				}
			}
			c.audit.Steps = append(c.audit.Steps, auditStep{Step: st.Name, Method: req.Method, Path: req.template, Status: resp.status, Outcome: outcome})
			_, key := idempotencyHeader(req)
			switch {
			case outcome == outcomeUnread:
				// Never sent again: not in this run, not on resumption.
				r.calls = append(r.calls, quotestore.CallOutcome{Step: st.Name, Item: j, Outcome: quotestore.OutcomeDone, Status: resp.status, Unread: bad.f["problem"].(string), IdempotencyKey: key})
				f := M{"step": st.Name, "status": bad.f["status"], "problem": bad.f["problem"], "excerpt": bad.f["excerpt"]}
				if i == len(t.Steps)-1 && j == len(items)-1 {
					// Nothing is left to run: the run is complete, and says
					// what it cannot know.
					f["done"] = r.summary()
					return errorResult(c.say("steps_done_unreadable", f)), true
				}
				if f["blocked"] = c.needsAnswer(s, i+1, st.Name); f["blocked"] != "" {
					// A resumed run could not finish either: say so now.
					outcome = outcomeHeld
				}
				return r.stopped(i, j, len(items), outcome, c.say("step_answer_unreadable", f)), false
			case bad != nil:
				return r.stopped(i, j, len(items), outcome, c.say(bad.id, bad.f)), false
			case outcome == quotestore.OutcomeUnknown:
				r.calls = append(r.calls, quotestore.CallOutcome{Step: st.Name, Item: j, Outcome: quotestore.OutcomeUnknown, Status: resp.status, IdempotencyKey: key})
				return r.stopped(i, j, len(items), outcome, c.unknownOutcome(st, req, resp)), false
			case outcome != quotestore.OutcomeDone:
				return r.stopped(i, j, len(items), outcome, textOf(c.failure(req, resp))), false
			}
			bodies = append(bodies, body)
			status = resp.status
			if st.ReadOnly {
				continue
			}
			co := quotestore.CallOutcome{Step: st.Name, Item: j, Outcome: quotestore.OutcomeDone, Status: resp.status, Body: body, Created: createdIDs(body, req), IdempotencyKey: key}
			c.audit.Created = append(c.audit.Created, co.Created...)
			r.calls = append(r.calls, co)
		}
		if st.ReadOnly {
			r.reads = append(r.reads, st.Name)
		}
		entry := map[string]any{"items": bodies, "status": status}
		if len(bodies) > 0 {
			entry["body"] = bodies[len(bodies)-1]
		}
		stepsData[st.Name] = entry
	}
	delete(s.data, "item")
	return c.composedResult(s, stepsData, r), true
}

// needsAnswer names the first of the steps from the from-th on that reads
// step's answer, building their requests as the preflight does (nothing
// is sent), or returns "".
func (c *Call) needsAnswer(s *Scope, from int, step string) string {
	s.preflight = true
	s.unread[step] = true
	defer func() {
		s.preflight = false
		c.bindErr, c.missing = nil, nil
		delete(s.data, "item")
	}()
	for _, st := range c.tool.Steps[from:] {
		if readsStep(st.ForEach, step) {
			return st.Name
		}
		c.bindErr = nil
		s.data["item"] = nil
		st.Request(c, s)
		if errors.As(c.bindErr, new(*unreadAnswerError)) {
			return st.Name
		}
	}
	return ""
}

// forEach evaluates a step's for_each: a list, or why it is not one.
func (c *Call) forEach(s *Scope, st Step) ([]any, string) {
	v := s.Value(st.ForEach)
	if list, ok := v.V.([]any); ok {
		return list, ""
	}
	if c.bindErr != nil {
		return nil, c.say("step_not_built", M{"step": st.Name, "problem": c.bindErr.Error()})
	}
	got := "absent"
	if v.Set {
		got = jsonKind(v.V)
	}
	return nil, c.say("step_not_a_list", M{"step": st.Name, "list": strings.Trim(st.ForEach, "{} "), "got": got})
}

// preflight builds every step's requests that do not depend on an earlier
// step's result, without sending anything, so that a binding that cannot
// be evaluated, a for_each over something that is not a list, or a
// missing context value stops the tool before its first request rather
// than after its first writes (and, for a confirm tool, before the person
// is asked). A binding that reads .steps is checked when its step runs.
// It returns the failing step's index and why.
func (c *Call) preflight(s *Scope) (int, string) {
	s.preflight = true
	defer func() {
		s.preflight = false
		delete(s.data, "item")
	}()
	for i, st := range c.tool.Steps {
		items := []any{nil}
		if st.ForEach != "" {
			if strings.Contains(st.ForEach, ".steps") {
				continue
			}
			list, problem := c.forEach(s, st)
			if problem != "" {
				return i, problem
			}
			items = list
		}
		for _, item := range items {
			if st.ForEach != "" {
				s.data["item"] = item
			}
			st.Request(c, s)
			if c.missing != nil {
				return i, textOf(c.missingContext())
			}
			if c.bindErr != nil {
				c.logger().Error("step binding failed; nothing was sent", "tool", c.tool.Name, "step", st.Name, "error", c.redact(c.bindErr.Error()))
				return i, c.say("step_not_built", M{"step": st.Name, "problem": c.bindErr.Error()})
			}
		}
	}
	return 0, ""
}

// composedResult renders the overlay's text (or a summary) and the steps'
// responses.
func (c *Call) composedResult(s *Scope, stepsData map[string]any, r *stepRun) *mcp.CallToolResult {
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
			c.logger().Error("result template failed", "tool", t.Name, "error", c.redact(err.Error()))
			content = append(content, &mcp.TextContent{Text: c.say("result_text_failed", M{"error": templateError(err)})})
		}
	}
	if !rendered {
		content = append(content, &mcp.TextContent{Text: c.say("steps_done", M{"done": r.summary()})})
	}
	limit := c.resultLimit()
	v, cuts := fit(any(structured), limit)
	if cuts != "" {
		content = append(content, &mcp.TextContent{Text: c.say("result_trimmed", M{"limit": limit, "cuts": cuts})})
	}
	content = append(content, &mcp.TextContent{Text: jsonv.Text(v)})
	return &mcp.CallToolResult{Content: content, StructuredContent: v}
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

// createdIDs lists the ids a write returned that its request did not
// already name (top-level fields named id or ending in _id), for the audit
// log and messages: the new record's id, not the ids the request named.
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

// saveQuote stores the result of a quote tool and returns what the model
// and the result text see of it.
func (c *Call) saveQuote(body any) (map[string]any, error) {
	t := c.tool
	now := c.kit.now()
	ttl := time.Duration(t.Quote.TTLSeconds) * time.Second
	if c.kit.cfg.QuoteTTL > 0 {
		ttl = c.kit.cfg.QuoteTTL
	}
	identity, caller := c.owner()
	q := &quotestore.Quote{ID: newQuoteID(), Tool: t.Name, Args: c.args, Body: body, Identity: identity, Caller: caller, Created: now, Expires: now.Add(ttl)}
	if err := c.kit.quotes.Save(c.ctx, q); err != nil {
		return nil, err
	}
	c.audit.Quote = q
	return map[string]any{"id": q.ID, "expires_at": expiresAt(q)}, nil
}

// quoteNotSaved is the result of a quote tool whose quote was not stored.
func (c *Call) quoteNotSaved(err error) *mcp.CallToolResult {
	if errors.Is(err, quotestore.ErrCallerFull) {
		c.logger().Warn("quote refused: the caller holds as many open quotes as one caller may", "tool", c.tool.Name)
		return errorResult(c.say("quote_caller_full", nil))
	}
	if errors.Is(err, quotestore.ErrFull) {
		c.logger().Warn("quote refused: the quote store is full", "tool", c.tool.Name, "error", c.redact(err.Error()))
		return errorResult(c.say("quote_store_full", nil))
	}
	c.logger().Error("quote store failed", "tool", c.tool.Name, "error", c.redact(err.Error()))
	if errors.Is(err, quotestore.ErrUnavailable) {
		return errorResult(c.say("quote_not_stored_unreachable", nil))
	}
	return errorResult(c.say("quote_not_stored", nil))
}
