// Package ir is tailor's intermediate representation: the tool set an MCP
// server exposes, independent of the spec format it came from and of the Go
// code it becomes.
//
// The model stage builds the raw IR (one tool per operation), the curate
// stage rewrites it (the overlay), and lower turns it into the runtime's
// values, which render prints as Go and tailor serve runs. Each tool keeps
// where it came from (Origin, the operation's place in the spec) so that a
// later stage can point its errors at the user's file.
package ir

import (
	"encoding/json"
	"sort"
)

// API is the whole tool set of one server.
type API struct {
	// Name is the server's implementation name reported in initialize.
	Name string
	// Title and Version come from the spec's info.
	Title   string
	Version string
	// Instructions are sent to the client in initialize (may be empty).
	Instructions string
	// EnvPrefix prefixes every environment variable the server reads
	// (PETSTORE_BASE_URL, PETSTORE_API_KEY, ...).
	EnvPrefix string
	// Servers are the spec's base URLs with variables set to their defaults;
	// the first is the server's default backend.
	Servers []string
	// Security lists the schemes credentials can be configured for.
	Security []SecurityScheme
	// DeclaredScopes are the scopes the spec's OAuth2 flows declare,
	// sorted; nil when it declares none, or when it has an OpenID Connect
	// scheme, whose scopes are the identity provider's to define.
	DeclaredScopes []string
	// Context lists values the server takes from the caller (never from
	// the model), by name.
	Context []ContextValue
	Tools   []*Tool
	// Messages replace mcpkit's built-in messages for the whole server,
	// by id (template text).
	Messages map[string]string
	// Source identifies the input, for the generated header.
	Source Source
	// Toolsets describe the groups tools belong to (Tool.Toolset), sorted
	// by name; each names at least one tool.
	Toolsets []Toolset
}

// Toolset is a named group of tools a server can serve or leave out as
// one (--toolsets), and that dynamic mode lists and enables.
type Toolset struct {
	Name        string
	Description string
	// Default toolsets are served when no toolset is chosen.
	Default bool
}

// Source identifies the spec (and later the overlay) a server came from.
type Source struct {
	SpecPath      string
	SpecSHA256    string
	OverlayPath   string
	OverlaySHA256 string

	// SpecInputs counts the files a spec split over files was read from
	// (the root and those its $refs read) and SpecInputsSHA256 hashes them
	// all (load.Spec.Inputs); zero for a spec in one file.
	SpecInputs       int
	SpecInputsSHA256 string
}

// Tool is one MCP tool.
type Tool struct {
	Name        string
	Title       string
	Description string
	Annotations Annotations
	// InputSchema is the tool's inputSchema: a JSON object schema, compact,
	// with keys in sorted order.
	InputSchema json.RawMessage
	// StrictSchema is InputSchema in the subset model APIs accept as
	// strict, which tools/list shows instead (nil: InputSchema is listed);
	// StrictPlan maps a call in that form back (schema.StrictPlan, JSON).
	StrictSchema, StrictPlan json.RawMessage
	// OutputSchema is the tool's outputSchema, or nil when the response is
	// not JSON.
	OutputSchema json.RawMessage
	// Call is the HTTP request a single-operation tool makes; nil for a
	// composed tool, which has Steps instead.
	Call *Call
	// Steps are the operations a composed tool calls, in order.
	Steps []*Step
	// Reads are the read-only steps a one-operation tool runs before its
	// approval question or before holding a quote.
	Reads []*Step
	// Quote is set on a tool whose successful result is stored as a quote
	// that a confirm tool can carry out.
	Quote *QuoteSpec
	// Confirms names the quote tool whose quotes this tool carries out; its
	// only argument is the quote id.
	Confirms string
	// Approval asks the person to approve before a confirm tool runs.
	Approval *Approval
	// Scopes are the OAuth scopes a caller's verified token needs to see
	// and call the tool, sorted: the overlay's `scopes`, else its
	// operation's (a composed tool: the union of its steps').
	Scopes []string

	// Shape is how a successful response is presented (nil: as is).
	Shape *Shape
	// Errors are rules, tried in order, that turn a failure into a message
	// for the model; unmatched failures get mcpkit's default messages.
	Errors []ErrorRule
	// Defaults are values sent when the model leaves an argument out, by
	// argument name (JSON).
	Defaults map[string]json.RawMessage
	// Messages replace mcpkit's built-in messages for this tool, by id.
	Messages map[string]string
	// Toolset names the group the tool belongs to (API.Toolsets).
	Toolset string
	Origin  Origin
}

// Writes reports whether the tool changes data: one of its requests is
// neither GET nor HEAD. This is what read-only mode refuses; a composed
// or confirm tool with any writing step writes.
func (t *Tool) Writes() bool {
	reads := func(c *Call) bool { return c == nil || c.Method == "GET" || c.Method == "HEAD" }
	if !reads(t.Call) && (t.Quote == nil || !t.Quote.Hold) {
		return true
	}
	for _, st := range t.Steps {
		if !reads(st.Call) {
			return true
		}
	}
	return false
}

// Shape projects and describes a successful response.
type Shape struct {
	// Keep or Drop are JSONPath expressions (RFC 9535) applied to the
	// response body; at most one of them is set.
	Keep []string
	Drop []string
	// Text is a text/template rendered for the model with .args, .body and
	// .status.
	Text string
	// MaxBytes bounds the JSON the model reads (0: mcpkit's default).
	MaxBytes int
}

// ErrorRule matches a failed call and says what the model reads instead.
type ErrorRule struct {
	// Status holds statuses ("404") and classes ("4XX"); empty: any.
	Status []string
	// Body maps top-level fields (or JSONPath expressions) of the error
	// body to the values they must have, as JSON.
	Body map[string]json.RawMessage
	Text string
}

// ContextValue is a value taken from the caller: the first set source in
// the order Header, Claim, Env.
type ContextValue struct {
	Name   string
	Header string
	Claim  string
	Env    string
}

// Step is one operation of a composed tool.
type Step struct {
	Name string
	Call *Call
	// ForEach is a reference to a list; the step runs once per element,
	// bound to .item.
	ForEach string
	// IdempotencyKey sends the quote id as the Idempotency-Key header.
	IdempotencyKey bool
}

// QuoteSpec configures a quote tool.
type QuoteSpec struct {
	// TTLSeconds is how long a quote stays valid.
	TTLSeconds int
	// ConfirmTool is the tool that carries the quotes out.
	ConfirmTool string
	// Hold: the server holds the operation's arguments as the quote and
	// sends nothing (an API without a preview operation).
	Hold bool
}

// Approval asks the person, through MCP elicitation, to approve a tool's
// action before it runs (a confirm tool's, or any other's before anything
// is sent).
type Approval struct {
	// Message is a template rendered with the quote.
	Message string
	// Proceed says what happens when the client cannot elicit: run anyway
	// (true) or refuse (false).
	Proceed bool
	// Never exempts the tool from the server-wide approval policy.
	Never bool
}

// ValueSource says where a request value comes from when the model does
// not fill it: a fixed value, a context value, or (in a composed tool's
// steps) a template over the tool's arguments, the quote, the context and
// earlier steps.
type ValueSource struct {
	// Fixed is a JSON value always sent (the overlay's, or the one value
	// the spec allows).
	Fixed json.RawMessage
	// Context names an ir.ContextValue.
	Context string
	// Template is a binding such as "{{.quote.body.amount}}"; a template that
	// is one reference keeps the referenced value's JSON type.
	Template string
	// Credential names a security scheme whose configured token or key is
	// the value (a parameter the spec declares besides the scheme that
	// carries the same secret); the scheme is then not applied again.
	Credential string
}

// Hidden reports whether the value is not the model's to fill.
func (s ValueSource) Hidden() bool {
	return s.Fixed != nil || s.Context != "" || s.Template != "" || s.Credential != ""
}

// Annotations are MCP tool annotation hints.
type Annotations struct {
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
}

// Origin says where an IR node came from.
type Origin struct {
	// Pointer is a JSON pointer into the spec ("#/paths/~1pets/get").
	Pointer string
	File    string
	Line    int
	Col     int
}

// Call is one HTTP operation of the API.
type Call struct {
	OperationID string
	Tags        []string
	Method      string
	// Path is the path template relative to the server URL ("/pets/{petId}").
	Path   string
	Params []*Param
	Body   *Body
	// Security lists the alternatives of the operation's security
	// requirement; each alternative is a set of scheme names that must all be
	// applied. Empty means no credentials.
	Security [][]string
	// Scopes are the OAuth scopes the operation's security requirement
	// names (its first alternative with an OAuth2 or OpenID Connect
	// scheme), sorted: what a caller's token needs by default.
	Scopes []string
	// Result describes how the successful response is shaped for the model.
	Result Result
}

// Location is where a parameter goes in the request.
type Location string

const (
	InPath   Location = "path"
	InQuery  Location = "query"
	InHeader Location = "header"
	InCookie Location = "cookie"
)

// Param is one path, query, header or cookie parameter.
type Param struct {
	// Arg is the property name the model fills in inputSchema; empty when
	// the value comes from Source, or when the parameter was dropped.
	Arg    string
	Source ValueSource
	// Name is the parameter's name on the wire.
	Name string
	In   Location
	// Style and Explode follow OpenAPI's serialization rules.
	Style         string
	Explode       bool
	AllowReserved bool
	Required      bool
	// JSONContent is set when the parameter is declared with `content:
	// application/json`: the value is sent JSON-encoded.
	JSONContent bool
}

// BodyEncoding is how a request body is serialized.
type BodyEncoding string

const (
	JSONBody      BodyEncoding = "json"
	FormBody      BodyEncoding = "form"
	MultipartBody BodyEncoding = "multipart"
	RawBody       BodyEncoding = "raw"
)

// Body is the request body.
type Body struct {
	ContentType string
	Encoding    BodyEncoding
	Required    bool
	// Arg is set when the whole body is one argument (arrays, unions, free
	// maps). Otherwise Fields lists the body's top-level properties, each its
	// own argument.
	Arg string
	// Source gives the whole body when it is not the model's argument.
	Source ValueSource
	Fields []*BodyField
}

// BodyField maps a tool argument to a top-level body property.
type BodyField struct {
	// Arg and Source are as for Param.
	Arg    string
	Source ValueSource
	Name   string
	// Style and Explode apply to form encodings (OpenAPI `encoding`).
	Style   string
	Explode bool
}

// Result describes the successful response.
type Result struct {
	// ContentType is the success response's media type ("" when none).
	ContentType string
	// Wrap names the property a non-object JSON response is put under in
	// structuredContent ("items" for arrays, "value" otherwise); empty when
	// the response is an object or not JSON.
	Wrap string
}

// SchemeKind is how a credential is sent.
type SchemeKind string

const (
	// BearerScheme sends "Authorization: Bearer <token>" (http bearer,
	// oauth2 and openIdConnect schemes: the server is given a token).
	BearerScheme SchemeKind = "bearer"
	// BasicScheme sends HTTP basic credentials.
	BasicScheme SchemeKind = "basic"
	// APIKeyScheme sends a key in a header, query parameter or cookie.
	APIKeyScheme SchemeKind = "apiKey"
)

// SecurityScheme is a way of authenticating to the API, configured from
// environment variables.
type SecurityScheme struct {
	// Name is the scheme's key in the spec's securitySchemes.
	Name string
	Kind SchemeKind
	// In and ParamName say where an API key goes.
	In        Location
	ParamName string
	// Env is the environment variable holding the token or key; for basic,
	// EnvUser and Env (the password) are both used.
	Env     string
	EnvUser string
}

// SortedSet returns the distinct non-empty strings of lists, sorted; nil
// when there are none.
func SortedSet(lists ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if s != "" && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}
