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
	"sync"
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
// API computed, bound to the caller's identity.
type Quote struct {
	ID       string         `json:"id"`
	Tool     string         `json:"tool"`
	Args     map[string]any `json:"args"`
	Body     any            `json:"body"`
	Identity string         `json:"identity"`
	Created  time.Time      `json:"created"`
	Expires  time.Time      `json:"expires"`
	Used     bool           `json:"used"`
	UsedAt   time.Time      `json:"used_at,omitzero"`
}

// Errors of a QuoteStore.
var (
	ErrQuoteNotFound = errors.New("quote not found")
	ErrQuoteUsed     = errors.New("quote already used")
)

// QuoteStore keeps quotes between the quote call and the confirm call.
//
// The in-memory store serves one process. A server running as several
// replicas needs a shared store (Redis, a database) implementing the same
// three operations; Consume must be atomic across replicas (e.g. Redis
// SET ... NX on a "used" key, or an UPDATE ... WHERE used = false), since it
// is what makes a quote run exactly once.
type QuoteStore interface {
	// Save stores q under q.ID until q.Expires (and a while after, so that a
	// late confirm is told "expired" rather than "unknown").
	Save(ctx context.Context, q *Quote) error
	// Load returns the quote, or ErrQuoteNotFound.
	Load(ctx context.Context, id string) (*Quote, error)
	// Consume marks the quote used. Of concurrent callers exactly one gets
	// nil; the others get ErrQuoteUsed.
	Consume(ctx context.Context, id string, at time.Time) error
}

// MemoryQuoteStore is the default, in-process QuoteStore.
type MemoryQuoteStore struct {
	mu     sync.Mutex
	quotes map[string]*Quote
	// Keep is how long quotes are kept after they expire.
	Keep time.Duration
}

// NewMemoryQuoteStore returns an empty store.
func NewMemoryQuoteStore() *MemoryQuoteStore {
	return &MemoryQuoteStore{quotes: map[string]*Quote{}, Keep: time.Hour}
}

func (s *MemoryQuoteStore) Save(_ context.Context, q *Quote) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := q.Created
	for id, old := range s.quotes {
		if now.Sub(old.Expires) > s.Keep {
			delete(s.quotes, id)
		}
	}
	cp := *q
	s.quotes[q.ID] = &cp
	return nil
}

func (s *MemoryQuoteStore) Load(_ context.Context, id string) (*Quote, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, ok := s.quotes[id]
	if !ok {
		return nil, ErrQuoteNotFound
	}
	cp := *q
	return &cp, nil
}

func (s *MemoryQuoteStore) Consume(_ context.Context, id string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, ok := s.quotes[id]
	if !ok {
		return ErrQuoteNotFound
	}
	if q.Used {
		return ErrQuoteUsed
	}
	q.Used, q.UsedAt = true, at
	return nil
}

// newQuoteID returns a short random id such as "q_4kz7m2xq9p": 50 random
// bits, enough that guessing one of a session's live quotes is hopeless,
// short enough for a model to copy without mistakes.
func newQuoteID() string {
	b := make([]byte, 7)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	s := strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
	return "q_" + s[:10]
}

// identity fingerprints the caller: every context value the server can
// resolve for this call. A quote made by one caller cannot be carried out
// by another.
func (c *Call) identity() string {
	var parts []string
	for _, cv := range c.kit.api.Context {
		if v, ok := c.lookupContext(&cv); ok {
			parts = append(parts, cv.Name+"="+v)
		}
	}
	sort.Strings(parts)
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:])
}

// contextValues returns the caller's context values that are available,
// for templates and the audit log.
func (c *Call) contextValues() map[string]any {
	out := map[string]any{}
	for _, cv := range c.kit.api.Context {
		if v, ok := c.lookupContext(&cv); ok {
			out[cv.Name] = v
		}
	}
	return out
}
