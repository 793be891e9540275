package mcpkit

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tailormcp/tailor/mcpkit/internal/bearer"
)

// OAuth makes the server an OAuth 2.1 resource server: bearer tokens are
// JWTs an authorization server (the issuer) signed with an asymmetric
// key it publishes in its JWKS. Config.OAuth takes it; generated servers
// fill it from --oauth-issuer and the flags next to it. Its fields are
// documented where the verifier lives (mcpkit/internal/bearer).
type OAuth = bearer.OAuth

// oauthFlags are the settings of an OAuth resource server (flags of Run;
// docs/deploy.md shows them in use).
type oauthFlags struct {
	issuer, audience, jwksURL, scopes, publicURL *string
	skew                                         *time.Duration
}

func declareOAuth(set *settings) *oauthFlags {
	return &oauthFlags{
		issuer:    set.String("oauth-issuer", "OAUTH_ISSUER", "HTTP mode: verify bearer tokens as JWTs from this OAuth authorization server (its issuer URL; https, or http on loopback); keys from its JWKS, found in its metadata"),
		audience:  set.String("oauth-audience", "OAUTH_AUDIENCE", "with --oauth-issuer: the audience (aud) tokens must name (default: --public-url)"),
		jwksURL:   set.String("oauth-jwks-url", "OAUTH_JWKS_URL", "with --oauth-issuer: the issuer's JWKS URL, instead of discovering it from the issuer's metadata"),
		skew:      set.Duration("oauth-clock-skew", "OAUTH_CLOCK_SKEW", 30*time.Second, "with --oauth-issuer: tolerance on a token's exp, nbf and iat (at most 5m)"),
		scopes:    set.String("oauth-scopes", "OAUTH_SCOPES", "HTTP mode with verified tokens: scopes (space- or comma-separated) every request's token must hold, besides each tool's own; without them: 403 insufficient_scope"),
		publicURL: set.String("public-url", "PUBLIC_URL", "with --oauth-issuer: the MCP endpoint's public URL (https://mcp.example.com/mcp), named in the protected resource metadata (default: the URL each request reached)"),
	}
}

// apply puts the OAuth settings in cfg, or says what is wrong with them.
func (f *oauthFlags) apply(cfg *Config, prefix string, http bool) error {
	issuer := strings.TrimSpace(*f.issuer)
	scopes := strings.FieldsFunc(*f.scopes, func(r rune) bool { return r == ' ' || r == ',' })
	if issuer == "" {
		for _, s := range []struct {
			flag  string
			value *string
		}{{"oauth-audience", f.audience}, {"oauth-jwks-url", f.jwksURL}, {"public-url", f.publicURL}} {
			if strings.TrimSpace(*s.value) != "" {
				return fmt.Errorf("--%s is set, but no issuer: set --oauth-issuer (%s_OAUTH_ISSUER) too", s.flag, prefix)
			}
		}
		if len(scopes) > 0 && cfg.Verifier == nil {
			return fmt.Errorf("--oauth-scopes needs verified tokens: set --oauth-issuer (%s_OAUTH_ISSUER) or %s_TOKEN_HS256_SECRET", prefix, prefix)
		}
		cfg.Scopes = scopes
		return nil
	}
	if !http {
		return fmt.Errorf("--oauth-issuer verifies the bearer tokens of HTTP requests; it needs --http")
	}
	if cfg.Verifier != nil {
		return errors.New("--oauth-issuer and " + prefix + "_TOKEN_HS256_SECRET are both set: tokens come from one issuer; unset the HS256 secret (it is for development)")
	}
	o := &OAuth{Issuer: issuer, Audience: strings.TrimSpace(*f.audience), JWKSURL: strings.TrimSpace(*f.jwksURL),
		ClockSkew: *f.skew, Resource: strings.TrimSpace(*f.publicURL)}
	if o.Audience == "" {
		o.Audience = o.Resource
	}
	if o.ClockSkew <= 0 {
		return fmt.Errorf("--oauth-clock-skew %s: give a positive duration up to 5m, such as 30s", o.ClockSkew)
	}
	if err := o.Check(prefix); err != nil {
		return err
	}
	cfg.OAuth, cfg.Scopes = o, scopes
	return nil
}
