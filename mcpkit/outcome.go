package mcpkit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/mcpkit/quotestore"
)

// What a composed tool's run did, call by call, and what it tells the
// model and keeps in the quote when it stops part-way: each write either
// took effect (2xx: also when its answer cannot be read, which stops the
// run but never makes the write "not done" or sends it again), has an
// unknown outcome (sent, then a timeout, a dropped connection or a 5xx),
// or did not take effect; reads never count.

// Outcomes of a call that did not take effect.
const (
	outcomeRefused = "refused"  // the API answered, refusing (3xx, 4xx)
	outcomeNotSent = "not sent" // nothing reached the API
	// outcomeHeld: unknown since an earlier run, and not safe to send
	// again; the run cannot finish it.
	outcomeHeld = "unknown, not sent again"
)

// outcomeUnread: a write answered 2xx (it took effect) with an answer that
// cannot be read; recorded as done, with CallOutcome.Unread saying why.
const outcomeUnread = "done, answer unreadable"

// failedOutcome classifies a write that did not answer 2xx.
func failedOutcome(resp response) string {
	switch {
	case resp.err != nil && !resp.sent:
		return outcomeNotSent
	case resp.err != nil, resp.status >= 500:
		return quotestore.OutcomeUnknown
	}
	return outcomeRefused
}

// unknownOutcome says why a sent write's outcome is unknown.
func (c *Call) unknownOutcome(st Step, r *Request, resp response) string {
	f := M{"step": st.Name}
	if resp.err == nil {
		if res := c.ruleFor(resp); res != nil {
			f["reason"] = strings.TrimSpace(textOf(res))
			return c.say("step_unknown_rule", f)
		}
		f["status"] = statusLine(resp.status)
		f["detail"] = strings.TrimRight(backendMessage(resp.body), ". ")
		return c.say("step_unknown_status", f)
	}
	switch {
	case isTimeout(resp.err):
		f["timeout"] = c.kit.cfg.Timeout.String()
		return c.say("step_unknown_timeout", f)
	case errors.Is(resp.err, context.Canceled):
		return c.say("step_unknown_cancelled", f)
	}
	return c.say("step_unknown_connection", f)
}

// idempotencyHeader returns the request's Idempotency-Key header, if any.
func idempotencyHeader(r *Request) (name, value string) {
	for k, v := range r.header {
		if strings.EqualFold(k, "Idempotency-Key") {
			return k, v
		}
	}
	return "", ""
}

func setIdempotencyKey(r *Request, key string) {
	name, _ := idempotencyHeader(r)
	if name == "" {
		name = "Idempotency-Key"
	}
	r.header[name] = key
}

// safeToRepeat: a request the API can receive twice without acting twice.
func safeToRepeat(r *Request) bool {
	if _, key := idempotencyHeader(r); key != "" {
		return true
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}

// allCalls are the write calls of this run and of earlier runs it did not
// get to (a run that stops early still reports what they did).
func (r *stepRun) allCalls() []quotestore.CallOutcome {
	calls := append([]quotestore.CallOutcome(nil), r.calls...)
	seen := map[string]bool{}
	for _, co := range calls {
		seen[callKey(co.Step, co.Item)] = true
	}
	if r.lease != nil && r.lease.quote.Progress != nil {
		for _, co := range r.lease.quote.Progress.Calls {
			if !seen[callKey(co.Step, co.Item)] {
				calls = append(calls, co)
			}
		}
	}
	return calls
}

// settle ends a confirm run's reservation: the quote is consumed when every
// step ran, released with its progress when some write took effect or may
// have, and released as it was otherwise.
func (r *stepRun) settle(complete bool) {
	l := r.lease
	if l == nil {
		return
	}
	c := r.c
	ctx := context.WithoutCancel(c.ctx)
	if complete {
		if err := c.kit.quotes.Consume(ctx, l.quote.ID, l.token, c.kit.now()); err != nil {
			c.logger().Error("quote could not be consumed after its run", "tool", c.tool.Name, "quote", l.quote.ID, "error", err.Error())
		} else {
			c.audit.Consumed = true
		}
		return
	}
	var p *quotestore.Progress
	if calls := r.allCalls(); len(calls) > 0 {
		p = &quotestore.Progress{Approved: l.approved, Calls: calls}
	}
	if err := c.kit.quotes.Release(ctx, l.quote.ID, l.token, p); err != nil {
		c.logger().Error("quote could not be released after its run", "tool", c.tool.Name, "quote", l.quote.ID, "error", err.Error())
	}
}

// stopped reports a run that stopped at item j (of n) of step i: which
// writes took effect, which may have, which did not run, why, and how to
// go on.
func (r *stepRun) stopped(i, j, n int, outcome, reason string) *mcp.CallToolResult {
	c, t := r.c, r.c.tool
	c.audit.Failed = t.Steps[i].Name
	var done, unknown []string
	for _, g := range groupCalls(r.allCalls()) {
		if g.outcome == quotestore.OutcomeDone {
			done = append(done, g.describe())
		} else {
			unknown = append(unknown, g.describe())
		}
	}
	var notRun []string
	if rest := n - j - 1; rest > 0 {
		notRun = append(notRun, fmt.Sprintf("%d more call(s) of step %s", rest, t.Steps[i].Name))
	}
	for _, st := range t.Steps[i+1:] {
		notRun = append(notRun, "step "+st.Name)
	}
	f := M{"step": t.Steps[i].Name, "reason": strings.TrimSpace(reason)}
	if len(done) == 0 && len(unknown) == 0 {
		if l := r.lease; l != nil && l.quote.Progress == nil {
			f["id"], f["expires_at"] = l.quote.ID, expiresAt(l.quote)
		}
		return errorResult(c.say("steps_none_done", f))
	}
	f["done"], f["unknown"], f["not_run"] = strings.Join(done, "; "), strings.Join(unknown, "; "), strings.Join(notRun, ", ")
	if r.lease != nil {
		f["id"] = r.lease.quote.ID
		f["resume"] = outcome != outcomeHeld
		f["wait"] = outcome == outcomeRefused || outcome == outcomeNotSent
	}
	return errorResult(c.say("steps_partly_done", f))
}

// callGroup is a step's calls with one outcome, for a message.
type callGroup struct {
	step, outcome string
	// unread: their answers could not be read.
	unread  bool
	calls   int
	created []string
}

func (g callGroup) describe() string {
	s := "step " + g.step
	if g.calls > 1 {
		s += fmt.Sprintf(" (%d calls)", g.calls)
	}
	if len(g.created) > 0 {
		s += ", created " + strings.Join(g.created, ", ")
	}
	if g.unread {
		s += " (its answer could not be read)"
	}
	return s
}

func groupCalls(calls []quotestore.CallOutcome) []callGroup {
	var out []callGroup
	for _, co := range calls {
		unread := co.Unread != ""
		if n := len(out); n > 0 && out[n-1].step == co.Step && out[n-1].outcome == co.Outcome && out[n-1].unread == unread {
			out[n-1].calls++
			out[n-1].created = append(out[n-1].created, co.Created...)
			continue
		}
		out = append(out, callGroup{step: co.Step, outcome: co.Outcome, unread: unread, calls: 1, created: append([]string(nil), co.Created...)})
	}
	return out
}

// summary names what a finished run did, for a tool without a text.
func (r *stepRun) summary() string {
	var parts []string
	for _, name := range r.reads {
		parts = append(parts, "read "+name)
	}
	for _, g := range groupCalls(r.calls) {
		parts = append(parts, g.describe())
	}
	if len(parts) == 0 {
		return "no step had anything to do"
	}
	return strings.Join(parts, "; ")
}
