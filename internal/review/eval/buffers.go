package eval

import "sync"

// tailWriter keeps what a process writes, safe for its copying goroutine:
// the last 16 KiB of a backend's output, or all of a server's stderr (its
// audit log) when keepAll.
type tailWriter struct {
	mu      sync.Mutex
	b       []byte
	keepAll bool
}

const tailMax = 16 << 10

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - tailMax; over > 0 && !t.keepAll {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailWriter) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.b...)
}
