package mcpkit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func saveQuote(t *testing.T, s QuoteStore, id string, now time.Time, ttl time.Duration) {
	t.Helper()
	if err := s.Save(context.Background(), &Quote{ID: id, Created: now, Expires: now.Add(ttl)}); err != nil {
		t.Fatal(err)
	}
}

// TestReserveIsExactlyOnce: of concurrent confirms of one quote exactly
// one reserves it, and only the holder can consume it, once.
func TestReserveIsExactlyOnce(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryQuoteStore()
	now := time.Now()
	saveQuote(t, s, "q_1", now, time.Minute)
	var wins atomic.Int32
	var winner atomic.Value
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			token := fmt.Sprint("t", i)
			switch err := s.Reserve(ctx, "q_1", Reservation{To: token, Until: now.Add(time.Minute), Now: now}); {
			case err == nil:
				wins.Add(1)
				winner.Store(token)
			case !errors.Is(err, ErrQuoteReserved):
				t.Errorf("reserve: %v", err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d callers reserved the quote, want exactly 1", wins.Load())
	}
	if err := s.Consume(ctx, "q_1", "t-other", now); !errors.Is(err, ErrQuoteNotReserved) {
		t.Fatalf("a non-holder consumed: %v", err)
	}
	if err := s.Consume(ctx, "q_1", winner.Load().(string), now); err != nil {
		t.Fatal(err)
	}
	if err := s.Consume(ctx, "q_1", winner.Load().(string), now); !errors.Is(err, ErrQuoteUsed) {
		t.Fatalf("consumed twice: %v", err)
	}
	if err := s.Reserve(ctx, "q_1", Reservation{To: "x", Until: now.Add(time.Minute), Now: now}); !errors.Is(err, ErrQuoteUsed) {
		t.Fatalf("a used quote was reserved: %v", err)
	}
	if err := s.Reserve(ctx, "q_missing", Reservation{To: "x", Now: now}); !errors.Is(err, ErrQuoteNotFound) {
		t.Fatalf("unknown quote: %v", err)
	}
}

// TestReserveSwapReleaseAndLapse: a reservation is swapped only from its
// token (a
// replayed token finds it gone), released back to free, and lapses.
func TestReserveSwapReleaseAndLapse(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryQuoteStore()
	now := time.Now()
	saveQuote(t, s, "q_1", now, time.Hour)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Reserve(ctx, "q_1", Reservation{To: "nonce", Until: now.Add(time.Minute), Now: now}))
	must(s.Reserve(ctx, "q_1", Reservation{From: "nonce", To: "run", Until: now.Add(time.Minute), Now: now}))
	if err := s.Reserve(ctx, "q_1", Reservation{From: "nonce", To: "replay", Until: now.Add(time.Minute), Now: now}); !errors.Is(err, ErrQuoteNotReserved) {
		t.Fatalf("replayed nonce: %v", err)
	}
	if err := s.Release(ctx, "q_1", "nonce", nil); !errors.Is(err, ErrQuoteNotReserved) {
		t.Fatalf("released by a stale token: %v", err)
	}
	p := &Progress{Calls: []CallOutcome{{Step: "a", Outcome: OutcomeUnknown, IdempotencyKey: "k"}}}
	must(s.Release(ctx, "q_1", "run", p))
	q, err := s.Load(ctx, "q_1")
	must(err)
	if q.ReservedBy != "" || q.Progress == nil || q.Progress.Calls[0].IdempotencyKey != "k" {
		t.Fatalf("after release: %+v", q)
	}
	// A reservation nobody settles lapses; the quote is free again after it.
	must(s.Reserve(ctx, "q_1", Reservation{To: "stuck", Until: now.Add(time.Minute), Now: now}))
	if err := s.Reserve(ctx, "q_1", Reservation{To: "next", Until: now.Add(time.Hour), Now: now.Add(30 * time.Second)}); !errors.Is(err, ErrQuoteReserved) {
		t.Fatalf("reserved quote taken: %v", err)
	}
	must(s.Reserve(ctx, "q_1", Reservation{To: "next", Until: now.Add(time.Hour), Now: now.Add(2 * time.Minute)}))
}

// TestQuoteStoreBounded: at its cap the store drops expired quotes first,
// then refuses new ones; it never grows past the cap.
func TestQuoteStoreBounded(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryQuoteStore()
	s.MaxQuotes = 100
	now := time.Now()
	for i := 0; i < 100; i++ {
		saveQuote(t, s, fmt.Sprint("q_", i), now, time.Minute)
	}
	if err := s.Save(ctx, &Quote{ID: "q_over", Created: now, Expires: now.Add(time.Minute)}); !errors.Is(err, ErrQuoteStoreFull) {
		t.Fatalf("over the cap: %v", err)
	}
	if s.Len() != 100 {
		t.Fatalf("%d quotes", s.Len())
	}
	// Once they have expired, room is made even within their keep time.
	later := now.Add(2 * time.Minute)
	saveQuote(t, s, "q_later", later, time.Minute)
	if _, err := s.Load(ctx, "q_later"); err != nil {
		t.Fatal(err)
	}
	if s.Len() > 100 {
		t.Fatalf("%d quotes", s.Len())
	}
}

// TestQuoteStoreExpiry: quotes leave the store Keep after they expire,
// whatever the mix of lifetimes, without a walk of the store.
func TestQuoteStoreExpiry(t *testing.T) {
	s := NewMemoryQuoteStore()
	s.Keep = time.Minute
	s.MaxQuotes = 1 << 30
	start := time.Now()
	// 200,000 quotes over 100 simulated minutes, lifetimes 1 and 15 minutes:
	// live ones are at most (15+1) minutes' worth.
	const n = 200000
	began := time.Now()
	for i := 0; i < n; i++ {
		now := start.Add(time.Duration(i) * 30 * time.Millisecond)
		ttl := time.Minute
		if i%2 == 0 {
			ttl = 15 * time.Minute
		}
		saveQuote(t, s, fmt.Sprint("q_", i), now, ttl)
	}
	perMinute := n / 100
	if got, max := s.Len(), 17*perMinute; got > max {
		t.Fatalf("%d quotes kept, want at most %d", got, max)
	}
	if _, err := s.Load(context.Background(), "q_0"); !errors.Is(err, ErrQuoteNotFound) {
		t.Fatalf("the first quote is still kept: %v", err)
	}
	// A walk of the store per save would take minutes here.
	if d := time.Since(began); d > 20*time.Second {
		t.Fatalf("%d saves took %s", n, d)
	}
}
