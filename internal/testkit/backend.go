package testkit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Received is one request as the backend saw it.
type Received struct {
	Method  string
	RawPath string // escaped path, exactly as sent
	Query   string // raw query string
	Header  http.Header
	Body    string
}

// Backend is a loopback HTTP server that records every request and answers
// with the handler the test installed.
type Backend struct {
	*httptest.Server
	mu       sync.Mutex
	received []Received
	handler  http.HandlerFunc
}

// NewBackend starts a backend; h answers requests (may be replaced with Handle).
func NewBackend(t testing.TB, h http.HandlerFunc) *Backend {
	b := &Backend{handler: h}
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		b.mu.Lock()
		b.received = append(b.received, Received{Method: r.Method, RawPath: r.URL.EscapedPath(), Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: string(body)})
		h := b.handler
		b.mu.Unlock()
		if h == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h(w, r)
	}))
	t.Cleanup(b.Close)
	return b
}

// Handle replaces the response handler.
func (b *Backend) Handle(h http.HandlerFunc) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.handler = h
}

// Received returns the requests so far and forgets them.
func (b *Backend) Take() []Received {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.received
	b.received = nil
	return out
}

// Last returns the most recent request; it fails the test if there is none.
func (b *Backend) Last(t testing.TB) Received {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.received) == 0 {
		t.Fatal("the backend received no request")
	}
	return b.received[len(b.received)-1]
}
