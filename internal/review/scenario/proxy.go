package scenario

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Request is one request the backend received, as the server sent it.
type Request struct {
	Method string
	// Path is the escaped path below the backend's base URL.
	Path   string
	Query  url.Values
	Header http.Header
	Body   []byte
}

// maxRecorded bounds the body kept of one request; the whole body is
// forwarded.
const maxRecorded = 4 << 20

// Proxy sits between a server and its backend on loopback, forwards every
// request unchanged and records it, so that scenarios (and tailor eval's
// success conditions) can check what the backend received.
type Proxy struct {
	URL      string
	srv      *http.Server
	mu       sync.Mutex
	received []Request
}

// StartProxy starts a recording proxy to backend; a backend that cannot be
// reached is an error.
func StartProxy(backend string) (*Proxy, error) {
	target, err := url.Parse(backend)
	if err != nil || (target.Scheme != "http" && target.Scheme != "https") || target.Host == "" {
		return nil, fmt.Errorf("the backend %q is not an http(s) URL", backend)
	}
	// A backend that is not there is bad input, not a failed scenario.
	addr := target.Host
	if target.Port() == "" {
		addr = net.JoinHostPort(target.Hostname(), map[string]string{"http": "80", "https": "443"}[target.Scheme])
	}
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("the backend %s cannot be reached: %w", backend, err)
	}
	conn.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{URL: "http://" + ln.Addr().String()}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = target.Host
		},
		// Answers go back as they are: a redirect is the server's to handle.
		ModifyResponse: func(*http.Response) error { return nil },
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "tailor test: the backend could not be reached: "+err.Error(), http.StatusBadGateway)
		},
	}
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		kept := body
		if len(kept) > maxRecorded {
			kept = kept[:maxRecorded]
		}
		p.mu.Lock()
		p.received = append(p.received, Request{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.Query(), Header: r.Header.Clone(), Body: kept})
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	})}
	go p.srv.Serve(ln)
	return p, nil
}

// Mark is how many requests were received so far.
func (p *Proxy) Mark() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.received)
}

// Since returns the requests received after mark.
func (p *Proxy) Since(mark int) []Request {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.received[mark:]...)
}

// Close stops the proxy.
func (p *Proxy) Close() {
	if p != nil {
		p.srv.Close()
	}
}

// sensitive headers are not shown in failure output (a scenario can still
// check them).
func sensitive(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization", "cookie":
		return true
	}
	for _, w := range []string{"key", "token", "secret", "password"} {
		if strings.Contains(n, w) && n != "idempotency-key" {
			return true
		}
	}
	return false
}
