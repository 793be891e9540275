// Package overlays reads tailor overlays: the YAML file in which a backend
// team curates the raw tool set generated from its OpenAPI description.
//
// A minimal overlay:
//
//	# yaml-language-server: $schema=https://raw.githubusercontent.com/tailormcp/tailor/main/overlays/overlay.schema.json
//	tailor: 1
//	include: listed
//	tools:
//	  get_order:
//	    operation: getOrder
//	    description: Returns one order of the logged-in customer ...
//
// Parse checks the file's shape: the version, every key (unknown keys are
// errors with a "did you mean" suggestion), and the type of every value, and
// reports every problem of the file at once, each as file:line:col. Whether
// the operations, parameters and template references exist is checked
// against the spec by the curate stage, which has both.
//
// The format is documented in docs/overlay.md and by the
// JSON Schema overlays/overlay.schema.json (published at that path).
package overlay

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/yamlwalk"
)

// Version is the overlay format version this package reads.
const Version = 1

// Overlay is a parsed overlay file.
type Overlay struct {
	Path string
	// SHA256 is the hex digest of the file's bytes.
	SHA256  string
	Version int
	Server  Server
	// Include is "listed" (only the tools below; the default), "all" (every
	// operation, curated where listed), or selectors.
	Include Include
	Exclude []*Selector
	Tools   []*Tool // in file order
	Actions []*Action
	Lint    Lint
	// Messages replace built-in messages of the server (mcpkit's catalog)
	// by id, in file order.
	Messages []*Message
	// Toolsets name groups of tools, describe them and say which are
	// served by default, in file order.
	Toolsets []*Toolset
}

// Toolset names, describes and fills one group of tools. A tool not
// listed in any keeps the toolset of its operation (its first tag, else
// its path); a confirm tool always goes with its quote tool.
type Toolset struct {
	Name        string
	Pos         diag.Pos
	Description *string
	// Default: served when no toolset is chosen (default true).
	Default *bool
	Tools   []Named
}

// Named is a name and where it was written.
type Named struct {
	Name string
	Pos  diag.Pos
}

// Lint configures `tailor lint` for the whole tool set.
type Lint struct {
	// Budget, when set, is the most tokens tools/list may take; going over
	// it is then an error (without it, lint only warns past its default).
	Budget    int
	BudgetPos diag.Pos
}

// Message replaces one built-in message: ID names it in mcpkit's catalog,
// Text is a template over that message's fields.
type Message struct {
	ID   string
	Text Text
	Pos  diag.Pos
}

// Server configures the server as a whole.
type Server struct {
	Name         string
	Title        string
	Instructions string
	Context      []*ContextValue // in file order
}

// ContextValue is a value the server takes from the caller, never from the
// model: the first of its sources that is set, in the order header, claim,
// env.
type ContextValue struct {
	Name   string
	Header string // a header of the incoming MCP HTTP request
	Claim  string // a claim of the verified bearer token
	Env    string // an environment variable of the server process
	Pos    diag.Pos
}

// Include selects which operations become tools.
type Include struct {
	Mode      string // "listed", "all" or "selected"
	Selectors []*Selector
	Pos       diag.Pos
}

// Selector matches operations; every field that is set must match.
type Selector struct {
	Operation string // operationId or "METHOD /path"
	Tag       string
	Method    string
	Path      string // a glob: * matches within a segment, ** across segments
	Pos       diag.Pos
}

// Tool curates one tool.
type Tool struct {
	Name         string
	Pos          diag.Pos
	Operation    string
	OperationPos diag.Pos
	Hidden       bool
	Title        *string
	Description  *string
	Annotations  Annotations
	Params       []*Param
	Result       *Result
	Errors       []*ErrorRule

	// Quote makes the tool a quote tool: its successful result is stored
	// under a short id that a confirm tool carries out.
	Quote *Quote
	// Confirms makes the tool the confirm tool of a quote tool: its only
	// argument is the quote id, and its Steps run with the quoted values.
	Confirms    string
	ConfirmsPos diag.Pos
	// Approval asks the person to approve (MCP elicitation) before the
	// tool runs: a confirm tool, or any other (then before anything is
	// sent); `approval: false` exempts the tool from the server's
	// --approve policy.
	Approval *Approval
	// Args declares the arguments of a composed tool (one with Steps).
	Args []*Arg
	// Steps make a composed tool: operations called in order.
	Steps []*Step
	// Reads are read-only steps a one-operation tool runs first: before
	// its approval question, or before a held quote is stored. The
	// question and the quote's text see their results as .steps.<name>.
	Reads []*Step
	// Lint switches `tailor lint` rules off for this tool, with reasons.
	Lint []*LintDisable
	// Messages replace built-in messages for this tool only.
	Messages []*Message
	// Scopes, when not nil, replace the OAuth scopes the spec's security
	// requirements give the tool (an empty list: none needed); ScopesAt
	// is where each is written.
	Scopes   []string
	ScopesAt []diag.Pos
}

// Quote configures a quote tool.
type Quote struct {
	// TTLSeconds is how long a quote stays valid (default 15 minutes).
	TTLSeconds int
	// Hold: the API has no preview; the server holds the operation's
	// arguments as the quote (checked against its schema) and sends
	// nothing. The confirm tool's step of the same operation sends them.
	Hold bool
	Pos  diag.Pos
}

// Approval configures human approval of a tool.
type Approval struct {
	// Message is the question (a template); empty: the generated one.
	Message Text
	// Never (`approval: false`) exempts the tool from the server-wide
	// approval policy; nothing is asked.
	Never bool
	// WithoutElicitation is "refuse" (default) or "proceed": what to do when
	// the client cannot ask the person.
	WithoutElicitation string
	Pos                diag.Pos
}

// Arg declares an argument of a composed tool: a JSON Schema for it, and
// whether it is required.
type Arg struct {
	Name     string
	Schema   map[string]any
	Required bool
	Pos      diag.Pos
}

// Step is one operation of a composed tool.
type Step struct {
	Name         string
	Operation    string
	OperationPos diag.Pos
	// ForEach is a template reference to a list; the step runs once per
	// element, which templates see as .item.
	ForEach *Text
	// IdempotencyKey sends the quote id as the Idempotency-Key header.
	IdempotencyKey bool
	// Args bind the operation's arguments (raw names) to templates or
	// literal values, in file order.
	Args []*StepArg
	Pos  diag.Pos
}

// StepArg binds one argument of a step's operation.
type StepArg struct {
	Name string
	// Value is a literal value, or a string holding a template.
	Value *Value
	Pos   diag.Pos
}

// Annotations override the hints derived from the HTTP method.
type Annotations struct {
	ReadOnly    *bool
	Destructive *bool
	Idempotent  *bool
	OpenWorld   *bool
}

// Param curates one parameter, keyed by its raw argument name.
type Param struct {
	Name        string
	Pos         diag.Pos
	Rename      *string
	Description *string
	Examples    []any
	Enum        []any
	Default     *Value
	Minimum     *float64
	Maximum     *float64
	Pattern     *string
	MinLength   *int
	MaxLength   *int
	// Value fixes the parameter: it is hidden and always sent as this.
	Value *Value
	// From injects the parameter from a context value ("context.customer_id").
	From    string
	FromPos diag.Pos
	// Hidden drops an optional parameter from the tool.
	Hidden   bool
	Required *bool
}

// Value is a YAML value with its position.
type Value struct {
	V   any
	Pos diag.Pos
}

// Result shapes a successful response.
type Result struct {
	Keep []Text // JSONPath expressions (RFC 9535), or plain field names
	Drop []Text
	// Text is a Go text/template rendered for the model.
	Text *Text
	// MaxBytes bounds what the model reads; longer results are cut with a
	// note. Zero means the server's default.
	MaxBytes int
	Pos      diag.Pos
}

// Text is a string with its position.
type Text struct {
	S   string
	Pos diag.Pos // of the YAML value (a block scalar's | or > indicator)
	// Start is where S's first character is in the file: after the quote
	// of a quoted string, on the line after a block scalar's indicator.
	Start diag.Pos
	// Exact says S runs on from Start character for character (a one-line
	// string without escapes, or a literal block), so that At can place
	// any offset of S in the file.
	Exact bool
}

// At is the position in the file of S[offset:]: exact when the text runs
// on from Start character for character, else the position of the value.
func (t Text) At(offset int) diag.Pos {
	if !t.Exact || offset < 0 || offset > len(t.S) {
		return t.Pos
	}
	before := t.S[:offset]
	line := strings.Count(before, "\n")
	col := utf8.RuneCountInString(before[strings.LastIndex(before, "\n")+1:])
	return diag.Pos{File: t.Start.File, Line: t.Start.Line + line, Col: t.Start.Col + col}
}

// ErrorRule turns matching failures into a message for the model.
type ErrorRule struct {
	// Status lists statuses ("404", "4XX"); empty matches any failure.
	Status []string
	// Body matches top-level fields (or JSONPath keys) of the error body.
	Body map[string]any
	Text Text
	Pos  diag.Pos
}

// Action is an OpenAPI Overlay 1.0/1.1 action, applied to the spec before
// anything else.
type Action struct {
	Target      string
	Description string
	Update      any
	HasUpdate   bool
	Remove      bool
	Copy        string
	Pos         diag.Pos
}

// Parse reads an overlay. On failure it returns a *diag.Errors listing every
// problem in the file.
func Parse(path string, data []byte) (*Overlay, error) {
	o, err := ParsePartial(path, data)
	if err != nil {
		return nil, err
	}
	return o, nil
}

// ParsePartial is Parse that also returns what could be read of a file with
// errors (nil when it is not YAML, or not of this format version), so that
// the caller can check the rest against the spec and report every problem
// of the file in one run.
func ParsePartial(path string, data []byte) (*Overlay, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, diag.YAML(path, err)
	}
	d := &decoder{Walker: yamlwalk.New(path), lines: strings.Split(string(data), "\n")}
	sum := sha256.Sum256(data)
	o := &Overlay{Path: path, SHA256: hex.EncodeToString(sum[:]), Include: Include{Mode: "listed"}}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		d.Errorf(&doc, "the overlay is empty: it needs at least `tailor: %d`", Version)
		return nil, d.Diags.Err()
	}
	d.overlay(doc.Content[0], o)
	if err := d.Diags.Err(); err != nil {
		if o.Version != Version {
			return nil, err
		}
		return o, err
	}
	return o, nil
}
