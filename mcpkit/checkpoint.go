package mcpkit

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/mcpkit/quotestore"
)

// checkpoint records in the quote store, before a confirm run sends write
// j of step i, the run's progress with that write's outcome unknown. A
// process that stops while the write is on its way (killed, or shut down
// past its bound) leaves the quote saying so: once the reservation lapses,
// the next confirm, on any replica, resumes the run (re-sending that write
// only with its idempotency key) rather than starting it afresh. A write
// whose progress cannot be recorded is not sent; nor is one whose
// reservation lapsed, since another call may be carrying the quote out.
func (r *stepRun) checkpoint(i, j, n int, req *Request) *mcp.CallToolResult {
	l := r.lease
	if l == nil {
		return nil
	}
	c := r.c
	st := c.tool.Steps[i]
	_, key := idempotencyHeader(req)
	var calls []quotestore.CallOutcome
	for _, co := range r.allCalls() {
		if co.Step != st.Name || co.Item != j {
			calls = append(calls, co)
		}
	}
	calls = append(calls, quotestore.CallOutcome{Step: st.Name, Item: j, Outcome: quotestore.OutcomeUnknown, IdempotencyKey: key})
	err := c.kit.quotes.Checkpoint(context.WithoutCancel(c.ctx), l.quote.ID, l.token, &quotestore.Progress{Approved: l.approved, Calls: calls})
	if err == nil {
		return nil
	}
	c.logger().Error("the run's progress could not be recorded; the step was not sent", "tool", c.tool.Name, "quote", l.quote.ID, "step", st.Name, "error", c.redact(err.Error()))
	if errors.Is(err, quotestore.ErrNotReserved) || errors.Is(err, quotestore.ErrUsed) || errors.Is(err, quotestore.ErrNotFound) {
		return r.stopped(i, j, n, outcomeHeld, c.say("step_reservation_lost", M{"step": st.Name, "id": l.quote.ID}))
	}
	return r.stopped(i, j, n, outcomeNotSent, c.say("step_not_recorded", M{"step": st.Name}))
}
