package quotestore

import (
	"container/heap"
	"container/list"
	"context"
	"sync"
	"time"
)

// DefaultMaxQuotes is how many quotes that are not used a store keeps at
// most.
const DefaultMaxQuotes = 10000

// DefaultMaxUsedQuotes is how many used quotes a store remembers at most,
// to answer a replayed confirm with "already used" rather than "unknown".
// A used quote is kept as a small record of its use (no arguments, no
// body), so it costs a few hundred bytes.
const DefaultMaxUsedQuotes = 5 * DefaultMaxQuotes

// DefaultMaxQuotesPerCaller is how many open quotes (neither used nor
// expired) one caller may hold at once: a tenth of the store, so that no
// single caller can fill it for the others.
const DefaultMaxQuotesPerCaller = DefaultMaxQuotes / 10

// Memory is the default, in-process Store. It is bounded
// twice. Quotes not yet used: at MaxQuotes it first drops those that have
// expired (kept only to answer "expired" rather than "unknown"), then
// refuses new ones with ErrFull rather than growing. Used
// quotes: once carried out a quote is only a record of its use, counted
// apart, so that confirmed quotes never fill the room of new ones; past
// MaxUsed the one closest to its end is forgotten (a replay of it hears
// "unknown"). A confirm is never refused for room.
//
// Save and expiry are O(1) amortized: quotes not used sit in one FIFO
// queue per lifetime (expiry minus creation: one per quote tool's TTL, so
// a handful), in which creation order is expiry order; each Save drops the
// expired heads of the queues. Used quotes sit in a heap by expiry
// (O(log n) per Consume). No operation walks the whole store; a caller at
// its bound has its own quotes walked once per refused Save.
type Memory struct {
	// Keep is how long quotes are kept after they expire.
	Keep time.Duration
	// MaxQuotes bounds the quotes kept that are not used (0:
	// DefaultMaxQuotes).
	MaxQuotes int
	// MaxUsed bounds the used quotes remembered (0: DefaultMaxUsedQuotes).
	MaxUsed int
	// MaxPerCaller bounds the open quotes of one Quote.Caller (0:
	// DefaultMaxQuotesPerCaller; negative: no bound).
	MaxPerCaller int

	mu     sync.Mutex
	quotes map[string]*memQuote
	queues map[time.Duration]*list.List // lifetime → *memQuote not used, oldest first
	used   usedQuotes
	// callers holds each caller's quotes that may still be open; used and
	// expired ones leave it when the caller reaches its bound.
	callers map[string]map[*memQuote]struct{}
}

// memQuote is a quote held, in its queue while not used, in the heap of
// used quotes after (queue nil).
type memQuote struct {
	q     Quote
	queue *list.List
	elem  *list.Element
	index int // in used
}

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{Keep: time.Hour, quotes: map[string]*memQuote{}, queues: map[time.Duration]*list.List{}, callers: map[string]map[*memQuote]struct{}{}}
}

// Len is the number of quotes held that are not used (tests and
// metrics): what MaxQuotes bounds.
func (s *Memory) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.quotes) - len(s.used)
}

// UsedLen is the number of used quotes remembered: what MaxUsed bounds.
func (s *Memory) UsedLen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.used)
}

func (s *Memory) Save(_ context.Context, q *Quote) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := q.Created
	s.dropWhile(func(m *memQuote) bool { return now.Sub(m.q.Expires) > s.Keep })
	s.dropUsed(now)
	if !s.callerMayQuote(q.Caller, now) {
		return ErrCallerFull
	}
	limit := s.MaxQuotes
	if limit <= 0 {
		limit = DefaultMaxQuotes
	}
	if len(s.quotes)-len(s.used) >= limit {
		// Expired quotes are kept only for a kinder message; a run that
		// stopped part-way is kept for its resumption.
		s.dropWhile(func(m *memQuote) bool { return !now.Before(m.q.Expires) && m.q.Progress == nil })
	}
	if len(s.quotes)-len(s.used) >= limit {
		return ErrFull
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
func (s *Memory) callerMayQuote(caller string, now time.Time) bool {
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
func (s *Memory) dropWhile(drop func(*memQuote) bool) {
	for life, queue := range s.queues {
		for e := queue.Front(); e != nil && drop(e.Value.(*memQuote)); e = queue.Front() {
			s.remove(e.Value.(*memQuote))
		}
		if queue.Len() == 0 {
			delete(s.queues, life)
		}
	}
}

func (s *Memory) remove(m *memQuote) {
	if m.queue != nil {
		m.queue.Remove(m.elem)
	} else {
		heap.Remove(&s.used, m.index)
	}
	delete(s.quotes, m.q.ID)
	s.leaveCaller(m)
}

// leaveCaller takes m out of its caller's open quotes.
func (s *Memory) leaveCaller(m *memQuote) {
	if held := s.callers[m.q.Caller]; held != nil {
		delete(held, m)
		if len(held) == 0 {
			delete(s.callers, m.q.Caller)
		}
	}
}

// retire turns m, just used, into the record of its use: out of the
// queues and its caller's open quotes, without the values only a run
// reads, into the used heap; past MaxUsed the used quote closest to its
// end is forgotten.
func (s *Memory) retire(m *memQuote) {
	m.queue.Remove(m.elem)
	m.queue, m.elem = nil, nil
	s.leaveCaller(m)
	m.q = usedRecord(&m.q)
	heap.Push(&s.used, m)
	s.dropUsed(m.q.UsedAt)
	limit := s.MaxUsed
	if limit <= 0 {
		limit = DefaultMaxUsedQuotes
	}
	for len(s.used) > limit {
		s.remove(s.used[0])
	}
}

// dropUsed forgets the used quotes whose keep time has passed at now.
func (s *Memory) dropUsed(now time.Time) {
	for len(s.used) > 0 && now.Sub(s.used[0].q.Expires) > s.Keep {
		s.remove(s.used[0])
	}
}

// usedRecord is what is kept of a used quote: what a replayed confirm is
// checked and answered with (whose, which tool's, when used), not its
// arguments, body or progress.
func usedRecord(q *Quote) Quote {
	return Quote{ID: q.ID, Tool: q.Tool, Identity: q.Identity, Caller: q.Caller,
		Created: q.Created, Expires: q.Expires, Used: true, UsedAt: q.UsedAt}
}

// usedQuotes is a min-heap of used quotes by expiry.
type usedQuotes []*memQuote

func (h usedQuotes) Len() int           { return len(h) }
func (h usedQuotes) Less(i, j int) bool { return h[i].q.Expires.Before(h[j].q.Expires) }
func (h usedQuotes) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *usedQuotes) Push(x any) {
	m := x.(*memQuote)
	m.index = len(*h)
	*h = append(*h, m)
}
func (h *usedQuotes) Pop() any {
	old := *h
	m := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return m
}

func (s *Memory) Load(_ context.Context, id string) (*Quote, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.quotes[id]
	if !ok {
		return nil, ErrNotFound
	}
	cp := m.q
	return &cp, nil
}

func (s *Memory) Reserve(_ context.Context, id string, r Reservation) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.quotes[id]
	switch {
	case !ok:
		return ErrNotFound
	case m.q.Used:
		return ErrUsed
	case r.From == "" && m.q.ReservedBy != "" && r.Now.Before(m.q.ReservedUntil):
		return ErrReserved
	case r.From != "" && m.q.ReservedBy != r.From:
		return ErrNotReserved
	}
	m.q.ReservedBy, m.q.ReservedUntil = r.To, r.Until
	return nil
}

func (s *Memory) Release(_ context.Context, id, token string, progress *Progress) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.quotes[id]
	if !ok {
		return ErrNotFound
	}
	if token == "" || m.q.ReservedBy != token {
		return ErrNotReserved
	}
	m.q.ReservedBy, m.q.ReservedUntil = "", time.Time{}
	m.q.Progress = progress
	return nil
}

func (s *Memory) Checkpoint(_ context.Context, id, token string, progress *Progress) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.heldBy(id, token)
	if err == nil {
		m.q.Progress = progress
	}
	return err
}

func (s *Memory) Consume(_ context.Context, id, token string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.heldBy(id, token)
	if err == nil {
		m.q.UsedAt = at
		s.retire(m)
	}
	return err
}

// heldBy is the unused quote id that token reserves (s.mu held).
func (s *Memory) heldBy(id, token string) (*memQuote, error) {
	m, ok := s.quotes[id]
	switch {
	case !ok:
		return nil, ErrNotFound
	case m.q.Used:
		return nil, ErrUsed
	case token == "" || m.q.ReservedBy != token:
		return nil, ErrNotReserved
	}
	return m, nil
}
