package mcpkit

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/mcpkit/internal/bearer"
)

// httpOptions are the HTTP listener's settings (flags of Run).
type httpOptions struct {
	addr         string
	stateless    bool
	trustHeaders bool
	origins      []string
	// sessionTimeout closes sessions idle this long (their memory goes
	// with them); the others bound reading a request, writing an answer
	// and idle keep-alive connections.
	sessionTimeout, readTimeout, writeTimeout, idleTimeout time.Duration
	// shutdownTimeout bounds the wait for calls in progress at shutdown.
	shutdownTimeout time.Duration
}

// serveHTTP serves the MCP endpoint at /mcp until ctx ends.
func serveHTTP(ctx context.Context, server *mcp.Server, k *Runtime, o httpOptions, stderr io.Writer) int {
	name := k.api.Name
	addr := listenAddr(o.addr)
	if !isLoopback(addr) {
		if msg := k.headerIdentityRisk(addr, o.trustHeaders); msg != "" {
			fmt.Fprintf(stderr, "%s: %s\n", name, msg)
			return 2
		}
		if k.cfg.Verifier == nil {
			k.log.Warn("listening on a non-loopback address without verifying bearer tokens: anyone who reaches it can call every tool", "addr", addr,
				"fix", "set --oauth-issuer (and --oauth-audience) to verify your identity provider's tokens, or put an authenticating gateway in front")
		}
	}
	cop := http.NewCrossOriginProtection()
	for _, origin := range o.origins {
		if err := cop.AddTrustedOrigin(origin); err != nil {
			fmt.Fprintf(stderr, "%s: allowed origin %q: %v (give scheme://host[:port], such as https://app.example.com)\n", name, origin, err)
			return 2
		}
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.log.Warn("cross-origin request refused", "origin", r.Header.Get("Origin"))
		http.Error(w, k.render("origin_refused", "", nil, M{"origin": r.Header.Get("Origin")}), http.StatusForbidden)
	}))

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: o.stateless, Logger: k.sdkLog, SessionTimeout: o.sessionTimeout})
	mux := http.NewServeMux()
	if k.cfg.Verifier != nil {
		// Requests without a valid token get 401 before reaching a tool;
		// the token's claims become the caller context, its scopes decide
		// which tools it sees (scopes.go).
		gate := k.bearerGate()
		h = gate.Handler(h)
		if gate.OAuth != nil {
			mux.HandleFunc("GET "+bearer.PRMPath, gate.Metadata)
			mux.HandleFunc("GET "+bearer.PRMPath+"/", gate.Metadata)
			mux.HandleFunc("OPTIONS "+bearer.PRMPath+"/", gate.Metadata)
			mux.HandleFunc("OPTIONS "+bearer.PRMPath, gate.Metadata)
			if gate.OAuth.Resource == "" && !isLoopback(addr) {
				k.log.Warn("no public URL is set: the protected resource metadata names this server by the Host of each request, which behind a TLS-terminating proxy is the wrong URL",
					"fix", "set --public-url (or "+k.api.EnvPrefix+"_PUBLIC_URL) to the MCP endpoint's public URL, such as https://mcp.example.com/mcp")
			}
		}
	}
	h = deadlines(cop.Handler(k.refuseBatches(h)), o.readTimeout, o.writeTimeout)
	mux.Handle("/mcp", h)
	mux.HandleFunc("GET /healthz", healthz)
	mux.HandleFunc("GET /readyz", k.readyz)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: min(10*time.Second, o.readTimeout), IdleTimeout: o.idleTimeout}
	if k.oauth != nil {
		// Fetch the issuer's keys now, so that the log says at once
		// whether they can be had (the first token waits otherwise).
		go k.oauth.Prefetch(ctx)
	}
	k.log.Info("listening", "url", "http://"+ln.Addr().String()+"/mcp", "stateless", o.stateless)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		k.log.Error("server stopped", "error", err.Error())
		return 1
	case <-ctx.Done():
		k.drain(srv, o.shutdownTimeout)
		return 0
	}
}

// listenAddr gives a bare port, or ":port", the loopback host: listening on
// every interface has to be asked for (0.0.0.0:port).
func listenAddr(addr string) string {
	addr = strings.TrimSpace(addr)
	if !strings.Contains(addr, ":") {
		return "127.0.0.1:" + addr
	}
	if strings.HasPrefix(addr, ":") {
		return "127.0.0.1" + addr
	}
	return addr
}

// isLoopback reports whether addr listens on loopback only.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// headerIdentityRisk says why serving on a non-loopback address would let
// any caller choose its identity: a context value read from a request
// header that nothing in front of the server vouches for.
func (k *Runtime) headerIdentityRisk(addr string, trusted bool) string {
	if trusted || (k.cfg.Verifier != nil && !k.cfg.AllowUnverifiedContext) {
		return ""
	}
	var hdrs []string
	for _, cv := range k.api.Context {
		if cv.Header != "" {
			hdrs = append(hdrs, fmt.Sprintf("%s from the %s header", cv.Name, cv.Header))
		}
	}
	if len(hdrs) == 0 {
		return ""
	}
	return fmt.Sprintf("refusing to listen on %s: this server takes %s, and on a non-loopback address any caller who reaches it could set that header and act as anyone. "+
		"Listen on loopback (127.0.0.1:PORT), verify bearer tokens (--oauth-issuer, or %s_TOKEN_HS256_SECRET in development), or, if a gateway in front of this server sets the header and strips callers' own, say so with --trust-context-headers (%s_TRUST_CONTEXT_HEADERS=true)",
		addr, strings.Join(hdrs, ", "), k.api.EnvPrefix, k.api.EnvPrefix)
}

// deadlines bounds reading a request's body (a slow body is cut off) and
// writing the answer to a POST. A GET is the session's event stream, open
// by design: the session's idle expiry bounds it.
func deadlines(next http.Handler, read, write time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if r.Method == http.MethodGet {
			_ = rc.SetWriteDeadline(time.Time{})
		} else {
			_ = rc.SetWriteDeadline(time.Now().Add(write))
		}
		if r.Body != nil && r.Body != http.NoBody {
			_ = rc.SetReadDeadline(time.Now().Add(read))
			// Once the body is read, the connection is only watched for the
			// client going away: no deadline then.
			r.Body = &readDeadlineBody{ReadCloser: r.Body, clear: func() { _ = rc.SetReadDeadline(time.Time{}) }}
		}
		next.ServeHTTP(w, r)
	})
}

type readDeadlineBody struct {
	io.ReadCloser
	clear func()
	done  bool
}

func (b *readDeadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		b.clear()
	}
	return n, err
}
