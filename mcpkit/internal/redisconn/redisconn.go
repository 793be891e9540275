// Package redisconn opens the Redis connections a server shares between
// its quote store and its audit stream: URL checks that never show the
// password, timeouts, and a rate-limited client log.
package redisconn

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/tailormcp/tailor/mcpkit/internal/loglimit"
)

// Target is a Redis the server uses (the quote store, the audit
// stream), opened from a redis:// or rediss:// (TLS) URL.
type Target struct {
	Client *redis.Client
	// Shown is the URL with its password replaced, for logs and messages.
	Shown string
	// Secrets are the URL's password, in the forms the redactor needs.
	Secrets []string
}

// Open checks a Redis URL and makes its client; nothing is sent to
// Redis yet. Every command is bounded by timeout (dialing, reading,
// writing, waiting for a pooled connection) and never retried: a script
// whose answer was lost may have run, so the caller must see the failure.
// The URL's password never appears in an error.
func Open(setting, raw string, timeout time.Duration) (*Target, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: not a URL (give redis://[user:password@]host:port/db, or rediss:// for TLS)", setting)
	}
	t := &Target{Shown: u.Redacted()}
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return nil, fmt.Errorf("%s %s: the scheme must be redis:// or rediss:// (TLS)", setting, t.Shown)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%s %s: no host (give redis://host:port/db)", setting, t.Shown)
	}
	if p, ok := u.User.Password(); ok && p != "" {
		t.Secrets = append(t.Secrets, p)
	}
	opts, err := redis.ParseURL(raw)
	if err != nil {
		msg := err.Error()
		for _, s := range t.Secrets {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
		return nil, fmt.Errorf("%s %s: %s", setting, t.Shown, msg)
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout, opts.PoolTimeout = timeout, timeout, timeout, timeout
	opts.ContextTimeoutEnabled = true
	opts.MaxRetries = -1
	// Dialing again is safe (nothing was sent), but bounded: with Redis
	// down a call fails within about the timeout.
	opts.DialerRetries = 2
	// No CLIENT SETINFO or maintenance-notification handshake: older Redis
	// versions answer them with errors, and neither is needed here.
	opts.DisableIdentity = true
	opts.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	t.Client = redis.NewClient(opts)
	return t, nil
}

// Ping checks that Redis answers within the client's timeout.
func (t *Target) Ping(ctx context.Context) error {
	return t.Client.Ping(ctx).Err()
}

// Log routes go-redis's own log lines (pool and connection trouble)
// into the server's structured, redacting log, at most one every few
// seconds: with Redis down, every call would add one.
type Log struct {
	Log   *slog.Logger
	Limit *loglimit.Limiter
}

func (l Log) Printf(_ context.Context, format string, v ...any) {
	if n, ok := l.Limit.Allow(); ok {
		l.Log.Warn("redis client", "error", strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: "), "suppressed_since_last", n)
	}
}
