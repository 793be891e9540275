package mcpkit

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"sort"
	"strings"
	"time"
)

// QuoteSpec makes a tool a quote tool: its successful result is stored as
// a quote that the tool naming it in Confirms carries out.
type QuoteSpec struct {
	TTLSeconds int
	// ConfirmTool is the tool that carries the quotes out, named in the
	// text the model reads.
	ConfirmTool string
}

// Approval asks the person to approve a confirm tool's action through MCP
// elicitation. Message is a template over the quote.
type Approval struct {
	Message string
	// Proceed runs the action when the client cannot elicit; otherwise the
	// call is refused.
	Proceed bool
}

// Quote is a stored preview: what the quote tool was asked and what the
// API computed, bound to the caller's identity, and where its confirm
// stands.
type Quote struct {
	ID       string         `json:"id"`
	Tool     string         `json:"tool"`
	Args     map[string]any `json:"args"`
	Body     any            `json:"body"`
	Identity string         `json:"identity"`
	// Caller is whom the quote counts against for the per-caller bound
	// (see Call.caller); empty: no per-caller bound.
	Caller  string    `json:"caller,omitempty"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
	Used    bool      `json:"used"`
	UsedAt  time.Time `json:"used_at,omitzero"`
	// ReservedBy is the token of the confirm call that has reserved the
	// quote (asking the person, or running its steps) until ReservedUntil;
	// empty when the quote is free.
	ReservedBy    string    `json:"reserved_by,omitempty"`
	ReservedUntil time.Time `json:"reserved_until,omitzero"`
	// Progress is set when an approved run stopped part-way: what took
	// effect, and what may have. A later confirm resumes from it.
	Progress *Progress `json:"progress,omitempty"`
}

// expiresAt is the quote's expiry as every message and template field
// `expires_at` shows it: RFC 3339 in UTC (what the catalog documents), one
// format whether the model reads it in a result, an error or a question.
func expiresAt(q *Quote) string { return q.Expires.UTC().Format(time.RFC3339) }

// Progress records a confirm run that stopped before its last step, so
// that calling the confirm tool again re-sends only what did not certainly
// take effect.
type Progress struct {
	// Approved is when the person approved the run (zero when the tool
	// asks no approval): a resumed run does not ask again.
	Approved time.Time `json:"approved,omitzero"`
	// Calls are the write calls that took effect or whose outcome is
	// unknown, in the order they were sent.
	Calls []CallOutcome `json:"calls"`
}

// Outcomes of a write call.
const (
	// OutcomeDone: the API answered 2xx.
	OutcomeDone = "done"
	// OutcomeUnknown: the request was sent and no answer says whether it
	// was applied (a timeout, a dropped connection, a 5xx).
	OutcomeUnknown = "unknown"
)

// CallOutcome is one write call of a confirm run.
type CallOutcome struct {
	Step string `json:"step"`
	// Item is the element's index in a for_each step (0 otherwise).
	Item    int      `json:"item"`
	Outcome string   `json:"outcome"`
	Status  int      `json:"status,omitempty"`
	Body    any      `json:"body,omitempty"`
	Created []string `json:"created,omitempty"`
	// IdempotencyKey is the key the call was sent with; a resumed run
	// sends the same one.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	// Unread, for a call that took effect, says why its answer could not
	// be read (Body is then empty); a resumed run does not send it again,
	// and a step that needs its answer cannot run.
	Unread string `json:"unread,omitempty"`
}

// Errors of a QuoteStore.
var (
	ErrQuoteNotFound = errors.New("quote not found")
	ErrQuoteUsed     = errors.New("quote already used")
	// ErrQuoteReserved: another confirm call has reserved the quote.
	ErrQuoteReserved = errors.New("quote reserved by another call")
	// ErrQuoteNotReserved: the token given does not hold the quote's
	// reservation (it lapsed, or it never held it).
	ErrQuoteNotReserved = errors.New("quote not reserved by this call")
	// ErrQuoteStoreFull: the store is at its capacity; no quote is saved.
	ErrQuoteStoreFull = errors.New("quote store full")
	// ErrCallerQuotesFull: the quote's caller holds as many open quotes
	// (neither used nor expired) as one caller may; no quote is saved.
	ErrCallerQuotesFull = errors.New("too many open quotes for this caller")
	// ErrQuoteStoreUnavailable: a shared store could not be reached (or did
	// not answer in time); whether the operation took place is not known
	// to the caller, who does nothing further.
	ErrQuoteStoreUnavailable = errors.New("quote store unavailable")
)

// Reservation asks to reserve a quote: From is the token that must hold
// the reservation now ("" for a quote that must be free), To the token that
// holds it afterwards, until Until.
type Reservation struct {
	From, To string
	Until    time.Time
	// Now decides whether an earlier reservation has lapsed.
	Now time.Time
}

// QuoteStore keeps quotes between the quote call and the confirm call and
// moves each through its life: saved; reserved by one confirm call while
// the person is asked and while its steps run; then consumed (the run
// finished), or released (declined, nothing took effect, or stopped
// part-way with its Progress). Reserving before asking is what makes one
// prompt per quote: concurrent confirms find it reserved and do nothing.
// While a run holds the reservation it records its progress before each
// write (Checkpoint), so that a run cut short by a stopped process is
// resumed, once its reservation lapses, instead of started afresh.
//
// Every method is one atomic step of the store, so that a shared store
// keeps these guarantees across replicas:
//
//   - Save: store q under q.ID until q.Expires plus a while (so that a late
//     confirm is told "expired", not "unknown"); ErrCallerQuotesFull when
//     q.Caller already holds its bound of open quotes; ErrQuoteStoreFull at
//     capacity. Redis: SET quote:<id> <json> NX PXAT <keep-until>, with the
//     capacity as a counter checked in the same script.
//   - Load: the quote, or ErrQuoteNotFound. Redis: GET.
//   - Reserve: compare-and-set of the reservation: succeeds when the quote
//     is not used and its reservation is held by r.From (for From == "": no
//     reservation, or one that lapsed before r.Now); ErrQuoteUsed,
//     ErrQuoteReserved (From == "") or ErrQuoteNotReserved otherwise.
//     Redis: one EVAL of a Lua script over the quote's key; SQL: UPDATE
//     quotes SET reserved_by=$to, reserved_until=$until WHERE id=$id AND
//     used_at IS NULL AND (reserved_by=$from OR ($from IS NULL AND
//     (reserved_by IS NULL OR reserved_until < $now))), then check the row
//     count.
//   - Release: when token holds the reservation, clear it and store
//     progress as the quote's (nil: none); else ErrQuoteNotReserved. One
//     script or UPDATE.
//   - Checkpoint: when token holds the reservation (and the quote is not
//     used), store progress and keep the reservation; else ErrQuoteUsed or
//     ErrQuoteNotReserved (the reservation lapsed: the run must not send
//     its next write). One script or UPDATE.
//   - Consume: when token holds the reservation, mark the quote used at
//     `at` and clear the reservation; else ErrQuoteUsed or
//     ErrQuoteNotReserved. One script or UPDATE.
//
// Quotes are JSON-serializable for that purpose. Errors other than the
// ones above wrap ErrQuoteStoreUnavailable when the store could not be
// reached. RedisQuoteStore is the shared implementation.
type QuoteStore interface {
	Save(ctx context.Context, q *Quote) error
	Load(ctx context.Context, id string) (*Quote, error)
	Reserve(ctx context.Context, id string, r Reservation) error
	Release(ctx context.Context, id, token string, progress *Progress) error
	Checkpoint(ctx context.Context, id, token string, progress *Progress) error
	Consume(ctx context.Context, id, token string, at time.Time) error
}

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
