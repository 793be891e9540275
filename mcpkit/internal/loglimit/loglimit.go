// Package loglimit keeps a repeated log line from flooding the log: it lets
// the line through at most once per interval and counts the ones held back.
package loglimit

import (
	"sync"
	"time"
)

// Limiter lets a repeated log line through at most once per interval,
// counting the ones it held back.
type Limiter struct {
	Every time.Duration    // the least time between two lines
	Now   func() time.Time // the clock; nil: time.Now
	mu    sync.Mutex
	last  time.Time
	held  int
}

// Allow reports whether to log now, and how many were held back since the
// last line.
func (l *Limiter) Allow() (held int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	clock := time.Now
	if l.Now != nil {
		clock = l.Now
	}
	if now := clock(); now.Sub(l.last) >= l.Every {
		held, l.held, l.last = l.held, 0, now
		return held, true
	}
	l.held++
	return 0, false
}

// Keyed is a Limiter for each key, so that lines about different
// things are limited apart (a kind of refused token, a tool's misfit).
// The keys come from what clients and backends send, so at most
// maxLimitedKeys are kept: one more forgets them all, which costs at worst
// a line more per key, never memory without bound.
type Keyed struct {
	Every time.Duration
	Now   func() time.Time // nil: time.Now
	mu    sync.Mutex
	keys  map[string]*Limiter
}

const maxLimitedKeys = 1024

// Allow reports whether to log the line of key now, and how many of its
// lines were held back since its last one.
func (ls *Keyed) Allow(key string) (held int, ok bool) {
	ls.mu.Lock()
	l := ls.keys[key]
	if l == nil {
		if ls.keys == nil || len(ls.keys) >= maxLimitedKeys {
			ls.keys = map[string]*Limiter{}
		}
		l = &Limiter{Every: ls.Every, Now: ls.Now}
		ls.keys[key] = l
	}
	ls.mu.Unlock()
	return l.Allow()
}

// WithHeld adds to a limited line's attributes how many lines of its key
// were held back before it, when any were.
func WithHeld(args []any, held int) []any {
	if held > 0 {
		args = append(args, "similar_lines_held_back", held)
	}
	return args
}
