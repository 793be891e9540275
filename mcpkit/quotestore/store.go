// Package quotestore keeps the quotes of quote tools between the quote
// call and the confirm call: the Store interface a server embedding a
// generated package may implement, the in-process store (Memory) and the
// shared one (Redis) that replicas use.
package quotestore

import (
	"context"
	"errors"
	"time"
)

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

// Errors of a Store.
var (
	ErrNotFound = errors.New("quote not found")
	ErrUsed     = errors.New("quote already used")
	// ErrReserved: another confirm call has reserved the quote.
	ErrReserved = errors.New("quote reserved by another call")
	// ErrNotReserved: the token given does not hold the quote's
	// reservation (it lapsed, or it never held it).
	ErrNotReserved = errors.New("quote not reserved by this call")
	// ErrFull: the store is at its capacity; no quote is saved.
	ErrFull = errors.New("quote store full")
	// ErrCallerFull: the quote's caller holds as many open quotes
	// (neither used nor expired) as one caller may; no quote is saved.
	ErrCallerFull = errors.New("too many open quotes for this caller")
	// ErrUnavailable: a shared store could not be reached (or did
	// not answer in time); whether the operation took place is not known
	// to the caller, who does nothing further.
	ErrUnavailable = errors.New("quote store unavailable")
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

// Store keeps quotes between the quote call and the confirm call and
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
//     confirm is told "expired", not "unknown"); ErrCallerFull when
//     q.Caller already holds its bound of open quotes; ErrFull at
//     capacity. Redis: SET quote:<id> <json> NX PXAT <keep-until>, with the
//     capacity as a counter checked in the same script.
//   - Load: the quote, or ErrNotFound. Redis: GET.
//   - Reserve: compare-and-set of the reservation: succeeds when the quote
//     is not used and its reservation is held by r.From (for From == "": no
//     reservation, or one that lapsed before r.Now); ErrUsed,
//     ErrReserved (From == "") or ErrNotReserved otherwise.
//     Redis: one EVAL of a Lua script over the quote's key; SQL: UPDATE
//     quotes SET reserved_by=$to, reserved_until=$until WHERE id=$id AND
//     used_at IS NULL AND (reserved_by=$from OR ($from IS NULL AND
//     (reserved_by IS NULL OR reserved_until < $now))), then check the row
//     count.
//   - Release: when token holds the reservation, clear it and store
//     progress as the quote's (nil: none); else ErrNotReserved. One
//     script or UPDATE.
//   - Checkpoint: when token holds the reservation (and the quote is not
//     used), store progress and keep the reservation; else ErrUsed or
//     ErrNotReserved (the reservation lapsed: the run must not send
//     its next write). One script or UPDATE.
//   - Consume: when token holds the reservation, mark the quote used at
//     `at` and clear the reservation; else ErrUsed or
//     ErrNotReserved. One script or UPDATE.
//
// Quotes are JSON-serializable for that purpose. Errors other than the
// ones above wrap ErrUnavailable when the store could not be
// reached. Redis is the shared implementation.
type Store interface {
	Save(ctx context.Context, q *Quote) error
	Load(ctx context.Context, id string) (*Quote, error)
	Reserve(ctx context.Context, id string, r Reservation) error
	Release(ctx context.Context, id, token string, progress *Progress) error
	Checkpoint(ctx context.Context, id, token string, progress *Progress) error
	Consume(ctx context.Context, id, token string, at time.Time) error
}
