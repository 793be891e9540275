package mcpkit

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"sort"
	"strings"
	"time"

	"github.com/tailormcp/tailor/mcpkit/quotestore"
)

// QuoteSpec makes a tool a quote tool: its successful result is stored as
// a quote that the tool naming it in Confirms carries out.
type QuoteSpec struct {
	TTLSeconds int
	// ConfirmTool is the tool that carries the quotes out, named in the
	// text the model reads.
	ConfirmTool string
	// Hold: the API has no preview; the tool's handler holds the
	// operation's arguments as the quote and sends nothing (Call.Hold).
	Hold bool
}

// Approval asks the person to approve a tool's action through MCP
// elicitation. Message is a template over the quote (confirm tools) or the
// call's arguments, context values and first read-only steps (any other
// tool, approve_any.go); empty: the generated question.
type Approval struct {
	Message string
	// Proceed runs the action when the client cannot elicit; otherwise the
	// call is refused.
	Proceed bool
	// Never: the overlay exempts the tool from the server-wide approval
	// policy (approve_policy.go); nothing else is set.
	Never bool
}

// expiresAt is the quote's expiry as every message and template field
// `expires_at` shows it: RFC 3339 in UTC (what the catalog documents), one
// format whether the model reads it in a result, an error or a question.
func expiresAt(q *quotestore.Quote) string { return q.Expires.UTC().Format(time.RFC3339) }

// newQuoteID returns a short random id such as "q_4kz7m2xq9p": 50 random
// bits, enough that guessing one of a session's live quotes is hopeless,
// short enough for a model to copy without mistakes.
func newQuoteID() string {
	return "q_" + randomToken(7)[:10]
}

// randomToken returns n random bytes as lower-case base32.
func randomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

// identity fingerprints the caller: every context value the server can
// resolve for this call. A quote made by one caller cannot be carried out
// by another.
func (c *Call) identity() string {
	return fingerprint(c.contextParts())
}

// owner is a new quote's identity and its caller, from one resolution of
// the context values. The caller is whom the quote counts against for the
// per-caller bound: the caller's identity when the server knows one
// (context values, or the verified token's subject), else its MCP session.
// It is empty, and no per-caller bound applies, when there is neither, as
// over stdio, where the one session is the one caller.
func (c *Call) owner() (identity, caller string) {
	parts := c.contextParts()
	identity = fingerprint(parts)
	if c.token != nil && c.token.UserID != "" {
		parts = append(parts, "\x01sub="+c.token.UserID)
	}
	switch s := c.req.Session; {
	case len(parts) > 0:
		caller = "identity:" + fingerprint(parts)
	case s != nil && s.ID() != "":
		caller = "session:" + fingerprint([]string{s.ID()})
	}
	return identity, caller
}

// contextParts are the context values the server can resolve for this
// call, as name=value.
func (c *Call) contextParts() []string {
	var parts []string
	for _, cv := range c.kit.api.Context {
		if v, src, _ := c.lookupContext(&cv); src != "" {
			parts = append(parts, cv.Name+"="+v)
		}
	}
	return parts
}

// fingerprint is a hash of parts, whatever their order.
func fingerprint(parts []string) string {
	sort.Strings(parts)
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:])
}

// contextValues returns the caller's context values that are available,
// for templates and the audit log.
func (c *Call) contextValues() map[string]any {
	out := map[string]any{}
	for _, cv := range c.kit.api.Context {
		if v, src, _ := c.lookupContext(&cv); src != "" {
			out[cv.Name] = v
		}
	}
	return out
}
