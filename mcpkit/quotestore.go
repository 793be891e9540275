package mcpkit

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// DefaultMaxQuotes is how many quotes a MemoryQuoteStore keeps at most.
const DefaultMaxQuotes = 10000

// DefaultMaxQuotesPerCaller is how many open quotes (neither used nor
// expired) one caller may hold at once: a tenth of the store, so that no
// single caller can fill it for the others.
const DefaultMaxQuotesPerCaller = DefaultMaxQuotes / 10

// MemoryQuoteStore is the default, in-process QuoteStore. It is bounded:
// at MaxQuotes it first drops quotes that have expired (kept only to answer
// "expired" rather than "unknown"), then refuses new ones with
// ErrQuoteStoreFull rather than growing.
//
// Save and expiry are O(1) amortized: quotes sit in one FIFO queue per
// lifetime (expiry minus creation: one per quote tool's TTL, so a handful),
// in which creation order is expiry order; each Save drops the expired
// heads of the queues. No operation walks the whole store; a caller at
// its bound has its own quotes walked once per refused Save.
type MemoryQuoteStore struct {
	// Keep is how long quotes are kept after they expire.
	Keep time.Duration
	// MaxQuotes bounds the quotes kept (0: DefaultMaxQuotes).
	MaxQuotes int
	// MaxPerCaller bounds the open quotes of one Quote.Caller (0:
	// DefaultMaxQuotesPerCaller; negative: no bound).
	MaxPerCaller int

	mu     sync.Mutex
	quotes map[string]*memQuote
	queues map[time.Duration]*list.List // lifetime → *memQuote, oldest first
	// callers holds each caller's quotes that may still be open; used and
	// expired ones leave it when the caller reaches its bound.
	callers map[string]map[*memQuote]struct{}
}

type memQuote struct {
	q     Quote
	queue *list.List
	elem  *list.Element
}

// NewMemoryQuoteStore returns an empty store.
func NewMemoryQuoteStore() *MemoryQuoteStore {
	return &MemoryQuoteStore{Keep: time.Hour, quotes: map[string]*memQuote{}, queues: map[time.Duration]*list.List{}, callers: map[string]map[*memQuote]struct{}{}}
}

// Len is the number of quotes held (tests and metrics).
func (s *MemoryQuoteStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.quotes)
}

func (s *MemoryQuoteStore) Save(_ context.Context, q *Quote) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := q.Created
	s.dropWhile(func(m *memQuote) bool { return now.Sub(m.q.Expires) > s.Keep })
	if !s.callerMayQuote(q.Caller, now) {
		return ErrCallerQuotesFull
	}
	limit := s.MaxQuotes
	if limit <= 0 {
		limit = DefaultMaxQuotes
	}
	if len(s.quotes) >= limit {
		// Expired quotes are kept only for a kinder message; a run that
		// stopped part-way is kept for its resumption.
		s.dropWhile(func(m *memQuote) bool { return !now.Before(m.q.Expires) && m.q.Progress == nil })
	}
	if len(s.quotes) >= limit {
		return ErrQuoteStoreFull
	}
	if old, ok := s.quotes[q.ID]; ok {
		s.remove(old)
	}
	life := q.Expires.Sub(q.Created)
	queue := s.queues[life]
	if queue == nil {
		queue = list.New()
		s.queues[life] = queue
	}
	m := &memQuote{q: *q, queue: queue}
	m.elem = queue.PushBack(m)
	s.quotes[q.ID] = m
	if q.Caller != "" {
		if s.callers[q.Caller] == nil {
			s.callers[q.Caller] = map[*memQuote]struct{}{}
		}
		s.callers[q.Caller][m] = struct{}{}
	}
	return nil
}

// callerMayQuote reports whether caller holds fewer open quotes than its
// bound at now (s.mu held). The caller's quotes are counted only when
// their number reaches the bound, and those no longer open leave the set
// then, so each is walked past once.
func (s *MemoryQuoteStore) callerMayQuote(caller string, now time.Time) bool {
	limit := s.MaxPerCaller
	if limit == 0 {
		limit = DefaultMaxQuotesPerCaller
	}
	held := s.callers[caller]
	if caller == "" || limit < 0 || len(held) < limit {
		return true
	}
	for m := range held {
		if m.q.Used || !now.Before(m.q.Expires) {
			delete(held, m)
		}
	}
	return len(held) < limit
}

// dropWhile removes, from the head of each queue, the quotes for which
// drop holds.
func (s *MemoryQuoteStore) dropWhile(drop func(*memQuote) bool) {
	for life, queue := range s.queues {
		for e := queue.Front(); e != nil && drop(e.Value.(*memQuote)); e = queue.Front() {
			s.remove(e.Value.(*memQuote))
		}
		if queue.Len() == 0 {
			delete(s.queues, life)
		}
	}
}

func (s *MemoryQuoteStore) remove(m *memQuote) {
	m.queue.Remove(m.elem)
	delete(s.quotes, m.q.ID)
	if held := s.callers[m.q.Caller]; held != nil {
		delete(held, m)
		if len(held) == 0 {
			delete(s.callers, m.q.Caller)
		}
	}
}

func (s *MemoryQuoteStore) Load(_ context.Context, id string) (*Quote, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.quotes[id]
	if !ok {
		return nil, ErrQuoteNotFound
	}
	cp := m.q
	return &cp, nil
}

func (s *MemoryQuoteStore) Reserve(_ context.Context, id string, r Reservation) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.quotes[id]
	switch {
	case !ok:
		return ErrQuoteNotFound
	case m.q.Used:
		return ErrQuoteUsed
	case r.From == "" && m.q.ReservedBy != "" && r.Now.Before(m.q.ReservedUntil):
		return ErrQuoteReserved
	case r.From != "" && m.q.ReservedBy != r.From:
		return ErrQuoteNotReserved
	}
	m.q.ReservedBy, m.q.ReservedUntil = r.To, r.Until
	return nil
}

func (s *MemoryQuoteStore) Release(_ context.Context, id, token string, progress *Progress) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.quotes[id]
	if !ok {
		return ErrQuoteNotFound
	}
	if token == "" || m.q.ReservedBy != token {
		return ErrQuoteNotReserved
	}
	m.q.ReservedBy, m.q.ReservedUntil = "", time.Time{}
	m.q.Progress = progress
	return nil
}

func (s *MemoryQuoteStore) Checkpoint(_ context.Context, id, token string, progress *Progress) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.heldBy(id, token)
	if err == nil {
		q.Progress = progress
	}
	return err
}

func (s *MemoryQuoteStore) Consume(_ context.Context, id, token string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.heldBy(id, token)
	if err == nil {
		q.Used, q.UsedAt = true, at
		q.ReservedBy, q.ReservedUntil = "", time.Time{}
	}
	return err
}

// heldBy is the unused quote id that token reserves (s.mu held).
func (s *MemoryQuoteStore) heldBy(id, token string) (*Quote, error) {
	m, ok := s.quotes[id]
	switch {
	case !ok:
		return nil, ErrQuoteNotFound
	case m.q.Used:
		return nil, ErrQuoteUsed
	case token == "" || m.q.ReservedBy != token:
		return nil, ErrQuoteNotReserved
	}
	return &m.q, nil
}
