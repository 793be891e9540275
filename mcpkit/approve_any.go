package mcpkit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/jsonv"
	"github.com/tailormcp/tailor/mcpkit/quotestore"
)

// Approval of any call: a tool that is not a confirm tool, with an
// approval (the overlay's, or the server-wide policy's, see
// approve_policy.go), asks the person before anything is sent.
//
// The question is held as a quote of its own ("a_…", tool
// "approval:<name>") with the call's arguments, their hash and the
// question, bound to the caller's identity, and reserved under a fresh
// nonce for the approval window. The call returns an input request whose
// signed state names that record, the tool, the session and caller, and
// the nonce (approval.go); the call that brings the answer goes on only
// when its state verifies, its arguments hash to the held ones, and its
// accept swaps the reservation away from the nonce and uses the record up
// (one atomic store step each): a replayed state, a state used for other
// arguments, from another session or caller, or after the window, runs
// nothing. A decline or a dismissal uses the record up too, and says that
// nothing was done.
//
// The message may read the call's arguments, its context values and, for
// a composed tool, the results of the read-only steps it starts with
// (.steps), which run before the question is asked.

// heldPrefix marks the quotes that hold an approval question.
const heldPrefix = "approval:"

// approveCall is the approval gate of a call: nil when the call may run,
// else the result to return (an input request, or why nothing was done).
func (c *Call) approveCall() *mcp.CallToolResult {
	t := c.tool
	if t.Confirms != "" {
		// A confirm tool asks through its quote (confirm.go).
		return nil
	}
	ap := c.approval()
	if ap == nil {
		return nil
	}
	if a, res := c.heldAnswer(); res != nil {
		return res
	} else if a != nil {
		return c.actOnAnswer(ap, a)
	}
	return c.askCall(ap)
}

// argsHash is a hash of the call's arguments as validated (numbers as
// written, keys sorted): what an approval is bound to.
func (c *Call) argsHash() string {
	sum := sha256.Sum256([]byte(jsonv.Text(anyMap(c.args))))
	return hex.EncodeToString(sum[:])
}

// heldAnswer reads the call's answer to an approval request. It returns
// nil, nil when the call carries none that counts (the person is then
// asked), or a result when the answer ends the call.
func (c *Call) heldAnswer() (*heldCall, *mcp.CallToolResult) {
	if c.req == nil || c.req.Params == nil {
		return nil, nil
	}
	p := c.req.Params
	if p.RequestState == "" && len(p.InputResponses) == 0 {
		return nil, nil
	}
	ignore := func(why string) (*heldCall, *mcp.CallToolResult) {
		c.audit.Ignored = why
		c.logger().Warn("approval answer ignored", "tool", c.tool.Name, "why", why)
		return nil, nil
	}
	if p.RequestState == "" {
		return ignore("inputResponses without a requestState")
	}
	claims, err := c.kit.states.verify(p.RequestState)
	switch {
	case errors.Is(err, errStateExpired):
		c.audit.Approval = "timed out"
		c.audit.Ignored = "requestState expired"
		return nil, errorResult(c.say("approval_call_timed_out", nil))
	case err != nil && c.kit.states.otherKey(p.RequestState):
		return ignore("requestState signed with another approval key")
	case err != nil:
		return ignore("requestState not issued by this server")
	case claims.Tool != c.tool.Name || !strings.HasPrefix(claims.Quote, "a_"):
		return ignore("requestState issued for another quote or tool")
	case claims.Bind != c.binding():
		return ignore("requestState issued to another session or caller")
	}
	q, err := c.kit.quotes.Load(c.ctx, claims.Quote)
	switch {
	case errors.Is(err, quotestore.ErrNotFound):
		return ignore("requestState already answered or lapsed")
	case err != nil:
		return nil, c.heldStoreFailed(err)
	case q.Tool != heldPrefix+c.tool.Name || q.Identity != c.identity():
		return ignore("requestState issued to another session or caller")
	case heldField(q, "args_sha256") != c.argsHash():
		return ignore("requestState issued for other arguments")
	case q.Used:
		return ignore("requestState already answered or lapsed")
	}
	h := &heldCall{quote: q, nonce: claims.Nonce, until: claims.Expiry.Time()}
	h.result, _ = p.InputResponses["approval"].(*mcp.ElicitResult)
	return h, nil
}

// heldCall is an answer to this call's approval request.
type heldCall struct {
	quote  *quotestore.Quote
	nonce  string
	until  time.Time
	result *mcp.ElicitResult
}

func heldField(q *quotestore.Quote, name string) string {
	m, _ := q.Body.(map[string]any)
	s, _ := m[name].(string)
	return s
}

// actOnAnswer goes on after an accept, or says that nothing was done.
func (c *Call) actOnAnswer(ap *Approval, h *heldCall) *mcp.CallToolResult {
	q := h.quote
	question := heldField(q, "question")
	action := ""
	if h.result != nil {
		action = h.result.Action
	}
	if action == "" {
		// The state is ours but carries no answer: ask again under it.
		c.audit.Approval = "asked"
		c.setPending(q.ID, h.nonce)
		return c.callInputRequest(q, h.nonce, h.until, question)
	}
	// Whatever the answer, the record is used up in two atomic steps: the
	// nonce's reservation moves to a token only this call knows, then the
	// record is consumed. A second answer finds the nonce no longer
	// holding it.
	now := c.kit.now()
	token := randomToken(16)
	err := c.kit.quotes.Reserve(c.ctx, q.ID, quotestore.Reservation{From: h.nonce, To: token, Until: now.Add(time.Minute), Now: now})
	c.setPending("", "")
	switch {
	case errors.Is(err, quotestore.ErrUsed), errors.Is(err, quotestore.ErrNotReserved), errors.Is(err, quotestore.ErrNotFound):
		c.audit.Ignored = "requestState already answered or lapsed"
		c.logger().Warn("approval answer ignored", "tool", c.tool.Name, "why", c.audit.Ignored)
		return c.askCall(ap)
	case err != nil:
		return c.heldStoreFailed(err)
	}
	if err := c.kit.quotes.Consume(c.ctx, q.ID, token, now); err != nil {
		return c.heldStoreFailed(err)
	}
	c.audit.Approval = action
	switch action {
	case "accept":
		return nil
	case "decline":
		return errorResult(c.say("approval_call_declined", M{"question": question}))
	}
	return errorResult(c.say("approval_call_dismissed", M{"question": question}))
}

// askCall holds the question for this call's arguments and asks it, or,
// for a client that cannot ask, proceeds or refuses as the approval says.
func (c *Call) askCall(ap *Approval) *mcp.CallToolResult {
	if !c.canElicit() {
		if ap.Proceed {
			c.audit.Approval = "not asked: the client cannot elicit; the overlay allows proceeding"
			return nil
		}
		c.audit.Approval = "refused: the client cannot elicit"
		question := ap.Message
		if question == "" || strings.Contains(question, "{{") {
			// Not rendered: nothing is read before a refusal.
			question = c.say("approval_call_question", M{"what": c.tool.Title, "destructive": c.tool.Destructive, "arguments": "as given"})
		}
		return errorResult(c.say("approval_unavailable", M{"question": question}))
	}
	question, res := c.callQuestion(ap)
	if res != nil {
		return res
	}
	now := c.kit.now()
	until := now.Add(approvalWindow)
	identity, caller := c.owner()
	q := &quotestore.Quote{ID: "a_" + randomToken(7)[:10], Tool: heldPrefix + c.tool.Name, Args: c.args,
		Body:     map[string]any{"question": question, "args_sha256": c.argsHash()},
		Identity: identity, Caller: caller, Created: now, Expires: until}
	if err := c.kit.quotes.Save(c.ctx, q); err != nil {
		return c.quoteNotSaved(err)
	}
	nonce := randomToken(16)
	if err := c.kit.quotes.Reserve(c.ctx, q.ID, quotestore.Reservation{To: nonce, Until: until, Now: now}); err != nil {
		return c.heldStoreFailed(err)
	}
	c.setPending(q.ID, nonce)
	c.audit.Approval = "asked"
	return c.callInputRequest(q, nonce, until, question)
}

// callInputRequest asks the person question, with the signed state of the
// held record.
func (c *Call) callInputRequest(q *quotestore.Quote, nonce string, until time.Time, question string) *mcp.CallToolResult {
	res, err := c.inputRequest(q, nonce, until, question)
	if err != nil {
		return c.heldStoreFailed(err)
	}
	return res
}

// callQuestion renders the approval's message over the arguments, the
// context values and the read-only steps the tool starts with (run now),
// or the generated question. A message that fails to render still asks,
// with the generated question: the person never sees template source.
func (c *Call) callQuestion(ap *Approval) (string, *mcp.CallToolResult) {
	if ap.Message == "" {
		return c.generatedQuestion(), nil
	}
	s := c.newScope()
	if len(c.tool.Reads) > 0 || strings.Contains(ap.Message, ".steps") {
		if res := c.readFirst(s); res != nil {
			return "", res
		}
	}
	tm, err := cachedTemplate(ap.Message)
	var buf bytes.Buffer
	if err == nil {
		err = executeTemplate(tm, &buf, s.data)
	}
	if err == nil {
		return c.redact(strings.TrimSpace(buf.String())), nil
	}
	c.logger().Error("approval message template failed; asking the generated question instead", "tool", c.tool.Name, "error", c.redact(err.Error()))
	return c.generatedQuestion(), nil
}

// readFirst runs a one-operation tool's reads, or the read-only steps a
// composed tool starts with (up to its first write, or its first step
// over a list), and keeps their results as .steps for the question or the
// held quote. A read that fails ends the call: nothing was written.
func (c *Call) readFirst(s *Scope) *mcp.CallToolResult {
	steps := map[string]any{}
	s.data["steps"] = steps
	first := c.tool.Reads
	if len(first) == 0 {
		for _, st := range c.tool.Steps {
			if !st.ReadOnly || st.ForEach != "" {
				break
			}
			first = append(first, st)
		}
	}
	for _, st := range first {
		req := st.Request(c, s)
		req.readOnly, req.idempotent, req.security = true, true, st.Security
		if c.missing != nil {
			return c.missingContext()
		}
		if c.bindErr != nil || req.err != nil {
			problem := ""
			if c.bindErr != nil {
				problem = c.bindErr.Error()
			} else {
				problem = req.err.Error()
			}
			return errorResult(c.say("step_not_built", M{"step": st.Name, "problem": problem}))
		}
		c.step = st.Name
		resp := c.send(req)
		c.audit.Steps = append(c.audit.Steps, auditStep{Step: st.Name, Method: req.Method, Path: req.template, Status: resp.status, Outcome: "done"})
		if resp.err != nil || resp.status < 200 || resp.status > 299 {
			c.audit.Steps[len(c.audit.Steps)-1].Outcome = outcomeRefused
			return c.failure(req, resp)
		}
		body, _, bad := c.readBody(req, resp, false)
		if bad != nil {
			return errorResult(c.say(bad.id, bad.f))
		}
		steps[st.Name] = map[string]any{"body": body, "status": resp.status, "items": []any{body}}
	}
	c.step = ""
	return nil
}

// heldStoreFailed is the result when the store holding approvals fails:
// nothing was done.
func (c *Call) heldStoreFailed(err error) *mcp.CallToolResult {
	c.logger().Error("approval store failed", "tool", c.tool.Name, "error", c.redact(err.Error()))
	return errorResult(c.say("approval_call_store_failed", nil))
}
