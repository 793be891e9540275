package mcpkit

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// Probes of the HTTP listener, for a load balancer or an orchestrator in
// front of replicas:
//
//   - /healthz answers 200 while the process serves (liveness);
//   - /readyz answers 200 when every readiness check passes, 503 otherwise
//     and from the moment a shutdown begins (so traffic moves to the other
//     replicas). Its body lists the checks:
//     {"ready":false,"checks":[{"name":"backend","ok":true},{"name":"quote store","ok":false,"error":"connection refused"}]}
//     Errors are kept to their kind (timed out, connection refused, ...):
//     the probe is unauthenticated, so addresses and details go to the
//     log only, when a check starts or stops failing.
//
// The checks are a list of named functions: the backend (a TCP connection
// to the base URL's host, or to the proxy that reaches it), the quote store
// when it can be pinged (Redis PING), and Config.ReadyChecks, where more
// (an identity provider's keys) are added. Results are cached briefly, so
// frequent probes cost the backends nothing more.

// ReadyCheck is one thing the server needs to serve calls; Check returns
// nil when it is there. It is given a context bounded by a short timeout.
type ReadyCheck struct {
	Name  string
	Check func(ctx context.Context) error
}

const (
	readyCacheFor = 2 * time.Second
	readyTimeout  = 2 * time.Second
)

// readiness runs the checks and remembers the last results.
type readiness struct {
	once   sync.Once
	checks []ReadyCheck

	mu      sync.Mutex
	at      time.Time
	results []checkResult
	failing map[string]bool
}

type checkResult struct {
	Name  string `json:"name"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// pinger is a quote store that can tell whether it is reachable.
type pinger interface {
	Ping(ctx context.Context) error
}

// readyChecks is the server's list of checks, built on first use.
func (k *Runtime) readyChecks() []ReadyCheck {
	r := &k.ops.ready
	r.once.Do(func() {
		r.checks = append(r.checks, ReadyCheck{Name: "backend", Check: k.backendReachable})
		if p, ok := k.quotes.(pinger); ok {
			r.checks = append(r.checks, ReadyCheck{Name: "quote store", Check: p.Ping})
		}
		r.checks = append(r.checks, k.cfg.ReadyChecks...)
		r.failing = map[string]bool{}
	})
	return r.checks
}

// ready runs the checks (or returns results at most readyCacheFor old).
func (k *Runtime) ready(ctx context.Context) (bool, []checkResult) {
	checks := k.readyChecks()
	r := &k.ops.ready
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Since(r.at) > readyCacheFor {
		results := make([]checkResult, len(checks))
		var wg sync.WaitGroup
		for i, c := range checks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cctx, cancel := context.WithTimeout(ctx, readyTimeout)
				defer cancel()
				results[i] = checkResult{Name: c.Name, OK: true}
				if err := c.Check(cctx); err != nil {
					results[i] = checkResult{Name: c.Name, Error: errorKind(err)}
					if !r.failing[c.Name] {
						k.log.Warn("readiness check failing", "check", c.Name, "error", k.redact(err.Error()))
					}
				} else if r.failing[c.Name] {
					k.log.Info("readiness check passing again", "check", c.Name)
				}
			}()
		}
		wg.Wait()
		for _, res := range results {
			r.failing[res.Name] = !res.OK
		}
		r.results, r.at = results, time.Now()
	}
	ok := true
	for _, res := range r.results {
		ok = ok && res.OK
	}
	return ok, r.results
}

// errorKind names a failure without its details.
func errorKind(err error) string {
	var ne net.Error
	var dns *net.DNSError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timed out"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &dns):
		return "host not found"
	case errors.Is(err, errNoBaseURL):
		return errNoBaseURL.Error()
	}
	return "failing (the server's log says why)"
}

var errNoBaseURL = errors.New("no usable base URL is configured")

// backendReachable opens (and closes) a TCP connection to the backend, or
// to the proxy the server reaches it through: cheap, and it neither needs
// credentials nor shows in the backend's request logs.
func (k *Runtime) backendReachable(ctx context.Context) error {
	if k.base == nil {
		return errNoBaseURL
	}
	addr := hostPort(k.base.Scheme, k.base.Host)
	if t, ok := k.client.Transport.(*http.Transport); ok && t.Proxy != nil {
		if proxy, err := t.Proxy(&http.Request{URL: k.base}); err == nil && proxy != nil {
			addr = hostPort(proxy.Scheme, proxy.Host)
		}
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return conn.Close()
}

func hostPort(scheme, host string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	if scheme == "https" {
		return net.JoinHostPort(host, "443")
	}
	return net.JoinHostPort(host, "80")
}

// healthz answers while the process serves.
func healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"status":"ok"}` + "\n"))
}

// readyz answers whether this replica should receive calls.
func (k *Runtime) readyz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if k.ops.stopping.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"ready":false,"shutting_down":true}` + "\n"))
		return
	}
	ok, results := k.ready(r.Context())
	if !ok {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	b, _ := json.Marshal(map[string]any{"ready": ok, "checks": results})
	w.Write(append(b, '\n'))
}
