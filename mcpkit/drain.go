package mcpkit

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Graceful shutdown of the HTTP server (SIGTERM or SIGINT):
//
//  1. /readyz answers 503 and the listener closes: no new connections;
//  2. the calls in progress get up to the bound (--shutdown-timeout) to
//     finish and answer;
//  3. past it, they are interrupted (their context ends with
//     errShuttingDown): a write on its way has an unknown outcome, the
//     confirm run releases its quote with that progress (see checkpoint),
//     and the call's audit record says "outcome":"unknown" and why; the
//     quote is then resumed by a confirm on another replica;
//  4. calls still running shutdownGrace after that are recorded in the
//     audit log as unknown by the shutdown itself, and the process exits.
//
// A replica killed outright (SIGKILL, a lost machine) writes nothing more:
// its confirm runs recorded their progress before each write, and their
// quotes are resumable once their reservations lapse.

// errShuttingDown ends the context of calls interrupted by a shutdown.
var errShuttingDown = errors.New("the server was shutting down")

// shutdownGrace is how long interrupted calls get to record what they did.
const shutdownGrace = 3 * time.Second

// operationsState is a Runtime's state for running as a replica.
type operationsState struct {
	ready    readiness
	calls    callTracker
	stopping atomic.Bool
}

// callTracker knows the tool calls in progress.
type callTracker struct {
	mu    sync.Mutex
	next  uint64
	calls map[uint64]*runningCall
	// idle is closed when the last call in progress ends (nil: none wait).
	idle chan struct{}
}

type runningCall struct {
	id     uint64
	tool   string
	start  time.Time
	cancel context.CancelCauseFunc
	call   atomic.Pointer[Call]
}

// begin registers a call; its context ends when the call is interrupted.
func (t *callTracker) begin(ctx context.Context, tool string, start time.Time) (context.Context, *runningCall) {
	ctx, cancel := context.WithCancelCause(ctx)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.calls == nil {
		t.calls = map[uint64]*runningCall{}
	}
	t.next++
	rc := &runningCall{id: t.next, tool: tool, start: start, cancel: cancel}
	t.calls[rc.id] = rc
	return ctx, rc
}

// end unregisters a call, after its audit record is written.
func (t *callTracker) end(rc *runningCall) {
	rc.cancel(nil)
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.calls, rc.id)
	if len(t.calls) == 0 && t.idle != nil {
		close(t.idle)
		t.idle = nil
	}
}

// running lists the calls in progress.
func (t *callTracker) running() []*runningCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*runningCall, 0, len(t.calls))
	for _, rc := range t.calls {
		out = append(out, rc)
	}
	return out
}

// wait waits up to d for no call to be in progress; false if some still are.
func (t *callTracker) wait(d time.Duration) bool {
	t.mu.Lock()
	if len(t.calls) == 0 {
		t.mu.Unlock()
		return true
	}
	if t.idle == nil {
		t.idle = make(chan struct{})
	}
	idle := t.idle
	t.mu.Unlock()
	select {
	case <-idle:
		return true
	case <-time.After(d):
		return false
	}
}

// drain shuts srv down as described above.
func (k *Runtime) drain(srv *http.Server, bound time.Duration) {
	k.ops.stopping.Store(true)
	k.log.Info("shutting down: no new connections; waiting for the calls in progress", "calls", len(k.ops.calls.running()), "bound", bound.String())
	stopped := make(chan struct{})
	shutdownCtx, cancelShutdown := context.WithCancel(context.Background())
	defer cancelShutdown()
	go func() {
		// Closes the listener at once, then waits for connections to go
		// idle; event streams never do, so it is cut short below.
		_ = srv.Shutdown(shutdownCtx)
		close(stopped)
	}()
	if !k.ops.calls.wait(bound) {
		left := k.ops.calls.running()
		k.log.Warn("shutdown: calls still in progress at the bound are interrupted; their outcome is unknown", "calls", len(left), "bound", bound.String())
		for _, rc := range left {
			rc.cancel(errShuttingDown)
		}
		if !k.ops.calls.wait(shutdownGrace) {
			for _, rc := range k.ops.calls.running() {
				k.auditUnfinished(rc)
			}
		}
	}
	// The calls have answered; give the answers a moment to be written.
	select {
	case <-stopped:
	case <-time.After(time.Second):
	}
	cancelShutdown()
	_ = srv.Close()
	k.log.Info("stopped")
}

// auditUnfinished records a call that had not ended when the server
// stopped: what it was asked, and that whether it took effect is unknown.
func (k *Runtime) auditUnfinished(rc *runningCall) {
	rec := auditRecord{Time: rc.start.UTC().Format(time.RFC3339Nano), Msg: "audit", Tool: rc.tool, Outcome: "unknown",
		Interrupted: errShuttingDown.Error(), Millis: time.Since(rc.start).Milliseconds(),
		Message: "the server stopped before this call finished: whether its changes took effect is unknown (a confirm run's progress up to its last write is kept with its quote)"}
	if c := rc.call.Load(); c != nil && c.args != nil {
		// The call's own goroutine only reads these now.
		rec.Args, rec.Identity = summarize(anyMap(c.args), 0), c.contextValues()
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	k.auditOut.mu.Lock()
	defer k.auditOut.mu.Unlock()
	k.auditOut.w.Write(append(k.redactor.Bytes(b), '\n'))
}
