package bearer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// jwksCache holds an issuer's signing keys (its JWKS), fetched when first
// needed, again when they are older than maxAge, and again when a token
// names a key id the set lacks (the issuer rotated its keys). Fetches are
// one at a time and at least minInterval apart, whatever triggers them,
// so a flood of tokens with made-up key ids costs the issuer one request
// per interval. A failed fetch keeps the keys already held.
type jwksCache struct {
	issuer string
	// url is the JWKS URL: configured, or found in the issuer's metadata
	// (discover).
	url         string
	client      *http.Client
	maxAge      time.Duration
	minInterval time.Duration
	now         func() time.Time

	mu       sync.Mutex
	keys     *jose.JSONWebKeySet
	fetched  time.Time // last successful fetch
	tried    time.Time // last attempt
	lastErr  error
	inflight chan struct{}
	// onFetch is told the outcome of every fetch (logs).
	onFetch func(url string, keys int, err error)
}

// errKeysUnavailable says the issuer's keys could not be had: no token can
// be verified (503, not 401: the token may be fine).
var errKeysUnavailable = errors.New("the identity provider's signing keys cannot be fetched")

// candidates returns the keys that may have signed a token with key id
// kid ("" when the token names none: every key). It refreshes the set
// when it is stale or lacks kid, as far as the rate limit allows.
func (c *jwksCache) candidates(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	keys, fresh := c.snapshot()
	if keys != nil && fresh {
		if found := pick(keys, kid); len(found) > 0 {
			return found, nil
		}
	}
	// Stale, missing, or without kid: fetch (or wait for the fetch in
	// flight), unless one was tried too recently.
	if err := c.refresh(ctx); err != nil && keys == nil {
		return nil, fmt.Errorf("%w: %v", errKeysUnavailable, err)
	}
	keys, _ = c.snapshot()
	if keys == nil {
		return nil, fmt.Errorf("%w: %v", errKeysUnavailable, c.err())
	}
	return pick(keys, kid), nil
}

func (c *jwksCache) snapshot() (*jose.JSONWebKeySet, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.keys, c.keys != nil && c.now().Sub(c.fetched) < c.maxAge
}

func (c *jwksCache) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lastErr == nil {
		return errors.New("no fetch has succeeded yet")
	}
	return c.lastErr
}

// pick returns the signing keys with id kid, or all signing keys when kid
// is empty. Symmetric and private keys never count: a JWKS publishes
// public keys, and an HMAC "key" in it would let anyone who read the set
// sign tokens.
func pick(set *jose.JSONWebKeySet, kid string) []jose.JSONWebKey {
	var out []jose.JSONWebKey
	for _, k := range set.Keys {
		if kid != "" && k.KeyID != kid {
			continue
		}
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		if !k.IsPublic() || !k.Valid() {
			continue
		}
		out = append(out, k)
	}
	return out
}

// refresh fetches the key set unless a fetch was tried less than
// minInterval ago; a caller arriving while a fetch is in flight waits for
// it (or for its own context). It returns the last fetch's error.
func (c *jwksCache) refresh(ctx context.Context) error {
	c.mu.Lock()
	if wait := c.inflight; wait != nil {
		c.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
		return c.errOrNil()
	}
	if !c.tried.IsZero() && c.now().Sub(c.tried) < c.minInterval {
		err := c.lastErr
		c.mu.Unlock()
		return err
	}
	done := make(chan struct{})
	c.inflight, c.tried = done, c.now()
	c.mu.Unlock()

	// The fetch is not the caller's: a client that hangs up must not
	// abort it for the others waiting.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	keys, err := c.fetch(fctx)
	cancel()

	c.mu.Lock()
	c.lastErr = err
	if err == nil {
		c.keys, c.fetched = keys, c.now()
	}
	c.inflight = nil
	onFetch, url := c.onFetch, c.url
	c.mu.Unlock()
	close(done)
	if onFetch != nil {
		n := 0
		if keys != nil {
			n = len(keys.Keys)
		}
		onFetch(url, n, err)
	}
	return err
}

func (c *jwksCache) errOrNil() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastErr
}

// fetch reads the key set, discovering its URL from the issuer's
// metadata first when none is configured.
func (c *jwksCache) fetch(ctx context.Context) (*jose.JSONWebKeySet, error) {
	c.mu.Lock()
	url := c.url
	c.mu.Unlock()
	if url == "" {
		// RFC 8414 and OpenID Connect Discovery, at the well-known URLs the
		// MCP authorization spec lists; the document's issuer must be ours.
		meta, err := auth.GetAuthServerMetadata(ctx, c.issuer, c.client)
		switch {
		case err != nil:
			return nil, fmt.Errorf("discovery at the issuer %s: %v (set the JWKS URL to skip discovery)", c.issuer, err)
		case meta == nil:
			return nil, fmt.Errorf("the issuer %s publishes no OAuth or OpenID Connect metadata (set the JWKS URL)", c.issuer)
		case meta.JWKSURI == "":
			return nil, fmt.Errorf("the issuer %s's metadata names no jwks_uri (set the JWKS URL)", c.issuer)
		}
		if err := checkIssuerURL(meta.JWKSURI); err != nil {
			return nil, fmt.Errorf("the issuer's jwks_uri %s: %v", meta.JWKSURI, err)
		}
		url = meta.JWKSURI
		c.mu.Lock()
		c.url = url
		c.mu.Unlock()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %v", url, err)
	}
	if len(body) > 1<<20 {
		return nil, fmt.Errorf("GET %s: the key set is over 1 MiB", url)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("GET %s: not a JWK set: %v", url, err)
	}
	if len(pick(&set, "")) == 0 {
		return nil, fmt.Errorf("GET %s: the key set holds no public signing key", url)
	}
	return &set, nil
}
