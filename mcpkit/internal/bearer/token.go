package bearer

import (
	"context"
	"net/http"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// HS256Verifier verifies bearer tokens that are JWTs signed with HMAC-SHA256
// under secret, with an expiry. Their claims become the caller context's
// `claim` sources (sub also as the user id), and their scope or scp claim
// the scopes per-tool checks read. Generated servers use it in
// HTTP mode when <PREFIX>_TOKEN_HS256_SECRET is set; a server embedding
// mcpkit can pass any auth.TokenVerifier instead. The secret must have at
// least 32 bytes (RFC 7518, section 3.2); with a shorter one every token
// is refused, saying so.
func HS256Verifier(secret []byte) auth.TokenVerifier {
	return func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if len(secret) < MinHS256Secret {
			return nil, refuse("secret", "the server's HS256 secret has %d bytes, fewer than the %d HS256 needs", len(secret), MinHS256Secret)
		}
		tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.HS256})
		if err != nil {
			return nil, refuse("malformed", "the token is not a JWT signed with HS256: %v", err)
		}
		std, claims, err := verifiedClaims(tok, secret)
		if err != nil {
			if err == errBadSignature {
				return nil, refuse("signature", "the token's HS256 signature does not verify")
			}
			return nil, err
		}
		if std.Expiry == nil {
			return nil, refuse("expiry", "the token has no expiry (exp)")
		}
		if err := timeRefusal(std.ValidateWithLeeway(jwt.Expected{Time: time.Now()}, hs256Leeway), &std); err != nil {
			return nil, err
		}
		// The same scope claims as an issuer's tokens (oauth.go), so that
		// per-tool scopes work alike in development.
		scopes, err := tokenScopes(claims)
		if err != nil {
			return nil, err
		}
		return &auth.TokenInfo{Extra: claims, Scopes: scopes, Expiration: std.Expiry.Time(), UserID: std.Subject}, nil
	}
}

// MinHS256Secret is the shortest HS256 secret: as long as the hash
// (RFC 7518, section 3.2; go-jose refuses shorter keys).
const MinHS256Secret = 32

// hs256Leeway is the HS256 verifier's tolerance on exp, nbf and iat.
const hs256Leeway = 30 * time.Second
