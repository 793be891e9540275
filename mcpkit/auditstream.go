package mcpkit

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tailormcp/tailor/mcpkit/internal/loglimit"
)

// auditStream copies the audit log to a Redis stream (XADD key MAXLEN ~ n
// * line <record>), where the records of every replica meet. The records
// arrive already redacted and bounded (writeAudit). Writing is
// asynchronous and never fails or slows a call: records queue (up to
// auditQueue), a goroutine sends them in pipelined batches, and what
// cannot be written (Redis down, the queue full) is dropped and counted in
// a warning logged at most every 30 s. stderr keeps every record either way.
type auditStream struct {
	client *redis.Client
	key    string
	maxLen int64
	log    *slog.Logger
	limit  loglimit.Limiter

	queue  chan []byte
	done   chan struct{}
	mu     sync.RWMutex
	closed bool
}

const auditQueue = 4096

func newAuditStream(client *redis.Client, key string, maxLen int64, log *slog.Logger) *auditStream {
	s := &auditStream{client: client, key: key, maxLen: maxLen, log: log, limit: loglimit.Limiter{Every: 30 * time.Second},
		queue: make(chan []byte, auditQueue), done: make(chan struct{})}
	go s.run()
	return s
}

// Write queues one audit line; it never blocks and never fails.
func (s *auditStream) Write(p []byte) (int, error) {
	line := bytes.TrimRight(p, "\n")
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		// A call that outlived the shutdown: stderr has its record.
		return len(p), nil
	}
	select {
	case s.queue <- bytes.Clone(line):
	default:
		s.failed(1, "the queue is full")
	}
	return len(p), nil
}

func (s *auditStream) run() {
	defer close(s.done)
	batch := make([][]byte, 0, 64)
	for line := range s.queue {
		batch = append(batch[:0], line)
	more:
		for len(batch) < cap(batch) {
			select {
			case l, ok := <-s.queue:
				if !ok {
					break more
				}
				batch = append(batch, l)
			default:
				break more
			}
		}
		s.send(batch)
	}
}

func (s *auditStream) send(batch [][]byte) {
	pipe := s.client.Pipeline()
	for _, line := range batch {
		pipe.XAdd(context.Background(), &redis.XAddArgs{Stream: s.key, MaxLen: s.maxLen, Approx: true, Values: []any{"line", line}})
	}
	if _, err := pipe.Exec(context.Background()); err != nil {
		s.failed(len(batch), err.Error())
	}
}

func (s *auditStream) failed(n int, why string) {
	if held, ok := s.limit.Allow(); ok {
		s.log.Warn("audit records not written to the Redis stream (stderr has them)", "stream", s.key, "records", n, "error", why, "earlier_failures_not_logged", held)
	}
}

// close sends what is queued, waiting at most d.
func (s *auditStream) close(d time.Duration) {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.queue)
	}
	s.mu.Unlock()
	select {
	case <-s.done:
	case <-time.After(d):
		s.log.Warn("audit records still queued for the Redis stream at exit were not written (stderr has them)", "stream", s.key, "records", len(s.queue))
	}
}
