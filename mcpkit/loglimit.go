package mcpkit

import (
	"sync"
	"time"
)

// logLimiter lets a repeated log line through at most once per interval,
// counting the ones it held back.
type logLimiter struct {
	every time.Duration
	now   func() time.Time // nil: time.Now
	mu    sync.Mutex
	last  time.Time
	held  int
}

// allow reports whether to log now, and how many were held back since the
// last line.
func (l *logLimiter) allow() (held int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	clock := time.Now
	if l.now != nil {
		clock = l.now
	}
	if now := clock(); now.Sub(l.last) >= l.every {
		held, l.held, l.last = l.held, 0, now
		return held, true
	}
	l.held++
	return 0, false
}

// logLimiters is a logLimiter for each key, so that lines about different
// things are limited apart (a kind of refused token, a tool's misfit).
// The keys come from what clients and backends send, so at most
// maxLimitedKeys are kept: one more forgets them all, which costs at worst
// a line more per key, never memory without bound.
type logLimiters struct {
	every time.Duration
	now   func() time.Time // nil: time.Now
	mu    sync.Mutex
	keys  map[string]*logLimiter
}

const maxLimitedKeys = 1024

// allow reports whether to log the line of key now, and how many of its
// lines were held back since its last one.
func (ls *logLimiters) allow(key string) (held int, ok bool) {
	ls.mu.Lock()
	l := ls.keys[key]
	if l == nil {
		if ls.keys == nil || len(ls.keys) >= maxLimitedKeys {
			ls.keys = map[string]*logLimiter{}
		}
		l = &logLimiter{every: ls.every, now: ls.now}
		ls.keys[key] = l
	}
	ls.mu.Unlock()
	return l.allow()
}

// withHeld adds to a limited line's attributes how many lines of its key
// were held back before it, when any were.
func withHeld(args []any, held int) []any {
	if held > 0 {
		args = append(args, "similar_lines_held_back", held)
	}
	return args
}
