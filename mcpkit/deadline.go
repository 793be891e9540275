package mcpkit

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Backend requests are cut off at Config.Timeout by one timer shared by
// all of them, not a timer each (context.WithTimeout).
//
// Arming a timer that is the earliest of its processor's timers wakes
// another thread (the one waiting in the network poller, or an idle one)
// so that it notices the new time: system calls and, on an idle machine,
// a sleeping CPU woken, in the middle of every call. A server that has
// been quiet has no earlier timer, so every request paid it (traced with
// strace, a call after 1 ms of quiet made 1.3 more system calls, futex,
// eventfd and epoll, than with the shared timer). Here the shared timer is
// armed for the earliest deadline and left armed when its request ends
// early: with one timeout for every request, a later request's deadline
// is never earlier, so the timer is set about once per timeout period
// rather than once per request.

// requestDeadlines ends each registered context at its deadline.
type requestDeadlines struct {
	mu    sync.Mutex
	timer *time.Timer
	armed time.Time // when the timer fires; zero: not armed
	open  map[*deadlineCtx]struct{}
	// arms counts the times the timer was set (for tests).
	arms int
}

// deadlineCtx is a context that ends at its deadline, when the shared
// timer says so, with context.DeadlineExceeded as context.WithDeadline's
// does, or earlier with its parent.
type deadlineCtx struct {
	context.Context // a cancel context of the parent; requestDeadlines ends it
	cancel          context.CancelCauseFunc
	at              time.Time
}

func (c *deadlineCtx) Deadline() (time.Time, bool) { return c.at, true }

func (c *deadlineCtx) Err() error {
	err := c.Context.Err()
	if err != nil && errors.Is(context.Cause(c.Context), context.DeadlineExceeded) {
		return context.DeadlineExceeded
	}
	return err
}

// withTimeout is context.WithTimeout(parent, d) on the shared timer; the
// returned function releases the context (as the CancelFunc does).
func (ds *requestDeadlines) withTimeout(parent context.Context, d time.Duration) (context.Context, func()) {
	at := time.Now().Add(d)
	if pd, ok := parent.Deadline(); ok && !pd.After(at) {
		// The parent ends first: its own timer cuts the request off.
		return context.WithCancel(parent)
	}
	inner, cancel := context.WithCancelCause(parent)
	c := &deadlineCtx{Context: inner, cancel: cancel, at: at}
	ds.mu.Lock()
	if ds.open == nil {
		ds.open = map[*deadlineCtx]struct{}{}
	}
	ds.open[c] = struct{}{}
	if ds.armed.IsZero() || at.Before(ds.armed) {
		ds.arm(at)
	}
	ds.mu.Unlock()
	return c, func() {
		ds.mu.Lock()
		delete(ds.open, c)
		ds.mu.Unlock()
		cancel(context.Canceled)
	}
}

// arm sets the timer for at; ds.mu is held.
func (ds *requestDeadlines) arm(at time.Time) {
	ds.armed = at
	ds.arms++
	if ds.timer == nil {
		ds.timer = time.AfterFunc(time.Until(at), ds.fire)
		return
	}
	ds.timer.Reset(time.Until(at))
}

// fire ends the contexts whose deadline has come and arms the timer for
// the next one.
func (ds *requestDeadlines) fire() {
	now := time.Now()
	var due []*deadlineCtx
	ds.mu.Lock()
	ds.armed = time.Time{}
	var next time.Time
	for c := range ds.open {
		if !c.at.After(now) {
			due = append(due, c)
			delete(ds.open, c)
		} else if next.IsZero() || c.at.Before(next) {
			next = c.at
		}
	}
	if !next.IsZero() {
		ds.arm(next)
	}
	ds.mu.Unlock()
	for _, c := range due {
		c.cancel(context.DeadlineExceeded)
	}
}
