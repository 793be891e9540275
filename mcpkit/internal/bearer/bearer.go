package bearer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// The MCP endpoint's bearer-token gate: go-sdk's auth.RequireBearerToken
// verifies the token (401 without a valid one, 403 without a scope every
// request needs) and puts its TokenInfo on the request; what this file
// adds is what a client reads from those answers (RFC 6750 and RFC 9728):
// the WWW-Authenticate challenge with the reason and where the Protected
// Resource Metadata is, the metadata document itself, and 503 instead of
// 500 while the issuer's keys cannot be had.

// PRMPath is where the Protected Resource Metadata (RFC 9728) is served.
const PRMPath = "/.well-known/oauth-protected-resource"

// Gate is the gate's configuration, fixed at start.
type Gate struct {
	Realm    string // the challenge's realm: the server's name
	Verifier auth.TokenVerifier
	// OAuth is set when tokens come from an issuer: the challenge then
	// points at the metadata.
	OAuth *OAuth
	// Scopes every request's token must hold; Supported are all the
	// scopes the tools need, for the metadata.
	Scopes, Supported []string
	Title             string // the resource's name in the metadata
}

// refusalNote carries, through the request's context, why the verifier
// refused its token, to the challenge written after.
type refusalNote struct{ err error }

type refusalKey struct{}

// noteRefusal records a verifier's refusal for the request's challenge.
func noteRefusal(r *http.Request, err error) {
	if r == nil {
		return
	}
	if n, ok := r.Context().Value(refusalKey{}).(*refusalNote); ok {
		n.err = err
	}
}

// handler wraps the MCP endpoint.
func (g *Gate) Handler(next http.Handler) http.Handler {
	// go-sdk checks exp again: with the tolerance the verifier used (the
	// HS256 verifier's is 30s).
	opts := &auth.RequireBearerTokenOptions{Scopes: g.Scopes, ClockSkew: hs256Leeway}
	if g.OAuth != nil {
		opts.ClockSkew = g.OAuth.ClockSkew
	}
	require := auth.RequireBearerToken(g.Verifier, opts)(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		note := &refusalNote{}
		r = r.WithContext(context.WithValue(r.Context(), refusalKey{}, note))
		require.ServeHTTP(&challengeWriter{ResponseWriter: w, gate: g, r: r, note: note}, r)
	})
}

// resourceURL is the protected resource's identifier: the configured
// public URL, else the URL this request reached (right on loopback and
// behind a proxy that keeps Host; a TLS-terminating proxy needs
// --public-url).
func (g *Gate) resourceURL(r *http.Request) string {
	if g.OAuth != nil && g.OAuth.Resource != "" {
		return g.OAuth.Resource
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + "/mcp"
}

// metadataURL is where the metadata of the resource is: the well-known
// path with the resource's path appended (RFC 9728 section 3.1).
func (g *Gate) metadataURL(r *http.Request) string {
	res := g.resourceURL(r)
	i := strings.Index(res, "://")
	host, path := res[i+3:], ""
	if j := strings.IndexByte(host, '/'); j >= 0 {
		host, path = host[:j], strings.TrimRight(host[j:], "/")
	}
	return res[:i+3] + host + PRMPath + path
}

// metadata serves the Protected Resource Metadata: this resource, its
// issuer, the scopes its tools need, tokens in the Authorization header.
func (g *Gate) Metadata(w http.ResponseWriter, r *http.Request) {
	auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               g.resourceURL(r),
		AuthorizationServers:   []string{g.OAuth.Issuer},
		ScopesSupported:        g.Supported,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           g.Title,
	}).ServeHTTP(w, r)
}

// challengeWriter writes the challenge of a 401 or 403 as the answer's
// status is written.
type challengeWriter struct {
	http.ResponseWriter
	gate *Gate
	r    *http.Request
	note *refusalNote
	// replaced: this writer wrote the answer's body; go-sdk's is dropped.
	replaced bool
}

// unavailableBody is the 503's body while the issuer's keys cannot be
// had. The reason (a discovery or network error naming internal hosts)
// is in the server's log, not here.
const unavailableBody = "the authorization server is unavailable: its signing keys cannot be fetched; try again shortly\n"

func (w *challengeWriter) WriteHeader(code int) {
	switch {
	case code == http.StatusUnauthorized:
		params := []string{fmt.Sprintf("realm=%q", w.gate.Realm)}
		if w.r.Header.Get("Authorization") != "" {
			params = append(params, `error="invalid_token"`)
			if w.note.err != nil {
				params = append(params, fmt.Sprintf("error_description=%q", headerText(w.note.err.Error())))
			}
		}
		w.setChallenge(params)
	case code == http.StatusForbidden:
		w.setChallenge([]string{fmt.Sprintf("realm=%q", w.gate.Realm), `error="insufficient_scope"`,
			fmt.Sprintf("scope=%q", strings.Join(w.gate.Scopes, " "))})
	case code == http.StatusInternalServerError && errors.Is(w.note.err, errKeysUnavailable):
		// The token may be fine: the issuer's keys are not to be had.
		w.Header().Set("Retry-After", "5")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Del("Content-Length")
		w.ResponseWriter.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w.ResponseWriter, unavailableBody)
		w.replaced = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write drops go-sdk's body of an answer this writer replaced (its text
// is the verifier's error, internal details included).
func (w *challengeWriter) Write(p []byte) (int, error) {
	if w.replaced {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// setChallenge replaces whatever challenge go-sdk wrote with the whole
// one.
func (w *challengeWriter) setChallenge(params []string) {
	if w.gate.OAuth != nil {
		params = append(params, fmt.Sprintf("resource_metadata=%q", w.gate.metadataURL(w.r)))
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
}

// headerText keeps what an auth-param's quoted string may hold (RFC 6750
// section 3: printable ASCII without `"` and `\`).
func headerText(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '\''
		}
		return r
	}, s)
}

func (w *challengeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *challengeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
