// Package oidctest is an OAuth authorization server for tests, on a
// loopback port: it serves its metadata (OpenID Connect Discovery) and its
// JWKS, with keys the test generates (RSA, EC P-256, Ed25519), and signs
// tokens with them, including the forged ones a hostile client would send
// (alg none, HS256 keyed with the public key). Keys can be rotated.
package oidctest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Key is one signing key of the issuer.
type Key struct {
	ID   string
	Alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

// Public is the key's public JWK.
func (k *Key) Public() jose.JSONWebKey {
	return jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.ID, Algorithm: string(k.Alg), Use: "sig"}
}

// Issuer is a running test authorization server.
type Issuer struct {
	URL string
	srv *httptest.Server

	mu   sync.Mutex
	keys []*Key // published
	gen  int
	down bool
	// JWKSFetches counts GETs of the key set.
	JWKSFetches atomic.Int64
}

// Start runs an issuer with one key of each kind (RS256, ES256, EdDSA),
// stopped when the test ends.
func Start(t testing.TB) *Issuer {
	iss := &Issuer{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		if iss.isDown() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": iss.URL, "jwks_uri": iss.URL + "/jwks", "authorization_endpoint": iss.URL + "/authorize",
			"token_endpoint": iss.URL + "/token", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "id_token_signing_alg_values_supported": []string{"RS256", "ES256", "EdDSA"},
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		iss.JWKSFetches.Add(1)
		if iss.isDown() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		_ = json.NewEncoder(w).Encode(iss.JWKS())
	})
	iss.srv = httptest.NewServer(mux)
	iss.URL = iss.srv.URL
	t.Cleanup(iss.srv.Close)
	iss.keys = iss.newKeys(t)
	return iss
}

func (iss *Issuer) isDown() bool {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	return iss.down
}

// SetDown makes the issuer answer 503 to everything (true) or not.
func (iss *Issuer) SetDown(down bool) {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.down = down
}

func (iss *Issuer) newKeys(t testing.TB) []*Key {
	iss.gen++
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return []*Key{
		{ID: fmt.Sprintf("rsa-%d", iss.gen), Alg: jose.RS256, priv: rsaKey},
		{ID: fmt.Sprintf("ec-%d", iss.gen), Alg: jose.ES256, priv: ecKey},
		{ID: fmt.Sprintf("ed-%d", iss.gen), Alg: jose.EdDSA, priv: edKey},
	}
}

// JWKS is the published key set.
func (iss *Issuer) JWKS() jose.JSONWebKeySet {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	var set jose.JSONWebKeySet
	for _, k := range iss.keys {
		set.Keys = append(set.Keys, k.Public())
	}
	return set
}

// Keys are the published keys: RSA, EC, Ed25519.
func (iss *Issuer) Keys() []*Key {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	return append([]*Key(nil), iss.keys...)
}

// Rotate publishes a new key of each kind instead of the current ones,
// and returns the new keys.
func (iss *Issuer) Rotate(t testing.TB) []*Key {
	keys := iss.newKeys(t)
	iss.mu.Lock()
	iss.keys = keys
	iss.mu.Unlock()
	return keys
}

// NewKey makes a key of the kind of the issuer's first key (RSA) that is
// not published: a token signed with it names an unknown kid.
func (iss *Issuer) NewKey(t testing.TB, id string) *Key {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return &Key{ID: id, Alg: jose.RS256, priv: k}
}

// Claims are a token's claims: Valid's defaults, changed by the test.
type Claims map[string]any

// Valid are the claims of a token the server accepts: this issuer, the
// audience, a subject, an hour of validity, and the scopes.
func (iss *Issuer) Valid(audience, subject string, scopes ...string) Claims {
	now := time.Now()
	c := Claims{"iss": iss.URL, "aud": audience, "sub": subject, "iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	if len(scopes) > 0 {
		s := ""
		for i, x := range scopes {
			if i > 0 {
				s += " "
			}
			s += x
		}
		c["scope"] = s
	}
	return c
}

// Sign signs claims with key (its kid in the header).
func Sign(t testing.TB, key *Key, claims Claims) string {
	opts := (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", key.ID)
	return signed(t, jose.SigningKey{Algorithm: key.Alg, Key: key.priv}, opts, claims)
}

// signed is claims as a compact JWS signed with sk.
func signed(t testing.TB, sk jose.SigningKey, opts *jose.SignerOptions, claims Claims) string {
	s, err := jose.NewSigner(sk, opts)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(claims)
	jws, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Unsigned is a token with "alg": "none" and no signature.
func Unsigned(kid string, claims Claims) string {
	head, _ := json.Marshal(map[string]string{"alg": "none", "kid": kid, "typ": "JWT"})
	body, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(head) + "." + enc.EncodeToString(body) + "."
}

// HS256WithPublicKey is the algorithm-confusion forgery: an HS256 token
// whose HMAC key is the issuer's public RSA key as its JWKS publishes it
// (what a verifier that takes the header's alg at its word would use).
func HS256WithPublicKey(t testing.TB, key *Key, claims Claims) string {
	pub, err := json.Marshal(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	opts := (&jose.SignerOptions{}).WithHeader("kid", key.ID)
	return signed(t, jose.SigningKey{Algorithm: jose.HS256, Key: pub}, opts, claims)
}

// HS256 signs claims with HMAC-SHA256 under secret: the development
// tokens a server with a shared token secret verifies.
func HS256(t testing.TB, secret []byte, claims Claims) string {
	return signed(t, jose.SigningKey{Algorithm: jose.HS256, Key: secret}, (&jose.SignerOptions{}).WithType("JWT"), claims)
}
