package mcpkit

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

// redisTarget is a Redis the server uses (the quote store, the audit
// stream), opened from a redis:// or rediss:// (TLS) URL.
type redisTarget struct {
	client *redis.Client
	// shown is the URL with its password replaced, for logs and messages.
	shown string
	// secrets are the URL's password, in the forms the redactor needs.
	secrets []string
}

// openRedis checks a Redis URL and makes its client; nothing is sent to
// Redis yet. Every command is bounded by timeout (dialing, reading,
// writing, waiting for a pooled connection) and never retried: a script
// whose answer was lost may have run, so the caller must see the failure.
// The URL's password never appears in an error.
func openRedis(setting, raw string, timeout time.Duration) (*redisTarget, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: not a URL (give redis://[user:password@]host:port/db, or rediss:// for TLS)", setting)
	}
	t := &redisTarget{shown: u.Redacted()}
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return nil, fmt.Errorf("%s %s: the scheme must be redis:// or rediss:// (TLS)", setting, t.shown)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%s %s: no host (give redis://host:port/db)", setting, t.shown)
	}
	if p, ok := u.User.Password(); ok && p != "" {
		t.secrets = append(t.secrets, p)
	}
	opts, err := redis.ParseURL(raw)
	if err != nil {
		msg := err.Error()
		for _, s := range t.secrets {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
		return nil, fmt.Errorf("%s %s: %s", setting, t.shown, msg)
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
	t.client = redis.NewClient(opts)
	return t, nil
}

// ping checks that Redis answers within the client's timeout.
func (t *redisTarget) ping(ctx context.Context) error {
	return t.client.Ping(ctx).Err()
}

// redisLog routes go-redis's own log lines (pool and connection trouble)
// into the server's structured, redacting log, at most one every few
// seconds: with Redis down, every call would add one.
type redisLog struct {
	log   *slog.Logger
	limit *loglimit.Limiter
}

func (l redisLog) Printf(_ context.Context, format string, v ...any) {
	if n, ok := l.limit.Allow(); ok {
		l.log.Warn("redis client", "error", strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: "), "suppressed_since_last", n)
	}
}
