package mcpkit

import (
	"bytes"
	"errors"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/jsonv"
	"github.com/tailormcp/tailor/mcpkit/quotestore"
)

// lease is a confirm call's reservation of its quote while its steps run.
type lease struct {
	quote *quotestore.Quote
	token string
	// approved is when the person approved (zero: not asked).
	approved time.Time
}

// Confirmation is a confirm tool's call carrying out one quote. Its
// generated handler reads as what it does:
//
//	q, res := c.TakeQuote()   // the quote named by quote_id: this caller's, made by the quote tool, unused, unexpired
//	q.Preflight()             // every request that needs no earlier answer can be built
//	q.Reserve()               // the quote is this call's; the person approves (Approval)
//	q.Run()                   // the steps in order, then the quote is used
//
// each stopping the call with its result when it returns one. A run that
// stops keeps its progress in the quote, and the next call resumes it.
type Confirmation struct {
	c     *Call
	s     *Scope
	quote *quotestore.Quote
	lease *lease
}

// TakeQuote loads the quote the model gave (quote_id) and checks that it
// may be carried out by this call: it exists, is this caller's (the
// identity of the call's context values), was made by the quote tool this
// tool confirms, is not used, and has not expired (a run that stopped
// part-way may resume after its expiry). The quote's values are then what
// the steps' bindings read as .quote.
func (c *Call) TakeQuote() (*Confirmation, *mcp.CallToolResult) {
	t := c.tool
	id, _ := c.args["quote_id"].(string)
	id = strings.TrimSpace(id)
	q, err := c.kit.quotes.Load(c.ctx, id)
	if err == nil {
		c.quoteID = q.ID
	}
	now := c.kit.now()
	if err == nil && q.Identity != c.identity() {
		if ok, problem := c.identified(); !ok {
			if problem != "" {
				return nil, errorResult(c.say("identity_unusable", M{"problem": problem, "id": id}))
			}
			return nil, errorResult(c.say("quote_unidentified", M{"id": id}))
		}
	}
	switch {
	case errors.Is(err, quotestore.ErrNotFound):
		return nil, errorResult(c.say("quote_unknown", M{"id": id, "quote_tool": t.Confirms}))
	case err != nil:
		return nil, c.storeFailed("read", err)
	case q.Identity != c.identity():
		return nil, errorResult(c.say("quote_other_caller", M{"id": id, "quote_tool": t.Confirms}))
	case q.Tool != t.Confirms:
		return nil, errorResult(c.say("quote_wrong_tool", M{"id": id, "made_by": q.Tool, "quote_tool": t.Confirms}))
	case q.Used:
		return nil, c.alreadyUsed(q)
	case q.Progress == nil && now.After(q.Expires):
		return nil, errorResult(c.say("quote_expired", M{"id": id, "expires_at": expiresAt(q), "quote_tool": t.Confirms}))
	}
	s := c.newScope()
	s.data["quote"] = map[string]any{"id": q.ID, "expires_at": expiresAt(q), "args": q.Args, "body": q.Body}
	return &Confirmation{c: c, s: s, quote: q}, nil
}

// Preflight builds every step request that does not need an earlier
// step's answer, without sending it (see Call.preflight): a run that
// cannot start stops here, before the quote is reserved or anyone asked.
func (cf *Confirmation) Preflight() *mcp.CallToolResult {
	if i, problem := cf.c.preflight(cf.s); problem != "" {
		return (&stepRun{c: cf.c, s: cf.s, lease: &lease{quote: cf.quote}}).stopped(i, 0, 1, outcomeNotSent, problem)
	}
	return nil
}

// Reserve reserves the quote for this call, so that no other call carries
// it out meanwhile. When the tool asks for approval (Tool.Approval) and
// the run is not a resumption, this is the approval round trip: the first
// call reserves the quote for the question and returns the question (an
// MCP input request, with a signed request state); the call that brings
// the answer goes on only when the person accepted, and a decline gives
// the quote back.
func (cf *Confirmation) Reserve() *mcp.CallToolResult {
	c, q := cf.c, cf.quote
	var l *lease
	var res *mcp.CallToolResult
	if q.Progress != nil || c.approval() == nil {
		// A run that stopped part-way was approved already: it resumes.
		l, res = c.reserve(q, randomToken(16), c.runUntil(c.kit.now()))
		if l != nil && q.Progress != nil {
			l.approved = q.Progress.Approved
			c.audit.Approval = "resumed"
		}
	} else {
		l, res = c.approve(cf.s, q)
	}
	cf.lease = l
	return res
}

// approve asks the person to approve the run, or acts on their answer.
func (c *Call) approve(s *Scope, q *quotestore.Quote) (*lease, *mcp.CallToolResult) {
	msg := c.approvalQuestion(s, q)
	if a := c.approvalAnswer(q.ID); a != nil {
		if a.ignored != "" {
			c.audit.Ignored = a.ignored
			c.logger().Warn("approval answer ignored", "tool", c.tool.Name, "quote", q.ID, "why", a.ignored)
			if res := c.otherKeyHolds(q, a); res != nil {
				return nil, res
			}
		} else {
			return c.answered(q, a, msg)
		}
	}
	return c.ask(q, msg)
}

// Run runs the steps in order under the reservation, and uses the quote up
// when they all succeed; a run that stops keeps its progress in the quote
// (what took effect, what may have) and the next call resumes it: what is
// done is skipped, what is unknown is sent again with the same
// Idempotency-Key where that is safe.
func (cf *Confirmation) Run() *mcp.CallToolResult {
	c, l := cf.c, cf.lease
	if l == nil {
		// Generated handlers reserve first; anything else is a bug.
		panic("mcpkit: Confirmation.Run without a reservation: call Reserve first")
	}
	c.audit.Quote = l.quote
	run := &stepRun{c: c, s: cf.s, lease: l, prior: map[string]quotestore.CallOutcome{}}
	if p := l.quote.Progress; p != nil {
		for _, co := range p.Calls {
			run.prior[callKey(co.Step, co.Item)] = co
		}
	}
	res, complete := run.run()
	run.settle(complete)
	return res
}

// ask reserves the quote and asks the person, or, for a client that cannot
// ask, proceeds or refuses as the overlay says.
func (c *Call) ask(q *quotestore.Quote, msg string) (*lease, *mcp.CallToolResult) {
	now := c.kit.now()
	until := now.Add(approvalWindow)
	if q.Expires.Before(until) {
		until = q.Expires
	}
	if !c.canElicit() {
		if c.approval().Proceed {
			c.audit.Approval = "not asked: the client cannot elicit; the overlay allows proceeding"
			return c.reserve(q, randomToken(16), c.runUntil(now))
		}
		c.audit.Approval = "refused: the client cannot elicit"
		return nil, errorResult(c.say("approval_unavailable", M{"question": msg}))
	}
	nonce := randomToken(16)
	l, res := c.reserve(q, nonce, until)
	if res != nil {
		return nil, res
	}
	req, err := c.inputRequest(q, nonce, until, msg)
	if err != nil {
		c.release(l, nil)
		return nil, c.storeFailed("sign", err)
	}
	c.setPending(q.ID, nonce)
	c.audit.Approval = "asked"
	return nil, req
}

// answered acts on the person's answer to this call's approval request.
func (c *Call) answered(q *quotestore.Quote, a *answer, msg string) (*lease, *mcp.CallToolResult) {
	now := c.kit.now()
	action := ""
	if a.result != nil {
		action = a.result.Action
	}
	if action == "" {
		// The state is ours but carries no answer: ask again under it.
		res, err := c.inputRequest(q, a.claims.Nonce, a.claims.Expiry.Time(), msg)
		if err != nil {
			return nil, c.storeFailed("reserve", err)
		}
		c.setPending(q.ID, a.claims.Nonce)
		c.audit.Approval = "asked"
		return nil, res
	}
	c.audit.Approval = action
	if action != "accept" {
		c.setPending("", "")
		if err := c.kit.quotes.Release(c.ctx, q.ID, a.claims.Nonce, nil); err != nil {
			// Not this request's reservation (answered already): it counts for
			// nothing.
			c.audit.Ignored = "requestState already answered or lapsed"
			return c.ask(q, msg)
		}
		f := M{"question": msg, "id": q.ID, "expires_at": expiresAt(q)}
		if action == "decline" {
			return nil, errorResult(c.say("approval_declined", f))
		}
		return nil, errorResult(c.say("approval_dismissed", f))
	}
	// Accepting swaps the reservation from the request's nonce to this run:
	// a replay of the same state finds the nonce no longer holding it.
	token := randomToken(16)
	err := c.kit.quotes.Reserve(c.ctx, q.ID, quotestore.Reservation{From: a.claims.Nonce, To: token, Until: c.runUntil(now), Now: now})
	c.setPending("", "")
	switch {
	case err == nil:
		return &lease{quote: q, token: token, approved: now}, nil
	case errors.Is(err, quotestore.ErrUsed):
		return nil, c.alreadyUsed(q)
	case errors.Is(err, quotestore.ErrNotReserved), errors.Is(err, quotestore.ErrNotFound):
		// Answered already, or the request lapsed: this answer counts for
		// nothing, and the person is asked afresh.
		c.audit.Ignored = "requestState already answered or lapsed"
		c.logger().Warn("approval answer ignored", "tool", c.tool.Name, "quote", q.ID, "why", c.audit.Ignored)
		return c.ask(q, msg)
	}
	return nil, c.storeFailed("reserve", err)
}

// reserve takes the free quote for this call, under token, until until,
// or says why not.
func (c *Call) reserve(q *quotestore.Quote, token string, until time.Time) (*lease, *mcp.CallToolResult) {
	err := c.kit.quotes.Reserve(c.ctx, q.ID, quotestore.Reservation{To: token, Until: until, Now: c.kit.now()})
	switch {
	case err == nil:
		return &lease{quote: q, token: token}, nil
	case errors.Is(err, quotestore.ErrReserved):
		c.audit.Approval = "not asked: the quote is reserved by another call"
		free := ""
		if !q.ReservedUntil.IsZero() {
			free = q.ReservedUntil.UTC().Format("15:04:05 UTC")
		}
		return nil, errorResult(c.say("quote_reserved", M{"id": q.ID, "free_at": free}))
	case errors.Is(err, quotestore.ErrUsed):
		return nil, c.alreadyUsed(q)
	}
	return nil, c.storeFailed("reserve", err)
}

// runUntil bounds a reservation while the steps run: every request may take the
// timeout, with retries, and a few minutes more.
func (c *Call) runUntil(now time.Time) time.Time {
	cfg := c.kit.cfg
	return now.Add(5*time.Minute + time.Duration(len(c.tool.Steps)*(cfg.Retries+1))*cfg.Timeout)
}

// release gives the quote back, keeping progress when some of the run
// took effect or may have.
func (c *Call) release(l *lease, p *quotestore.Progress) {
	if l == nil {
		return
	}
	if err := c.kit.quotes.Release(c.ctx, l.quote.ID, l.token, p); err != nil {
		c.logger().Error("quote could not be released", "tool", c.tool.Name, "quote", l.quote.ID, "error", err.Error())
	}
}

func (c *Call) alreadyUsed(q *quotestore.Quote) *mcp.CallToolResult {
	at := ""
	if !q.UsedAt.IsZero() {
		at = q.UsedAt.UTC().Format("15:04:05 UTC")
	}
	return errorResult(c.say("quote_used", M{"id": q.ID, "used_at": at}))
}

func (c *Call) storeFailed(op string, err error) *mcp.CallToolResult {
	c.logger().Error("quote store failed", "tool", c.tool.Name, "op", op, "error", c.redact(err.Error()))
	if errors.Is(err, quotestore.ErrUnavailable) {
		id, _ := c.args["quote_id"].(string)
		return errorResult(c.say("quote_store_unreachable", M{"id": strings.TrimSpace(id)}))
	}
	return errorResult(c.say("quote_store_failed", nil))
}

// approvalQuestion renders the overlay's approval message. If it fails, the
// person is still asked, with the quoted values spelled out: they never see
// template source, and are never asked about nothing.
func (c *Call) approvalQuestion(s *Scope, q *quotestore.Quote) string {
	t := c.tool
	if c.approval().Message == "" {
		// The server-wide policy's question: the quote's values.
		return c.redact(c.say("approval_question", M{"id": q.ID, "quote": jsonv.Text(q.Body)}))
	}
	tm, err := cachedTemplate(c.approval().Message)
	var buf bytes.Buffer
	if err == nil {
		err = executeTemplate(tm, &buf, s.data)
	}
	if err == nil {
		return strings.TrimSpace(buf.String())
	}
	c.logger().Error("approval message template failed; asking with the quoted values instead", "tool", t.Name, "error", c.redact(err.Error()))
	return c.say("approval_question", M{"id": q.ID, "quote": jsonv.Text(q.Body)})
}
