package mcpkit

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tailormcp/tailor/mcpkit/internal/loglimit"
	"github.com/tailormcp/tailor/mcpkit/internal/redact"
	"github.com/tailormcp/tailor/mcpkit/internal/redisconn"
	"github.com/tailormcp/tailor/mcpkit/quotestore"
)

// operations are the settings of a server run as replicas behind a load
// balancer: the shared quote store, the audit stream, and the shutdown
// bound (flags of Run; docs/deploy.md tells an operator how to use them).
//
// A Redis that does not answer at start does not stop the server: it
// starts, says so on stderr, reports not ready on /readyz, and refuses
// what needs quotes (with a result saying nothing was done) until Redis
// answers; it never falls back to memory, which would break single use
// across replicas. A Redis URL that is wrong stops it (exit 2).
type operations struct {
	quoteStore, prefix     *string
	redisTimeout, shutdown *time.Duration
	auditStream, auditKey  *string
	auditMaxLen            *int
}

func declareOperations(set *settings, api API) *operations {
	return &operations{
		quoteStore:   set.String("quote-store", "QUOTE_STORE", "where quotes are kept: memory (the default; this process only), or redis://[user:password@]host:port/db (rediss:// for TLS), shared by the replicas of this server"),
		prefix:       set.String("quote-store-prefix", "QUOTE_STORE_PREFIX", "prefix of this server's Redis keys (<prefix>:quote:<id>); replicas of one server share it, other servers on the same Redis need their own (default "+api.Name+")"),
		redisTimeout: set.Duration("redis-timeout", "REDIS_TIMEOUT", 2*time.Second, "bound on each Redis command (quote store, audit stream); past it the call is refused saying nothing was done"),
		auditStream:  set.String("audit-stream", "AUDIT_STREAM", "also write the audit log to a Redis stream at this redis:// or rediss:// URL (stderr keeps it too)"),
		auditKey:     set.String("audit-stream-key", "AUDIT_STREAM_KEY", "the audit stream's key (default <prefix>:audit)"),
		auditMaxLen:  set.Int("audit-stream-maxlen", "AUDIT_STREAM_MAXLEN", 100000, "keep about this many audit records in the stream (XADD MAXLEN ~)"),
		shutdown:     set.Duration("shutdown-timeout", "SHUTDOWN_TIMEOUT", 20*time.Second, "HTTP mode: on SIGTERM, how long calls in progress may take to finish before they are interrupted and recorded as unknown"),
	}
}

func (o *operations) check(set *settings) {
	set.positive("redis-timeout", *o.redisTimeout, "2s")
	set.positive("shutdown-timeout", *o.shutdown, "20s")
	set.atLeast("audit-stream-maxlen", *o.auditMaxLen, 1)
}

// opened is what apply set up, closed when the server exits.
type opened struct {
	log     *slog.Logger
	store   *redisconn.Target
	stream  *auditStream
	timeout time.Duration
	closes  []func()
}

// apply opens the Redis clients the flags ask for and puts them in cfg:
// the quote store, the audit stream (beside cfg.Audit), and their
// passwords among the secrets kept out of logs and results.
func (o *operations) apply(api API, cfg *Config, stderr io.Writer) (*opened, error) {
	op := &opened{timeout: *o.redisTimeout}
	prefix := strings.TrimSpace(*o.prefix)
	if prefix == "" {
		prefix = api.Name
	}
	targets := map[string]*redisconn.Target{}
	open := func(setting, raw string) (*redisconn.Target, error) {
		if t := targets[raw]; t != nil {
			return t, nil
		}
		t, err := redisconn.Open(setting, raw, *o.redisTimeout)
		if err != nil {
			return nil, err
		}
		targets[raw] = t
		cfg.Secrets = append(cfg.Secrets, t.Secrets...)
		op.closes = append(op.closes, func() { t.Client.Close() })
		return t, nil
	}
	if raw := strings.TrimSpace(*o.quoteStore); raw != "" && raw != "memory" {
		t, err := open("--quote-store", raw)
		if err != nil {
			return nil, err
		}
		store := quotestore.NewRedis(t.Client, prefix)
		store.MaxQuotes = cfg.MaxQuotes
		store.MaxUsed = cfg.MaxUsedQuotes
		store.MaxPerCaller = cfg.MaxQuotesPerCaller
		cfg.Quotes, op.store = store, t
	}
	var secrets []string
	for _, t := range targets {
		secrets = append(secrets, t.Secrets...)
	}
	if raw := strings.TrimSpace(*o.auditStream); raw != "" {
		t, err := open("--audit-stream", raw)
		if err != nil {
			return nil, err
		}
		secrets = append(secrets, t.Secrets...)
		key := strings.TrimSpace(*o.auditKey)
		if key == "" {
			key = prefix + ":audit"
		}
		op.stream = newAuditStream(t.Client, key, int64(*o.auditMaxLen), nil)
		audit := cfg.Audit
		if audit == nil {
			audit = cfg.Log
		}
		cfg.Audit = io.MultiWriter(audit, op.stream)
	}
	// Until the Runtime's logger exists: Redis's own messages, redacted.
	op.log = slog.New(slog.NewJSONHandler(redact.Writer{W: stderr, R: redact.New(secrets, nil)}, nil))
	if op.stream != nil {
		op.stream.log = op.log
	}
	if len(targets) > 0 {
		redis.SetLogger(redisconn.Log{Log: op.log, Limit: &loglimit.Limiter{Every: 10 * time.Second}})
	}
	return op, nil
}

// started says, once at start, what the shared setup lacks.
func (op *opened) started(k *Runtime, api API) {
	if op.store == nil {
		return
	}
	k.log.Info("quote store", "url", op.store.Shown, "prefix", k.quotes.(*quotestore.Redis).Prefix())
	if len(k.cfg.ApprovalKey) == 0 {
		k.log.Warn("quotes are shared, but the approval key is random to this process: an approval requested here cannot be answered on another replica",
			"fix", fmt.Sprintf("give every replica the same %s_APPROVAL_KEY (32 or more random bytes)", api.EnvPrefix))
	}
	ctx, cancel := context.WithTimeout(context.Background(), op.timeout)
	defer cancel()
	if err := op.store.Ping(ctx); err != nil {
		k.log.Warn("the quote store does not answer: quotes can be neither made nor carried out until it does, and /readyz reports not ready",
			"url", op.store.Shown, "error", k.redact(err.Error()))
	}
}

// close flushes the audit stream and closes the clients.
func (op *opened) close() {
	if op.stream != nil {
		op.stream.close(2 * time.Second)
	}
	for _, c := range op.closes {
		c()
	}
}
