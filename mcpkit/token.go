package mcpkit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// HS256Verifier verifies bearer tokens that are JWTs signed with HMAC-SHA256
// under secret, with an expiry. Their claims become the caller context's
// `claim` sources (sub also as the user id), and their scope or scp claim
// the scopes per-tool checks read. Generated servers use it in
// HTTP mode when <PREFIX>_TOKEN_HS256_SECRET is set; a server embedding
// mcpkit can pass any auth.TokenVerifier instead.
func HS256Verifier(secret []byte) auth.TokenVerifier {
	parser := jwt.NewParser(jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired(), jwt.WithLeeway(hs256Leeway))
	return func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		claims := jwt.MapClaims{}
		if _, err := parser.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) { return secret, nil }); err != nil {
			return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
		}
		// The same scope claims as an issuer's tokens (oauth.go), so that
		// per-tool scopes work alike in development.
		scopes, err := tokenScopes(claims)
		if err != nil {
			return nil, err
		}
		info := &auth.TokenInfo{Extra: map[string]any(claims), Scopes: scopes}
		if exp, err := claims.GetExpirationTime(); err == nil && exp != nil {
			info.Expiration = exp.Time
		}
		if sub, err := claims.GetSubject(); err == nil {
			info.UserID = sub
		}
		if info.Expiration.IsZero() {
			return nil, errors.Join(auth.ErrInvalidToken, errors.New("token has no expiry"))
		}
		return info, nil
	}
}

// hs256Leeway is the HS256 verifier's tolerance on exp, nbf and iat.
const hs256Leeway = 30 * time.Second
