package mcpkit

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/mcpkit/internal/bearer"
	"github.com/tailormcp/tailor/mcpkit/internal/loglimit"
	"github.com/tailormcp/tailor/mcpkit/internal/redact"
	"github.com/tailormcp/tailor/mcpkit/quotestore"
	"github.com/tailormcp/tailor/mcpkit/telemetry"
)

// API is the static description of a generated server.
type API struct {
	Name         string
	Title        string
	Version      string
	Instructions string
	// EnvPrefix prefixes every environment variable the server reads.
	EnvPrefix string
	// DefaultBaseURL comes from the spec's servers (may be relative or empty).
	DefaultBaseURL string
	Schemes        []Scheme
	// Context lists values taken from the caller, never from the model.
	Context []ContextValue
	// Messages override built-in messages by id (see Catalog); a tool's
	// own Messages win over these.
	Messages map[string]string
	// Toolsets describe the groups tools belong to (Tool.Toolset).
	Toolsets []Toolset
}

// ContextValue is a value of the caller's context, resolved from its
// sources (a verified token's Claim, the HTTP request's Header, the
// server's Env) by the identity policy (see the package doc).
type ContextValue struct {
	Name   string
	Header string
	Claim  string
	Env    string
}

// ErrorRule matches a failed call: every Status and Body condition that is
// set must hold. Text is a template with .args, .body and .status.
type ErrorRule struct {
	Status []string // "404", "4XX"
	// Body maps a top-level field of the error body, or a JSONPath
	// expression's first value, to the value it must have: a Go value as
	// encoding/json decodes JSON (a number of any Go type matches the same
	// JSON number).
	Body map[string]any
	Text string
}

// SchemeKind is how a credential is sent.
type SchemeKind string

// The kinds of credential.
const (
	Bearer SchemeKind = "bearer" // Authorization: Bearer <token>
	Basic  SchemeKind = "basic"  // Authorization: Basic base64(user:password)
	APIKey SchemeKind = "apiKey" // a key in a header, query parameter or cookie
)

// Scheme is a security scheme whose credentials come from the environment.
type Scheme struct {
	Name      string
	Kind      SchemeKind
	In        string // apiKey: "header", "query" or "cookie"
	ParamName string // apiKey: the header, query or cookie name
	Env       string // token, key, or (basic) password
	EnvUser   string // basic: username
}

// Config is the run-time configuration of a server.
type Config struct {
	// BaseURL is the backend's base URL; every tool's path is appended to it.
	BaseURL string
	// Timeout bounds each backend request (default 30s).
	Timeout time.Duration
	// Retries is how many times a read-only call is retried after a
	// connection failure or a 502/503/504 (default 2). Writes are never
	// retried once sent.
	Retries int
	// OAuth verifies bearer tokens an OAuth authorization server issued
	// (oauth.go): NewRuntime sets Verifier from it. It also serves the
	// Protected Resource Metadata.
	OAuth *OAuth
	// Scopes are OAuth scopes every request's token must hold (else 403
	// with an insufficient_scope challenge), besides each tool's own.
	Scopes []string
	// Verifier verifies the bearer tokens of HTTP requests (Run wraps the
	// endpoint with it). With a verifier, context values come only from
	// verified claims unless AllowUnverifiedContext is set (see the
	// identity policy in identity.go).
	Verifier auth.TokenVerifier
	// AllowUnverifiedContext lets a request header or the environment fill
	// a context value that the verified token lacks.
	AllowUnverifiedContext bool
	// PassThroughAuth forwards the Authorization header of the incoming MCP
	// HTTP request to the backend (HTTP transport only; off by default).
	PassThroughAuth bool
	// Getenv reads credentials; defaults to os.Getenv.
	Getenv func(string) string
	// HTTPClient sends backend requests (default: a client with Timeout).
	HTTPClient *http.Client
	// Log receives structured logs; default stderr. Never stdout: in stdio
	// mode stdout carries the protocol.
	Log io.Writer
	// MaxResultBytes bounds the JSON a result shows the model (default
	// 64 KiB); longer results are cut with a note saying how much.
	MaxResultBytes int
	// MaxResponseBytes bounds how much of a backend response is read
	// (default 10 MiB). A larger response is not read on: the call fails
	// with a message saying so.
	MaxResponseBytes int
	// MaxArgumentBytes bounds a call's arguments as JSON (default 1 MiB);
	// MaxArgumentDepth their nesting (default 64). Larger or deeper
	// arguments are refused before they are decoded.
	MaxArgumentBytes int
	MaxArgumentDepth int
	// Secrets are more values to keep out of results and logs, besides
	// the configured credentials (e.g. a token verification secret).
	Secrets []string
	// Quotes stores quotes; default an in-memory store (see QuoteStore for
	// servers running as several replicas).
	Quotes quotestore.Store
	// QuoteTTL, when set, overrides every quote tool's validity; it must
	// not be negative.
	QuoteTTL time.Duration
	// MaxQuotes bounds the quotes not yet used in the default in-memory
	// quote store (default DefaultMaxQuotes); at the bound new quotes are
	// refused.
	MaxQuotes int
	// MaxUsedQuotes bounds the used quotes the default store remembers
	// (default DefaultMaxUsedQuotes); beyond it the one closest to its
	// end is forgotten.
	MaxUsedQuotes int
	// MaxQuotesPerCaller bounds the open quotes one caller holds in the
	// default store (default DefaultMaxQuotesPerCaller; negative: no
	// bound): beyond it that caller's new quotes are refused, and other
	// callers can still quote.
	MaxQuotesPerCaller int
	// Approve is the server-wide approval policy for tools the overlay
	// gives no approval: "none" (or empty), "destructive" or "writes"
	// (approve_policy.go).
	Approve string
	// ApprovalKey signs the request state of approval requests (HMAC). A
	// random per-process key by default; replicas behind one endpoint must
	// share one (at least 32 bytes).
	ApprovalKey []byte
	// Audit receives one JSON line per tool call; default Log.
	Audit io.Writer
	// ReadyChecks are more checks of /readyz (HTTP mode), besides the
	// backend and a quote store that can be pinged (see health.go).
	ReadyChecks []ReadyCheck
	// Telemetry receives traces and metrics (telemetry.go); nil: none.
	// Run sets it from the OTEL_* environment (telemetry.FromEnv).
	Telemetry *telemetry.Telemetry
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
	// Selection chooses the tools served (see selection.go).
	Selection Selection
	// ToolRules are more rules of every request's selection: each may
	// hide and refuse tools per request (see ToolRule).
	ToolRules []ToolRule
}

// Runtime is the shared run-time state of one server: configuration,
// credentials and the HTTP client.
type Runtime struct {
	api    API
	cfg    Config
	base   *url.URL
	client *http.Client
	log    *slog.Logger
	sdkLog *slog.Logger
	creds  map[string]credential
	quotes quotestore.Store
	states *stateSigner
	// redactor removes the configured secrets; secretValues and basicPairs
	// are what it was built from, for a call that adds its own.
	redactor     *redact.Redactor
	secretValues []string
	basicPairs   []string
	callers      redact.Callers
	auditOut     *auditWriter
	// baseProblem says why base is nil: no usable base URL is configured
	// (see settings.go).
	baseProblem string
	// ops: readiness, calls in progress, shutdown (health.go, drain.go).
	ops operationsState
	// oauth verifies an issuer's tokens when Config.OAuth is set.
	oauth *bearer.Verifier
	// stdioSession names the one session a stdio server serves, in the
	// audit log (see Call.sessionID).
	stdioSession string
	// afterReply defers each call's audit record until the connection
	// has written its result (stdio); nil: written before the result.
	afterReply *afterReply
	// misfits limits the warnings about results that do not fit their
	// tool's output schema (output.go).
	misfits loglimit.Keyed
	// tools are the registered tools in order, byName by name, meta the
	// dynamic meta-tools (selection.go, dynamic.go).
	tools  []*entry
	byName map[string]*entry
	meta   []*entry
	// static is the rule of Config.Selection (nil: it allows every tool);
	// startTools are the tools --tools names, listed from the start in
	// dynamic mode.
	static     func(*Tool) *Refusal
	startTools names
	dyn        dynamicState
	// send is the server's sending handler (notifyToolsChanged);
	// stateless: HTTP without sessions, where nothing lasts past a request.
	send      mcp.MethodHandler
	stateless bool
	// tel records traces and metrics; nil without Config.Telemetry.
	tel *instruments
}

func (k *Runtime) now() time.Time { return k.cfg.Now() }

type credential struct {
	scheme Scheme
	value  string
	user   string
}

// NewRuntime checks cfg against api and reads credentials from the environment.
func NewRuntime(api API, cfg Config) (*Runtime, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.Retries < 0 {
		cfg.Retries = 0
	}
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	if cfg.MaxResultBytes <= 0 {
		cfg.MaxResultBytes = 64 << 10
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = 10 << 20
	}
	if cfg.MaxArgumentBytes <= 0 {
		cfg.MaxArgumentBytes = 1 << 20
	}
	if cfg.MaxArgumentDepth <= 0 {
		cfg.MaxArgumentDepth = 64
	}
	// An explicit base URL that is wrong is a mistake to stop at; a
	// missing one (or the spec's relative one) is not: the server starts,
	// lists its tools, and refuses calls saying what to set.
	explicit := cfg.BaseURL != ""
	if !explicit {
		cfg.BaseURL = api.DefaultBaseURL
	}
	base, baseProblem := parseBaseURL(cfg.BaseURL)
	if baseProblem != "" && explicit {
		return nil, fmt.Errorf("%s: set --base-url or %s_BASE_URL to the API's absolute http(s) URL", baseProblem, api.EnvPrefix)
	}
	if baseProblem != "" && cfg.BaseURL != "" {
		baseProblem = fmt.Sprintf("the API description's server %q is not an absolute http(s) URL", cfg.BaseURL)
	}
	k := &Runtime{api: api, cfg: cfg, base: base, baseProblem: baseProblem, creds: map[string]credential{}, misfits: loglimit.Keyed{Every: misfitLogEvery}}
	if cfg.HTTPClient != nil {
		cp := *cfg.HTTPClient
		k.client = &cp
	} else {
		k.client = &http.Client{Timeout: cfg.Timeout, Transport: backendTransport()}
	}
	// Redirects are never followed: the credentials and the caller's
	// identity headers would go to the redirect's target, and a 307/308
	// would send a write again. The 3xx becomes the call's result.
	k.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if cfg.Now == nil {
		k.cfg.Now = time.Now
	}
	if err := checkApprovePolicy(cfg.Approve); err != nil {
		return nil, err
	}
	if cfg.QuoteTTL < 0 {
		return nil, fmt.Errorf("the quote validity %s is negative: give a positive duration such as 15m", cfg.QuoteTTL)
	}
	if cfg.OAuth != nil {
		if cfg.Verifier != nil {
			return nil, fmt.Errorf("both an OAuth issuer and another token verifier are configured; choose one")
		}
		if err := cfg.OAuth.Check(api.EnvPrefix); err != nil {
			return nil, err
		}
	}
	if (cfg.Verifier != nil || cfg.OAuth != nil) && !cfg.AllowUnverifiedContext {
		for _, cv := range api.Context {
			if cv.Claim == "" {
				return nil, fmt.Errorf("context value %q has no claim source, and with bearer tokens verified only their claims count: add a claim to it in the overlay, or allow its header and environment sources with --allow-unverified-context (%s_ALLOW_UNVERIFIED_CONTEXT=true)", cv.Name, api.EnvPrefix)
			}
		}
	}
	k.quotes = cfg.Quotes
	if k.quotes == nil {
		m := quotestore.NewMemory()
		m.MaxQuotes = cfg.MaxQuotes
		m.MaxUsed = cfg.MaxUsedQuotes
		m.MaxPerCaller = cfg.MaxQuotesPerCaller
		k.quotes = m
	}
	states, err := newStateSigner(cfg.ApprovalKey, api.Name)
	if err != nil {
		return nil, err
	}
	k.states = states
	for _, s := range api.Schemes {
		c := credential{scheme: s, value: cfg.Getenv(s.Env)}
		if s.Kind == Basic {
			c.user = cfg.Getenv(s.EnvUser)
			if c.user == "" && c.value == "" {
				continue
			}
		} else if c.value == "" {
			continue
		}
		k.creds[s.Name] = c
		k.secretValues = append(k.secretValues, c.value)
		if s.Kind == Basic {
			// The user name alone is not secret, but "user:password" is
			// what an Authorization header carries in base64.
			k.basicPairs = append(k.basicPairs, c.user+":"+c.value)
		}
	}
	k.secretValues = append(k.secretValues, cfg.Secrets...)
	if len(cfg.ApprovalKey) > 0 {
		// Whoever holds it can sign approvals.
		k.secretValues = append(k.secretValues, string(cfg.ApprovalKey))
	}
	k.redactor = redact.New(k.secretValues, k.basicPairs)
	// Every log line, the server's and go-sdk's, passes the redactor.
	logOut := redact.Writer{W: cfg.Log, R: k.redactor}
	k.log = slog.New(slog.NewJSONHandler(logOut, nil))
	// go-sdk logs every session's start and end at info level; in stateless
	// HTTP that is every request. Its warnings and errors still show.
	k.sdkLog = slog.New(slog.NewJSONHandler(logOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if cfg.Audit == nil {
		cfg.Audit = cfg.Log
	}
	k.auditOut = &auditWriter{w: cfg.Audit}
	if cfg.OAuth != nil {
		k.oauth = bearer.NewVerifier(*cfg.OAuth, k.log, k.cfg.Now)
		k.cfg.OAuth = k.oauth.Config()
		k.cfg.Verifier = k.oauth.Verify
		k.cfg.ReadyChecks = append(k.cfg.ReadyChecks, ReadyCheck{Name: "identity provider", Check: k.oauth.Ready})
	}
	if k.tel, err = newInstruments(cfg.Telemetry); err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	if k.tel != nil {
		k.reportTelemetryErrors()
	}
	k.startWarnings()
	return k, nil
}

// Logger is the server's structured logger (stderr by default).
func (k *Runtime) Logger() *slog.Logger { return k.log }

// redact removes configured secrets from text that may reach the model or
// the logs: a backend that echoes a key back must not leak it.
func (k *Runtime) redact(s string) string { return k.redactor.String(s) }

// missingCredentials names the environment variables that would satisfy
// the tool's security requirement, for the message of a 401/403.
func (k *Runtime) missingCredentials(t *Tool) []string {
	if len(t.Security) == 0 {
		return nil
	}
	var envs []string
	for _, alt := range t.Security {
		for _, name := range alt {
			if _, ok := k.creds[name]; ok {
				return nil
			}
			for _, s := range k.api.Schemes {
				if s.Name == name {
					envs = append(envs, s.Env)
				}
			}
		}
	}
	return envs
}

// backendTransport is http.DefaultTransport with room for one idle
// keep-alive connection per concurrent call. The default keeps 2 idle
// connections per host, so under concurrent tool calls (streamable HTTP)
// most requests dialed a new connection and left one in TIME_WAIT; with
// this, 32 concurrent clients get 30-60% more calls/s (make bench).
func backendTransport() http.RoundTripper {
	dt, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return http.DefaultTransport
	}
	t := dt.Clone()
	t.MaxIdleConnsPerHost = 100
	return t
}
