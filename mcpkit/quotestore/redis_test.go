package quotestore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailormcp/tailor/internal/redistest"
	"github.com/tailormcp/tailor/mcpkit/internal/redisconn"
)

// TestRedisQuoteStoreNativeExpiry: Redis drops a quote by itself Keep
// after it expires; until then a late confirm still finds it (and is told
// it expired).
func TestRedisQuoteStoreNativeExpiry(t *testing.T) {
	ctx := context.Background()
	client := testRedis(t)
	s := NewRedis(client, "exp")
	s.Keep = 400 * time.Millisecond
	now := time.Now()
	saveQuote(t, s, "q_e", now, 300*time.Millisecond)
	ttl, err := client.PTTL(ctx, "exp:quote:q_e").Result()
	if err != nil {
		t.Fatal(err)
	}
	if ttl <= 0 || ttl > 700*time.Millisecond {
		t.Fatalf("the quote's key expires in %s, want about 700ms", ttl)
	}
	time.Sleep(400 * time.Millisecond)
	q, err := s.Load(ctx, "q_e")
	if err != nil || !time.Now().After(q.Expires) {
		t.Fatalf("an expired quote within its keep time: %+v, %v", q, err)
	}
	time.Sleep(500 * time.Millisecond)
	if _, err := s.Load(ctx, "q_e"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after its keep time: %v", err)
	}
	// The next save drops its index entry.
	saveQuote(t, s, "q_f", time.Now(), time.Minute)
	if n, _ := s.Len(ctx); n != 1 {
		t.Fatalf("the index holds %d quotes, want 1", n)
	}
}

// TestRedisQuoteStoreCapAcrossReplicas: two replicas (two clients) saving
// at once never take the store past its cap: the count and the save are
// one step.
func TestRedisQuoteStoreCapAcrossReplicas(t *testing.T) {
	srv := redistest.Start(t, false)
	var stores []*Redis
	for i := 0; i < 2; i++ {
		target, err := redisconn.Open("test", srv.URL(), 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { target.Client.Close() })
		s := NewRedis(target.Client, "cap")
		s.MaxQuotes = 50
		stores = append(stores, s)
	}
	var saved, full atomic.Int32
	var wg sync.WaitGroup
	now := time.Now()
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := stores[i%2].Save(context.Background(), &Quote{ID: fmt.Sprint("q_", i), Created: now, Expires: now.Add(time.Minute)})
			switch {
			case err == nil:
				saved.Add(1)
			case errors.Is(err, ErrFull):
				full.Add(1)
			default:
				t.Errorf("save: %v", err)
			}
		}()
	}
	wg.Wait()
	n, err := stores[0].Len(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if saved.Load() != 50 || full.Load() != 150 || n != 50 {
		t.Fatalf("saved %d, refused %d, held %d; want 50, 150, 50", saved.Load(), full.Load(), n)
	}
}

// TestRedisQuoteStoreUnreachable: with Redis down every operation fails
// within the timeout with ErrUnavailable; after a restart (with
// its data) the store works again with no action of the caller.
func TestRedisQuoteStoreUnreachable(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t, true)
	target, err := redisconn.Open("test", srv.URL(), 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { target.Client.Close() })
	s := NewRedis(target.Client, "down")
	now := time.Now()
	saveQuote(t, s, "q_1", now, time.Hour)
	srv.Stop()
	for name, op := range map[string]func() error{
		"save": func() error { return s.Save(ctx, &Quote{ID: "q_2", Created: now, Expires: now.Add(time.Hour)}) },
		"load": func() error { _, err := s.Load(ctx, "q_1"); return err },
		"reserve": func() error {
			return s.Reserve(ctx, "q_1", Reservation{To: "t", Until: now.Add(time.Minute), Now: now})
		},
		"release":    func() error { return s.Release(ctx, "q_1", "t", nil) },
		"checkpoint": func() error { return s.Checkpoint(ctx, "q_1", "t", nil) },
		"consume":    func() error { return s.Consume(ctx, "q_1", "t", now) },
		"ping":       func() error { return s.Ping(ctx) },
	} {
		began := time.Now()
		err := op()
		if !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s with Redis down: %v", name, err)
		}
		if d := time.Since(began); d > 2*time.Second {
			t.Errorf("%s took %s with a 500ms timeout", name, d)
		}
	}
	srv.Restart(true)
	if _, err := s.Load(ctx, "q_1"); err != nil {
		t.Fatalf("after the restart: %v", err)
	}
}
