package mcpkit

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/mcpkit/internal/bearer"
	"github.com/tailormcp/tailor/mcpkit/quotestore"
	"github.com/tailormcp/tailor/mcpkit/telemetry"
)

// Register adds a generated package's tools to a server.
type Register func(s *mcp.Server, k *Runtime)

// NewServer builds the MCP server of a generated package.
func NewServer(api API, cfg Config, register Register) (*mcp.Server, *Runtime, error) {
	k, err := NewRuntime(api, cfg)
	if err != nil {
		return nil, nil, err
	}
	version := api.Version
	if version == "" {
		version = "0"
	}
	s := mcp.NewServer(&mcp.Implementation{Name: api.Name, Title: api.Title, Version: version},
		// HasTools: a server of zero tools (a toolset selection, a spec
		// without operations) still says it has tools, or the Vercel AI
		// SDK's client throws "Server does not support tools".
		&mcp.ServerOptions{Instructions: api.Instructions, Logger: k.sdkLog, HasTools: true})
	register(s, k)
	if err := k.compileSelection(); err != nil {
		return nil, nil, err
	}
	if cfg.Selection.Dynamic {
		if err := k.addMetaTools(s); err != nil {
			return nil, nil, err
		}
	}
	s.AddSendingMiddleware(k.captureSend)
	s.AddReceivingMiddleware(k.selectTools)
	// Outside go-sdk's multi-round-trip middleware: it sees a whole
	// approval round trip (see releaseFailedApprovals).
	s.AddReceivingMiddleware(k.releaseFailedApprovals)
	return s, k, nil
}

// Main runs a generated server as a program and returns its exit code. It
// reads flags, then environment variables named after api.EnvPrefix, and
// serves over stdio (the default) or streamable HTTP (--http ADDR).
func Main(api API, register Register, args []string) int {
	return run(api, register, args, os.Stdin, os.Stdout, os.Stderr)
}

// Run is Main with explicit standard streams (tailor serve uses it).
func Run(api API, register Register, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(api, register, args, stdin, stdout, stderr)
}

func run(api API, register Register, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := func(name string) string { return os.Getenv(api.EnvPrefix + "_" + name) }
	fs := flag.NewFlagSet(api.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	set := newSettings(fs, api.EnvPrefix, os.Getenv)
	var (
		baseURL     = set.String("base-url", "BASE_URL", "backend base URL (default "+orNone(api.DefaultBaseURL)+")")
		httpAddr    = set.String("http", "HTTP_ADDR", "serve streamable HTTP on this address instead of stdio; a bare port or \":port\" listens on loopback only (127.0.0.1:port)")
		stateless   = set.Bool("stateless", "STATELESS", "streamable HTTP without sessions")
		timeout     = set.Duration("timeout", "TIMEOUT", 30*time.Second, "timeout of each backend request")
		retries     = set.Int("retries", "RETRIES", 2, "retries of read-only calls after connection failures and 502/503/504")
		quoteTTL    = set.Duration("quote-ttl", "QUOTE_TTL", 0, "override how long quotes stay valid (default: as the overlay says)")
		maxQuotes   = set.Int("max-quotes", "MAX_QUOTES", quotestore.DefaultMaxQuotes, "most quotes not yet used kept at once; beyond it new quotes are refused")
		maxUsed     = set.Int("max-used-quotes", "MAX_USED_QUOTES", quotestore.DefaultMaxUsedQuotes, "most used quotes remembered, so that a replayed confirm hears \"already used\"; beyond it the one closest to its end is forgotten")
		maxPerCall  = set.Int("max-quotes-per-caller", "MAX_QUOTES_PER_CALLER", quotestore.DefaultMaxQuotesPerCaller, "most open quotes one caller (identity, else HTTP session) holds at once; beyond it that caller's new quotes are refused (-1: no bound)")
		passThrough = set.Bool("pass-through-auth", "PASS_THROUGH_AUTH", "HTTP mode: forward the MCP request's Authorization header to the backend")
		unverified  = set.Bool("allow-unverified-context", "ALLOW_UNVERIFIED_CONTEXT", "with bearer tokens verified, still let a request header or the environment fill a context value the token lacks")
		trustHdrs   = set.Bool("trust-context-headers", "TRUST_CONTEXT_HEADERS", "HTTP mode: a gateway in front of this server sets the context headers (and strips callers' own); allows them on a non-loopback address")
		origins     = set.String("allow-origin", "ALLOWED_ORIGINS", "HTTP mode: comma-separated browser origins (https://app.example.com) allowed besides the server's own")
		sessionIdle = set.Duration("session-timeout", "SESSION_TIMEOUT", 30*time.Minute, "HTTP mode: close sessions idle this long")
		readTO      = set.Duration("http-read-timeout", "HTTP_READ_TIMEOUT", 30*time.Second, "HTTP mode: time to read a request's headers and body")
		writeTO     = set.Duration("http-write-timeout", "HTTP_WRITE_TIMEOUT", approvalWindow+5*time.Minute, "HTTP mode: time to write the answer to a POST (it may wait for the user's approval)")
		idleTO      = set.Duration("http-idle-timeout", "HTTP_IDLE_TIMEOUT", 2*time.Minute, "HTTP mode: close keep-alive connections idle this long")
		approve     = set.String("approve", "APPROVE", "ask the user to approve (MCP elicitation) before tools the overlay gives no approval: none, destructive (every tool that deletes or overwrites) or writes (every tool that changes data) (default none)")
		maxResponse = set.Int("max-response-bytes", "MAX_RESPONSE_BYTES", 10<<20, "read at most this many bytes of a backend response; a larger one fails the call with a message saying so")
		ops         = declareOperations(set, api)
		oauth       = declareOAuth(set)
		choice      = declareSelection(set)
	)
	fs.Usage = func() {
		defer func() {
			fmt.Fprintf(stderr, "\n  %s_TOKEN_HS256_SECRET\tHTTP mode: require bearer tokens that are HS256 JWTs signed with this secret; their claims fill context values\n", api.EnvPrefix)
			fmt.Fprintf(stderr, "  %s_APPROVAL_KEY\tkey (32+ bytes) signing approval requests; replicas behind one endpoint share it (default: random per process)\n", api.EnvPrefix)
			for _, cv := range api.Context {
				if cv.Env != "" {
					fmt.Fprintf(stderr, "  %s\tcontext value %q when no header provides it; with bearer tokens verified, only with --allow-unverified-context\n", cv.Env, cv.Name)
				}
			}
			fmt.Fprintf(stderr, "\nTelemetry: OpenTelemetry traces and metrics go to the OTLP/HTTP collector at OTEL_EXPORTER_OTLP_ENDPOINT (http://host:4318) when it is set; the standard OTEL_* variables configure the rest.\n")
		}()
		fmt.Fprintf(stderr, "%s: MCP server for %s (generated by tailor).\n\nUsage: %s [flags]\n\nFlags:\n", api.Name, orNone(api.Title), api.Name)
		fs.PrintDefaults()
		printToolsets(stderr, api, register)
		if len(api.Schemes) > 0 {
			fmt.Fprintf(stderr, "\nCredentials (environment variables):\n")
			for _, s := range api.Schemes {
				switch s.Kind {
				case Basic:
					fmt.Fprintf(stderr, "  %s, %s\tbasic auth for scheme %q\n", s.EnvUser, s.Env, s.Name)
				case APIKey:
					fmt.Fprintf(stderr, "  %s\tAPI key for scheme %q (%s %s)\n", s.Env, s.Name, s.In, s.ParamName)
				default:
					fmt.Fprintf(stderr, "  %s\tbearer token for scheme %q\n", s.Env, s.Name)
				}
			}
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	set.positive("timeout", *timeout, "30s")
	set.atLeast("retries", *retries, 0)
	if set.given("quote-ttl") {
		set.positive("quote-ttl", *quoteTTL, "15m")
	}
	set.atLeast("max-quotes", *maxQuotes, 1)
	set.atLeast("max-used-quotes", *maxUsed, 1)
	set.positive("session-timeout", *sessionIdle, "30m")
	set.positive("http-read-timeout", *readTO, "30s")
	set.positive("http-write-timeout", *writeTO, "15m")
	set.positive("http-idle-timeout", *idleTO, "2m")
	set.atLeast("max-response-bytes", *maxResponse, 1)
	if err := checkApprovePolicy(*approve); err != nil {
		set.errs = append(set.errs, fmt.Sprintf("%s %q: give none, destructive or writes", set.source("approve"), *approve))
	}
	ops.check(set)
	selection := choice.selection(set)
	if len(set.errs) > 0 {
		for _, e := range set.errs {
			fmt.Fprintf(stderr, "%s: %s\n", api.Name, e)
		}
		return 2
	}
	cfg := Config{BaseURL: *baseURL, Timeout: *timeout, Retries: *retries, PassThroughAuth: *passThrough, Log: stderr,
		QuoteTTL: *quoteTTL, Approve: *approve, MaxQuotes: *maxQuotes, MaxUsedQuotes: *maxUsed, MaxQuotesPerCaller: *maxPerCall, AllowUnverifiedContext: *unverified, MaxResponseBytes: *maxResponse,
		Selection: selection}
	if key := env("APPROVAL_KEY"); key != "" {
		cfg.ApprovalKey = []byte(key)
	}
	if secret := env("TOKEN_HS256_SECRET"); secret != "" {
		if *httpAddr == "" {
			fmt.Fprintf(stderr, "%s: %s_TOKEN_HS256_SECRET verifies the bearer tokens of HTTP requests; it needs --http\n", api.Name, api.EnvPrefix)
			return 2
		}
		if len(secret) < bearer.MinHS256Secret {
			fmt.Fprintf(stderr, "%s: %s_TOKEN_HS256_SECRET has %d bytes; HS256 needs a secret of at least %d bytes (RFC 7518, section 3.2): make one with `openssl rand -hex 32`\n", api.Name, api.EnvPrefix, len(secret), bearer.MinHS256Secret)
			return 2
		}
		cfg.Verifier = bearer.HS256Verifier([]byte(secret))
		cfg.Secrets = append(cfg.Secrets, secret)
	}
	if err := oauth.apply(&cfg, api.EnvPrefix, *httpAddr != ""); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", api.Name, err)
		return 2
	}
	if *passThrough && *httpAddr == "" {
		fmt.Fprintf(stderr, "%s: --pass-through-auth needs --http: over stdio there is no incoming Authorization header\n", api.Name)
		return 2
	}
	shared, err := ops.apply(api, &cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", api.Name, err)
		return 2
	}
	defer shared.close()
	if cfg.Telemetry, err = telemetry.FromEnv(api.Name, api.Version); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", api.Name, err)
		return 2
	}
	server, k, err := NewServer(api, cfg, register)
	if err != nil {
		cfg.Telemetry.Shutdown(context.Background())
		fmt.Fprintf(stderr, "%s: %v\n", api.Name, err)
		return 2
	}
	defer k.flushTelemetry()
	shared.started(k, api)
	k.stateless = *httpAddr != "" && *stateless
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *httpAddr == "" {
		t := stdioTransport(stdin, stdout, k)
		if err := server.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			k.log.Error("server stopped", "error", err.Error())
			return 1
		}
		return 0
	}
	return serveHTTP(ctx, server, k, httpOptions{
		addr: *httpAddr, stateless: *stateless, trustHeaders: *trustHdrs, origins: commaList(*origins),
		sessionTimeout: *sessionIdle, readTimeout: *readTO, writeTimeout: *writeTO, idleTimeout: *idleTO,
		shutdownTimeout: *ops.shutdown,
	}, stderr)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
