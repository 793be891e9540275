package mcpkit

import "sync"

// afterReply holds work that waits until the answer it follows is on its
// way: over stdio, a call's audit record is built and written right after
// the connection has written the call's result, instead of before it. The
// record is the same; the client no longer waits for it. Measured with a
// call after 1 ms of quiet (as an agent calls), building and writing the
// record before the answer made the median round trip about a tenth
// longer, far more than its few microseconds of CPU on a warm loop: on a
// small VM every step between the backend's answer and the client's read
// is paid with cold caches.
//
// Nothing is lost or reordered for a call: its record is queued when its
// handler has returned, the queue runs after every message the connection
// writes (the call's own result is one of them, so its record is written
// no later than right after it), and when the connection closes, whatever
// is queued is written, and work that comes later runs at once. Records
// of calls running side by side keep the order in which they ended.
type afterReply struct {
	mu     sync.Mutex
	jobs   []func()
	closed bool
	// running serializes the runs, so that records keep their order.
	running sync.Mutex
}

// do runs f after the next message written, or now when q is nil (no
// transport defers: HTTP) or closed.
func (q *afterReply) do(f func()) {
	if q != nil {
		q.mu.Lock()
		if !q.closed {
			q.jobs = append(q.jobs, f)
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		q.running.Lock()
		defer q.running.Unlock()
	}
	f()
}

// run runs the work queued so far.
func (q *afterReply) run() {
	if q == nil {
		return
	}
	q.running.Lock()
	defer q.running.Unlock()
	q.mu.Lock()
	jobs := q.jobs
	q.jobs = nil
	q.mu.Unlock()
	for _, f := range jobs {
		f()
	}
}

// close runs what is queued; later work runs at once.
func (q *afterReply) close() {
	if q == nil {
		return
	}
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.run()
}
