package quotestore

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tailormcp/tailor/internal/redistest"
	"github.com/tailormcp/tailor/mcpkit/internal/redisconn"
)

// storeKind is a Store implementation under the one contract below:
// every test of it runs on the memory store and on the Redis store (a
// real redis-server, see internal/redistest).
type storeKind struct {
	name string
	// open returns an empty store holding at most max quotes.
	open func(t *testing.T, max int) Store
	// count is how many quotes the store holds.
	count func(t *testing.T, s Store) int
}

var storeKinds = []storeKind{
	{name: "memory",
		open: func(t *testing.T, max int) Store {
			s := NewMemory()
			s.MaxQuotes = max
			return s
		},
		count: func(t *testing.T, s Store) int { return s.(*Memory).Len() }},
	{name: "redis",
		open: func(t *testing.T, max int) Store {
			s := NewRedis(testRedis(t), "test:"+strings.ToLower(rand.Text()[:8]))
			s.MaxQuotes = max
			return s
		},
		count: func(t *testing.T, s Store) int {
			n, err := s.(*Redis).Len(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			return n
		}},
}

// eachStore runs test on every kind of store.
func eachStore(t *testing.T, test func(t *testing.T, k storeKind)) {
	for _, k := range storeKinds {
		t.Run(k.name, func(t *testing.T) { test(t, k) })
	}
}

// testRedis is a client of a redis-server started for t.
func testRedis(t *testing.T) *redis.Client {
	t.Helper()
	srv := redistest.Start(t, false)
	target, err := redisconn.Open("test", srv.URL(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { target.Client.Close() })
	return target.Client
}

func saveQuote(t *testing.T, s Store, id string, now time.Time, ttl time.Duration) {
	t.Helper()
	if err := s.Save(context.Background(), &Quote{ID: id, Created: now, Expires: now.Add(ttl)}); err != nil {
		t.Fatal(err)
	}
}

// TestReserveIsExactlyOnce: of concurrent confirms of one quote exactly
// one reserves it, and only the holder can consume it, once.
func TestReserveIsExactlyOnce(t *testing.T) { eachStore(t, testReserveIsExactlyOnce) }

func testReserveIsExactlyOnce(t *testing.T, k storeKind) {
	ctx := context.Background()
	s := k.open(t, 0)
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
			case !errors.Is(err, ErrReserved):
				t.Errorf("reserve: %v", err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d callers reserved the quote, want exactly 1", wins.Load())
	}
	if err := s.Consume(ctx, "q_1", "t-other", now); !errors.Is(err, ErrNotReserved) {
		t.Fatalf("a non-holder consumed: %v", err)
	}
	if err := s.Consume(ctx, "q_1", winner.Load().(string), now); err != nil {
		t.Fatal(err)
	}
	if err := s.Consume(ctx, "q_1", winner.Load().(string), now); !errors.Is(err, ErrUsed) {
		t.Fatalf("consumed twice: %v", err)
	}
	if err := s.Reserve(ctx, "q_1", Reservation{To: "x", Until: now.Add(time.Minute), Now: now}); !errors.Is(err, ErrUsed) {
		t.Fatalf("a used quote was reserved: %v", err)
	}
	if err := s.Reserve(ctx, "q_missing", Reservation{To: "x", Now: now}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown quote: %v", err)
	}
}

// TestReserveSwapReleaseAndLapse: a reservation is swapped only from its
// token (a
// replayed token finds it gone), released back to free, and lapses.
func TestReserveSwapReleaseAndLapse(t *testing.T) { eachStore(t, testReserveSwapReleaseAndLapse) }

func testReserveSwapReleaseAndLapse(t *testing.T, k storeKind) {
	ctx := context.Background()
	s := k.open(t, 0)
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
	if err := s.Reserve(ctx, "q_1", Reservation{From: "nonce", To: "replay", Until: now.Add(time.Minute), Now: now}); !errors.Is(err, ErrNotReserved) {
		t.Fatalf("replayed nonce: %v", err)
	}
	if err := s.Release(ctx, "q_1", "nonce", nil); !errors.Is(err, ErrNotReserved) {
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
	if err := s.Reserve(ctx, "q_1", Reservation{To: "next", Until: now.Add(time.Hour), Now: now.Add(30 * time.Second)}); !errors.Is(err, ErrReserved) {
		t.Fatalf("reserved quote taken: %v", err)
	}
	must(s.Reserve(ctx, "q_1", Reservation{To: "next", Until: now.Add(time.Hour), Now: now.Add(2 * time.Minute)}))
}

// TestQuoteStoreBounded: at its cap the store drops expired quotes first,
// then refuses new ones; it never grows past the cap.
func TestQuoteStoreBounded(t *testing.T) { eachStore(t, testQuoteStoreBounded) }

func testQuoteStoreBounded(t *testing.T, k storeKind) {
	ctx := context.Background()
	s := k.open(t, 100)
	now := time.Now()
	for i := 0; i < 100; i++ {
		saveQuote(t, s, fmt.Sprint("q_", i), now, time.Minute)
	}
	if err := s.Save(ctx, &Quote{ID: "q_over", Created: now, Expires: now.Add(time.Minute)}); !errors.Is(err, ErrFull) {
		t.Fatalf("over the cap: %v", err)
	}
	if n := k.count(t, s); n != 100 {
		t.Fatalf("%d quotes", n)
	}
	// Once they have expired, room is made even within their keep time.
	later := now.Add(2 * time.Minute)
	saveQuote(t, s, "q_later", later, time.Minute)
	if _, err := s.Load(ctx, "q_later"); err != nil {
		t.Fatal(err)
	}
	if n := k.count(t, s); n > 100 {
		t.Fatalf("%d quotes", n)
	}
}

// TestQuoteStoreExpiry: quotes leave the store Keep after they expire,
// whatever the mix of lifetimes, without a walk of the store.
func TestQuoteStoreExpiry(t *testing.T) {
	s := NewMemory()
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
	if _, err := s.Load(context.Background(), "q_0"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the first quote is still kept: %v", err)
	}
	// A walk of the store per save would take minutes here.
	if d := time.Since(began); d > 20*time.Second {
		t.Fatalf("%d saves took %s", n, d)
	}
}

// TestQuoteStoreKeepsValues: a stored quote reads back as it was made:
// numbers stay json.Number (64-bit ids exact), times to the millisecond.
func TestQuoteStoreKeepsValues(t *testing.T) { eachStore(t, testQuoteStoreKeepsValues) }

func testQuoteStoreKeepsValues(t *testing.T, k storeKind) {
	ctx := context.Background()
	s := k.open(t, 0)
	now := time.Now().Truncate(time.Millisecond)
	in := &Quote{ID: "q_v", Tool: "quote_x", Identity: "abc", Created: now, Expires: now.Add(time.Minute),
		Args: map[string]any{"id": json.Number("12345678901234567891"), "items": []any{"a", "b"}},
		Body: map[string]any{"amount": json.Number("230"), "note": "ünïcode ✓"}}
	if err := s.Save(ctx, in); err != nil {
		t.Fatal(err)
	}
	q, err := s.Load(ctx, "q_v")
	if err != nil {
		t.Fatal(err)
	}
	if q.Tool != "quote_x" || q.Identity != "abc" || !q.Created.Equal(now) || !q.Expires.Equal(in.Expires) || q.Used || q.ReservedBy != "" || q.Progress != nil {
		t.Fatalf("loaded %+v", q)
	}
	if q.Args["id"] != json.Number("12345678901234567891") || q.Body.(map[string]any)["amount"] != json.Number("230") || q.Body.(map[string]any)["note"] != "ünïcode ✓" {
		t.Fatalf("values changed: %#v %#v", q.Args, q.Body)
	}
}

// TestQuoteStoreCheckpoint: only the reservation's holder records
// progress, the reservation stays, and releasing stores exactly the
// progress given (nil clears it), so a run that did nothing leaves no
// progress behind to be taken for a resumable one.
func TestQuoteStoreCheckpoint(t *testing.T) { eachStore(t, testQuoteStoreCheckpoint) }

func testQuoteStoreCheckpoint(t *testing.T, k storeKind) {
	ctx := context.Background()
	s := k.open(t, 0)
	now := time.Now()
	saveQuote(t, s, "q_c", now, time.Hour)
	p := &Progress{Approved: now.Truncate(time.Millisecond), Calls: []CallOutcome{{Step: "cancel", Item: 1, Outcome: OutcomeUnknown, IdempotencyKey: "q_c-1"}}}
	if err := s.Checkpoint(ctx, "q_c", "run", p); !errors.Is(err, ErrNotReserved) {
		t.Fatalf("checkpoint without the reservation: %v", err)
	}
	if err := s.Reserve(ctx, "q_c", Reservation{To: "run", Until: now.Add(time.Minute), Now: now}); err != nil {
		t.Fatal(err)
	}
	if err := s.Checkpoint(ctx, "q_c", "other", p); !errors.Is(err, ErrNotReserved) {
		t.Fatalf("checkpoint by another token: %v", err)
	}
	if err := s.Checkpoint(ctx, "q_c", "run", p); err != nil {
		t.Fatal(err)
	}
	q, err := s.Load(ctx, "q_c")
	if err != nil {
		t.Fatal(err)
	}
	if q.ReservedBy != "run" || q.Progress == nil || !q.Progress.Approved.Equal(p.Approved) || q.Progress.Calls[0].Item != 1 || q.Progress.Calls[0].IdempotencyKey != "q_c-1" {
		t.Fatalf("after checkpoint: %+v %+v", q, q.Progress)
	}
	// Concurrent confirms still find it reserved.
	if err := s.Reserve(ctx, "q_c", Reservation{To: "x", Until: now.Add(time.Minute), Now: now}); !errors.Is(err, ErrReserved) {
		t.Fatalf("reserve during the run: %v", err)
	}
	if err := s.Release(ctx, "q_c", "run", nil); err != nil {
		t.Fatal(err)
	}
	if q, _ = s.Load(ctx, "q_c"); q.Progress != nil || q.ReservedBy != "" {
		t.Fatalf("release with nil progress: %+v", q)
	}
	if err := s.Reserve(ctx, "q_c", Reservation{To: "run2", Until: now.Add(time.Minute), Now: now}); err != nil {
		t.Fatal(err)
	}
	if err := s.Consume(ctx, "q_c", "run2", now); err != nil {
		t.Fatal(err)
	}
	if err := s.Checkpoint(ctx, "q_c", "run2", p); !errors.Is(err, ErrUsed) {
		t.Fatalf("checkpoint of a used quote: %v", err)
	}
	if err := s.Checkpoint(ctx, "q_gone", "run2", p); !errors.Is(err, ErrNotFound) {
		t.Fatalf("checkpoint of an unknown quote: %v", err)
	}
	if q, _ = s.Load(ctx, "q_c"); !q.Used || q.UsedAt.IsZero() {
		t.Fatalf("consumed: %+v", q)
	}
}

// TestQuoteStorePerCaller: one caller holds at most its bound of open
// quotes; others can still quote, and used or expired quotes make room.
func TestQuoteStorePerCaller(t *testing.T) { eachStore(t, testQuoteStorePerCaller) }

func testQuoteStorePerCaller(t *testing.T, k storeKind) {
	ctx := context.Background()
	s := k.open(t, 100)
	switch s := s.(type) {
	case *Memory:
		s.MaxPerCaller = 3
	case *Redis:
		s.MaxPerCaller = 3
	}
	now := time.Now()
	save := func(id, caller string, at time.Time) error {
		return s.Save(ctx, &Quote{ID: id, Caller: caller, Created: at, Expires: at.Add(time.Minute)})
	}
	for i := range 3 {
		if err := save(fmt.Sprint("q_a", i), "a", now); err != nil {
			t.Fatal(err)
		}
	}
	if err := save("q_a3", "a", now); !errors.Is(err, ErrCallerFull) {
		t.Fatalf("a's fourth open quote: %v, want ErrCallerFull", err)
	}
	if _, err := s.Load(ctx, "q_a3"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a refused quote was stored: %v", err)
	}
	if err := save("q_b0", "b", now); err != nil {
		t.Fatalf("another caller cannot quote: %v", err)
	}
	if err := save("q_x0", "", now); err != nil {
		t.Fatalf("a quote without a caller: %v", err)
	}
	// A used quote is no longer open.
	if err := s.Reserve(ctx, "q_a0", Reservation{To: "run", Until: now.Add(time.Minute), Now: now}); err != nil {
		t.Fatal(err)
	}
	if err := s.Consume(ctx, "q_a0", "run", now); err != nil {
		t.Fatal(err)
	}
	if err := save("q_a4", "a", now); err != nil {
		t.Fatalf("after one was used: %v", err)
	}
	if err := save("q_a5", "a", now); !errors.Is(err, ErrCallerFull) {
		t.Fatalf("at the bound again: %v", err)
	}
	// Expired quotes are not open either.
	later := now.Add(2 * time.Minute)
	for i := range 3 {
		if err := save(fmt.Sprint("q_later", i), "a", later); err != nil {
			t.Fatalf("after a's quotes expired: %v", err)
		}
	}
	if err := save("q_later3", "a", later); !errors.Is(err, ErrCallerFull) {
		t.Fatalf("at the bound after expiry: %v", err)
	}
}

// TestQuoteStoreUsedQuotes: used quotes do not take the room of new ones
// (a server confirming more than MaxQuotes quotes within one quote
// lifetime keeps quoting); what is kept of a used quote still answers a
// replay, and no more than MaxUsed of them are kept, the one closest to
// its end forgotten first; a confirm is never refused for room.
func TestQuoteStoreUsedQuotes(t *testing.T) { eachStore(t, testQuoteStoreUsedQuotes) }

func testQuoteStoreUsedQuotes(t *testing.T, k storeKind) {
	ctx := context.Background()
	s := k.open(t, 3)
	usedLen := func() int {
		t.Helper()
		switch s := s.(type) {
		case *Memory:
			return s.UsedLen()
		case *Redis:
			n, err := s.UsedLen(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		panic("unknown store")
	}
	switch s := s.(type) {
	case *Memory:
		s.MaxUsed = 4
	case *Redis:
		s.MaxUsed = 4
	}
	now := time.Now().Truncate(time.Millisecond)
	use := func(id string, at time.Time) {
		t.Helper()
		if err := s.Reserve(ctx, id, Reservation{To: "run-" + id, Until: at.Add(time.Minute), Now: at}); err != nil {
			t.Fatal(err)
		}
		if err := s.Consume(ctx, id, "run-"+id, at); err != nil {
			t.Fatalf("consume %s: %v", id, err)
		}
	}
	// Ten rounds of three quotes, each quoted and confirmed within the
	// same minute; lifetimes grow with the round, so the first rounds' are
	// the closest to their end.
	for round := range 10 {
		for i := range 3 {
			id := fmt.Sprintf("q_%d_%d", round, i)
			q := &Quote{ID: id, Tool: "quote_x", Identity: "who", Caller: "c", Created: now,
				Expires: now.Add(time.Duration(10+round) * time.Minute),
				Args:    map[string]any{"items": []any{"a"}}, Body: map[string]any{"total": json.Number("7")}}
			if err := s.Save(ctx, q); err != nil {
				t.Fatalf("round %d: %s: %v (used quotes must not fill the store)", round, id, err)
			}
			use(id, now)
		}
		if n := k.count(t, s); n != 0 {
			t.Fatalf("round %d: %d quotes not used, want 0", round, n)
		}
		if n := usedLen(); n > 4 {
			t.Fatalf("round %d: %d used quotes kept, want at most 4", round, n)
		}
	}
	// The last four used are kept, and a replay of them hears "used".
	for id, round := range map[string]int{"q_8_2": 8, "q_9_0": 9, "q_9_1": 9, "q_9_2": 9} {
		q, err := s.Load(ctx, id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if !q.Used || !q.UsedAt.Equal(now) || q.Tool != "quote_x" || q.Identity != "who" || !q.Expires.Equal(now.Add(time.Duration(10+round)*time.Minute)) {
			t.Fatalf("%s kept as %+v", id, q)
		}
		if q.Args != nil || q.Body != nil || q.Progress != nil {
			t.Fatalf("%s keeps its values after use: %+v", id, q)
		}
		if err := s.Reserve(ctx, id, Reservation{To: "replay", Until: now.Add(time.Minute), Now: now}); !errors.Is(err, ErrUsed) {
			t.Fatalf("replay of %s: %v, want ErrUsed", id, err)
		}
	}
	if _, err := s.Load(ctx, "q_0_0"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the used quote closest to its end is still kept: %v", err)
	}
	// Quotes not used are still bounded, used ones aside.
	for i := range 3 {
		saveQuote(t, s, fmt.Sprint("q_open", i), now, time.Hour)
	}
	if err := s.Save(ctx, &Quote{ID: "q_over", Created: now, Expires: now.Add(time.Hour)}); !errors.Is(err, ErrFull) {
		t.Fatalf("over the cap of quotes not used: %v", err)
	}
	// Used quotes past their keep time leave the count.
	late := now.Add(3 * time.Hour)
	saveQuote(t, s, "q_late", late, time.Hour)
	use("q_late", late)
	if n := usedLen(); n != 1 {
		t.Fatalf("%d used quotes after the others' keep time, want 1", n)
	}
}
