package loglimit

import (
	"strconv"
	"testing"
	"time"
)

// Keyed: each key is limited apart, a held-back count comes with
// the next line of its key, and the keys kept are bounded.
func TestLogLimiters(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ls := Keyed{Every: time.Minute, Now: func() time.Time { return clock }}
	for i, c := range []struct {
		key        string
		held       int
		ok         bool
		afterwards time.Duration
	}{
		{"a", 0, true, 0},
		{"a", 0, false, 0},
		{"b", 0, true, 0},
		{"a", 0, false, time.Minute},
		{"a", 2, true, 0},
		{"a", 0, false, 0},
	} {
		if held, ok := ls.Allow(c.key); held != c.held || ok != c.ok {
			t.Errorf("%d: Allow(%q) = %d, %v; want %d, %v", i, c.key, held, ok, c.held, c.ok)
		}
		clock = clock.Add(c.afterwards)
	}
	for i := range 3 * maxLimitedKeys {
		ls.Allow("key" + strconv.Itoa(i))
		if len(ls.keys) > maxLimitedKeys {
			t.Fatalf("%d keys kept, want at most %d", len(ls.keys), maxLimitedKeys)
		}
	}
}
