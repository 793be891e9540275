// Package bearer verifies the bearer tokens of HTTP requests and answers
// for them at the MCP endpoint: an OAuth 2.1 resource server over an
// issuer's JWKS (oauth.go, jwks.go), HS256 development tokens (token.go),
// typed claims (claims.go), and the gate with its challenges and
// Protected Resource Metadata (bearer.go). go-jose does the JOSE work.
package bearer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/tailormcp/tailor/mcpkit/internal/loglimit"
)

// OAuth makes the server an OAuth 2.1 resource server, as the MCP
// authorization spec describes it: bearer tokens are JWTs an authorization
// server (the issuer) signed with an asymmetric key it publishes in its
// JWKS. The JOSE work (parsing, signature checks, claim validation) is
// go-jose's; this file says which tokens count.
type OAuth struct {
	// Issuer is the authorization server's issuer identifier (URL); a
	// token's iss must equal it.
	Issuer string
	// Audience is what a token's aud must contain: this server's
	// identifier at the issuer (usually its public URL, RFC 8707).
	Audience string
	// JWKSURL is the issuer's key set; empty: found in its metadata
	// (RFC 8414 / OpenID Connect Discovery).
	JWKSURL string
	// ClockSkew is the tolerance on exp, nbf and iat (default 30s, at
	// most 5m).
	ClockSkew time.Duration
	// Resource is the protected resource's identifier in its metadata
	// (RFC 9728): the MCP endpoint's public URL. Empty: the URL the
	// request reached.
	Resource string
	// HTTPClient fetches metadata and keys (default: 10s timeout).
	HTTPClient *http.Client
	// KeysMaxAge is how long fetched keys are used before they are fetched
	// again (default 10m); KeysMinInterval the least time between two
	// fetches, whatever asks for them (default 5s).
	KeysMaxAge, KeysMinInterval time.Duration
}

// acceptedAlgorithms are the asymmetric signatures a token may carry.
// "none" and the HMAC family are absent, so a token signed with the
// issuer's public key as an HMAC secret is refused before any key is
// looked at.
var acceptedAlgorithms = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512, jose.ES256, jose.ES384, jose.EdDSA}

const maxClockSkew = 5 * time.Minute

// timeFormat writes the times of refusals.
const timeFormat = time.RFC3339

// check reports what is wrong with the configuration, naming the settings.
func (o *OAuth) Check(prefix string) error {
	var problems []string
	if err := checkIssuerURL(o.Issuer); err != nil {
		problems = append(problems, fmt.Sprintf("the issuer %q (--oauth-issuer, %s_OAUTH_ISSUER): %v", o.Issuer, prefix, err))
	}
	if o.Audience == "" {
		problems = append(problems, fmt.Sprintf("an issuer needs the audience its tokens name this server by: set --oauth-audience (%s_OAUTH_AUDIENCE), usually this server's public URL", prefix))
	}
	if o.JWKSURL != "" {
		if err := checkIssuerURL(o.JWKSURL); err != nil {
			problems = append(problems, fmt.Sprintf("the JWKS URL %q (--oauth-jwks-url, %s_OAUTH_JWKS_URL): %v", o.JWKSURL, prefix, err))
		}
	}
	if o.Resource != "" {
		if u, err := url.Parse(o.Resource); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" {
			problems = append(problems, fmt.Sprintf("the public URL %q (--public-url, %s_PUBLIC_URL) must be an absolute http(s) URL without a fragment, such as https://mcp.example.com/mcp", o.Resource, prefix))
		}
	}
	if o.ClockSkew < 0 || o.ClockSkew > maxClockSkew {
		problems = append(problems, fmt.Sprintf("the clock skew %s (--oauth-clock-skew, %s_OAUTH_CLOCK_SKEW) must be between 0s and %s", o.ClockSkew, prefix, maxClockSkew))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// checkIssuerURL requires https, or http on a loopback host (development,
// tests): keys fetched in the clear could be swapped on the way.
func checkIssuerURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return errors.New("not an absolute URL")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			return nil
		}
		return errors.New("must use https (http only on a loopback host)")
	}
	return errors.New("must use https")
}

// Verifier verifies the issuer's tokens.
type Verifier struct {
	cfg  OAuth
	keys *jwksCache
	now  func() time.Time
	log  *slog.Logger
	// limits rate-limits the log line of each kind of refusal.
	limits loglimit.Keyed
}

// NewVerifier builds the verifier of a checked configuration.
func NewVerifier(o OAuth, log *slog.Logger, now func() time.Time) *Verifier {
	if o.ClockSkew == 0 {
		o.ClockSkew = 30 * time.Second
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	// Redirects are not followed: the key set's URL is what was
	// configured or what the issuer's own metadata says.
	client := *o.HTTPClient
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if o.KeysMaxAge <= 0 {
		o.KeysMaxAge = 10 * time.Minute
	}
	if o.KeysMinInterval <= 0 {
		o.KeysMinInterval = 5 * time.Second
	}
	v := &Verifier{cfg: o, now: now, log: log, limits: loglimit.Keyed{Every: time.Second}}
	v.keys = &jwksCache{issuer: o.Issuer, url: o.JWKSURL, client: &client, maxAge: o.KeysMaxAge, minInterval: o.KeysMinInterval, now: now,
		onFetch: func(url string, n int, err error) {
			if err != nil {
				v.logLimited("keys", slog.LevelWarn, "the identity provider's keys could not be fetched; tokens signed with keys not already held are refused until they can be", "jwks_url", url, "error", err.Error())
				return
			}
			log.Info("identity provider keys fetched", "jwks_url", url, "keys", n)
		}}
	return v
}

// tokenRefused is a refusal's reason, for the 401's description and the
// log; kind groups refusals for rate-limiting their log lines.
type tokenRefused struct{ kind, reason string }

func (e *tokenRefused) Error() string { return e.reason }
func (e *tokenRefused) Unwrap() error { return auth.ErrInvalidToken }

func refuse(kind, format string, args ...any) error {
	return &tokenRefused{kind: kind, reason: fmt.Sprintf(format, args...)}
}

// Verify is an auth.TokenVerifier.
func (v *Verifier) Verify(ctx context.Context, token string, req *http.Request) (*auth.TokenInfo, error) {
	info, err := v.verify(ctx, token)
	if err != nil {
		var r *tokenRefused
		if errors.As(err, &r) {
			v.logLimited(r.kind, slog.LevelWarn, "bearer token refused", "reason", r.reason)
		} else {
			v.logLimited("unavailable", slog.LevelError, "bearer token not checked: the identity provider's keys are not available", "error", err.Error())
		}
		noteRefusal(req, err)
	}
	return info, err
}

func (v *Verifier) verify(ctx context.Context, token string) (*auth.TokenInfo, error) {
	tok, err := jwt.ParseSigned(token, acceptedAlgorithms)
	if err != nil {
		return nil, refuse("malformed", "the token is not a JWT signed with an accepted algorithm (%s): %v", algNames(), err)
	}
	if len(tok.Headers) != 1 {
		return nil, refuse("malformed", "the token has %d signatures; one is expected", len(tok.Headers))
	}
	h := tok.Headers[0]
	keys, err := v.keys.candidates(ctx, h.KeyID)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		if h.KeyID != "" {
			return nil, refuse("unknown_key", "the issuer publishes no signing key with id %q", h.KeyID)
		}
		return nil, refuse("unknown_key", "the issuer publishes no signing key")
	}
	var (
		std   jwt.Claims
		extra map[string]any
	)
	verified := false
	for _, k := range keys {
		if k.Algorithm != "" && k.Algorithm != h.Algorithm {
			continue
		}
		std, extra, err = verifiedClaims(tok, k.Key)
		if errors.Is(err, errBadSignature) {
			continue
		}
		if err != nil {
			return nil, err
		}
		verified = true
		break
	}
	if !verified {
		return nil, refuse("signature", "the token's %s signature does not verify with the issuer's key %q", h.Algorithm, h.KeyID)
	}
	if std.Expiry == nil {
		return nil, refuse("expiry", "the token has no expiry (exp)")
	}
	err = std.ValidateWithLeeway(jwt.Expected{Issuer: v.cfg.Issuer, AnyAudience: jwt.Audience{v.cfg.Audience}, Time: v.now()}, v.cfg.ClockSkew)
	switch {
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return nil, refuse("issuer", "the token was issued by %q, not by %q", std.Issuer, v.cfg.Issuer)
	case errors.Is(err, jwt.ErrInvalidAudience):
		return nil, refuse("audience", "the token is for %q, not for this server (%q)", []string(std.Audience), v.cfg.Audience)
	case err != nil:
		return nil, timeRefusal(err, &std)
	}
	scopes, err := tokenScopes(extra)
	if err != nil {
		return nil, err
	}
	return &auth.TokenInfo{Scopes: scopes, Expiration: std.Expiry.Time(), UserID: std.Subject, Extra: extra}, nil
}

// tokenScopes reads the granted scopes: `scope`, a space-separated string
// (RFC 8693, RFC 9068), or `scp`, a list of strings or one string (as some
// identity providers write it). Any other type refuses the token: a scope
// claim that cannot be read must not read as "no scopes" by accident.
func tokenScopes(claims map[string]any) ([]string, error) {
	var out []string
	if v, ok := claims["scope"]; ok && v != nil {
		s, isText := v.(string)
		if !isText {
			return nil, refuse("claims", "the token's scope claim is %s, not a space-separated string", jsonKind(v))
		}
		out = append(out, strings.Fields(s)...)
	}
	if v, ok := claims["scp"]; ok && v != nil {
		switch x := v.(type) {
		case string:
			out = append(out, strings.Fields(x)...)
		case []any:
			for _, e := range x {
				s, isText := e.(string)
				if !isText {
					return nil, refuse("claims", "the token's scp claim holds %s, not only strings", jsonKind(e))
				}
				out = append(out, s)
			}
		default:
			return nil, refuse("claims", "the token's scp claim is %s, not a list of strings", jsonKind(v))
		}
	}
	return out, nil
}

func algNames() string {
	names := make([]string, len(acceptedAlgorithms))
	for i, a := range acceptedAlgorithms {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}

// logLimited logs a line of kind at most once a second, saying how many
// were held back since the last one: refused tokens are logged, and a
// flood of them is not a flood of lines.
func (v *Verifier) logLimited(kind string, level slog.Level, msg string, args ...any) {
	held, ok := v.limits.Allow(kind)
	if !ok {
		return
	}
	v.log.Log(context.Background(), level, msg, loglimit.WithHeld(args, held)...)
}

// ready is the readiness check: the keys can be had.
func (v *Verifier) Ready(ctx context.Context) error {
	if _, err := v.keys.candidates(ctx, ""); err != nil {
		return errors.New("identity provider keys unavailable")
	}
	return nil
}

// Config is the verifier's configuration, defaults filled in.
func (v *Verifier) Config() *OAuth { return &v.cfg }

// Prefetch fetches the issuer's keys ahead of the first token (a server
// starting), so that the first request does not wait for them.
func (v *Verifier) Prefetch(ctx context.Context) {
	_, _ = v.keys.candidates(ctx, "")
}
