package bearer

import (
	"errors"

	"github.com/go-jose/go-jose/v4/jwt"
)

// errBadSignature says a token's signature does not verify with the key
// tried; any other error of verifiedClaims is about the claims.
var errBadSignature = errors.New("the signature does not verify")

// verifiedClaims checks tok's signature with key, then reads its claims:
// the registered ones (exp, iss, aud, ...) into std, every claim into
// extra. The signature is checked before the claims are read, and the
// claims' types before they are decoded, so that a signed token with a
// claim of the wrong type (exp as a string) is refused for that claim,
// not for a signature that did verify.
func verifiedClaims(tok *jwt.JSONWebToken, key any) (std jwt.Claims, extra map[string]any, err error) {
	if err := tok.Claims(key); err != nil {
		return std, nil, errBadSignature
	}
	if err := tok.UnsafeClaimsWithoutVerification(&extra); err != nil || extra == nil {
		return std, nil, refuse("claims", "the token's payload is not a JSON object")
	}
	if err := checkClaimTypes(extra); err != nil {
		return std, nil, err
	}
	if err := tok.UnsafeClaimsWithoutVerification(&std); err != nil {
		return std, nil, refuse("claims", "the token's claims cannot be read: %v", err)
	}
	return std, extra, nil
}

// checkClaimTypes refuses a registered claim of the wrong JSON type
// (RFC 7519 section 4.1): times are numbers (seconds), iss, sub and jti
// strings, aud a string or a list of strings. null counts as absent.
func checkClaimTypes(claims map[string]any) error {
	for _, name := range []string{"exp", "nbf", "iat"} {
		if v, ok := claims[name]; ok && v != nil {
			if _, isNumber := v.(float64); !isNumber {
				return refuse("claims", "claim %s must be a number (seconds since 1970), not %s", name, jsonKind(v))
			}
		}
	}
	for _, name := range []string{"iss", "sub", "jti"} {
		if v, ok := claims[name]; ok && v != nil {
			if _, isText := v.(string); !isText {
				return refuse("claims", "claim %s must be a string, not %s", name, jsonKind(v))
			}
		}
	}
	switch aud := claims["aud"].(type) {
	case nil, string:
	case []any:
		for _, e := range aud {
			if _, isText := e.(string); !isText {
				return refuse("claims", "claim aud must be a string or a list of strings; it holds %s", jsonKind(e))
			}
		}
	default:
		return refuse("claims", "claim aud must be a string or a list of strings, not %s", jsonKind(aud))
	}
	return nil
}

// timeRefusal turns go-jose's validation error of std into a refusal
// that says what is wrong.
func timeRefusal(err error, std *jwt.Claims) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, jwt.ErrExpired):
		return refuse("expiry", "the token expired at %s", std.Expiry.Time().UTC().Format(timeFormat))
	case errors.Is(err, jwt.ErrNotValidYet):
		return refuse("not_yet_valid", "the token is not valid before %s", std.NotBefore.Time().UTC().Format(timeFormat))
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return refuse("not_yet_valid", "the token was issued in the future (%s)", std.IssuedAt.Time().UTC().Format(timeFormat))
	}
	return refuse("claims", "the token's claims are not valid: %v", err)
}
