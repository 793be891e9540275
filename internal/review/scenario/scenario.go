// Package scenario is `tailor test`: scenario files that list tool calls
// and what must hold after each (isError, the text the model reads,
// structuredContent fields by JSONPath, the approval question and its
// answer, and the requests the backend received), run through the go-sdk
// MCP client against servers started as commands (a generated server, or
// tailor serve) over stdio, with a recording proxy between the server and
// the backend.
//
// A scenario file (its JSON Schema is scenarios/scenario.schema.json):
//
//	tailor-test: 1
//	env: {SHOP_CUSTOMER_ID: cust_1}   # the servers' environment (identity over stdio)
//	scenarios:
//	  - name: a quote carried out once
//	    calls:
//	      - call: quote_refund
//	        args: {order_id: "5531", line_item_ids: [li_2]}
//	        expect:
//	          structured: {$.amount: 230}
//	        save: {quote: $.quote_id}          # later strings read it as {{.quote}}
//	      - call: refund_items
//	        args: {quote_id: "{{.quote}}"}
//	        approval: {answer: accept, question: {contains: NT$230}}
//	        expect:
//	          requests:                          # exactly these, in order
//	            - {method: POST, path: /orders/5531/refunds, body: {$.amount: 230}}
//
// Parse checks the file's shape and reports every problem at once as
// file:line:col, unknown keys with a suggestion, like the overlay parser;
// tool names are checked against each target's tools/list before anything
// runs. Each scenario runs on a server of its own, so quotes and sessions
// do not leak from one to the next; the backend is the caller's.
package scenario

import (
	"regexp"

	"github.com/theory/jsonpath"

	"github.com/tailormcp/tailor/internal/diag"
)

// Version is the scenario format version this package reads.
const Version = 1

// File is a parsed scenario file.
type File struct {
	Path string
	// Env is added to the environment of every server the file's
	// scenarios run on.
	Env       []EnvVar
	Scenarios []*Scenario
}

// EnvVar is one environment variable of a server.
type EnvVar struct {
	Name, Value string
}

// Scenario is a sequence of calls on one server: one task.
type Scenario struct {
	Name        string
	Pos         diag.Pos
	Description string
	// Skip names targets the scenario does not run on.
	Skip []string
	Env  []EnvVar
	// Calls are the task's calls on every target without a variant.
	Calls []*Call
	// Variants are the same task's calls on targets whose tool set
	// differs (the raw tool set beside the curated one), by target name.
	Variants map[string][]*Call
}

// CallsFor returns the calls the scenario makes on a target, and whether
// it runs there at all.
func (s *Scenario) CallsFor(target string) ([]*Call, bool) {
	for _, name := range s.Skip {
		if name == target {
			return nil, false
		}
	}
	if calls, ok := s.Variants[target]; ok {
		return calls, true
	}
	return s.Calls, true
}

// Call is one tool call and what must hold after it.
type Call struct {
	Tool    string
	ToolPos diag.Pos
	Pos     diag.Pos
	// Args are the arguments, strings possibly holding references.
	Args     any
	Approval *Approval
	Expect   Expect
	Save     []*Save
}

// Approval is how the simulated person answers the approval question the
// call asks, and what the question must say.
type Approval struct {
	Answer   string // accept, decline or cancel
	Question *TextCond
	Pos      diag.Pos
}

// Expect is what must hold after a call.
type Expect struct {
	// IsError is the result's isError; false unless the file says so.
	IsError    bool
	IsErrorPos diag.Pos
	Text       *TextCond
	Structured []*PathCond
	// Requests, when set, are the requests the backend must have received
	// during the call: exactly these, in order.
	Requests    []*RequestMatch
	HasRequests bool
	RequestsPos diag.Pos
}

// TextCond is what a text (the result's, the approval question) must
// contain, not contain, match, or be.
type TextCond struct {
	Contains    []Str
	NotContains []Str
	Matches     []Str
	Equals      *Str
	Pos         diag.Pos
}

// Str is a string of the file with its position; it may hold references.
type Str struct {
	S   string
	Pos diag.Pos
}

// Cond is a condition on one value: equal to a JSON value, containing a
// string or element, matching a regular expression, or present/absent.
type Cond struct {
	Equals      any
	HasEquals   bool
	Contains    any
	HasContains bool
	Matches     *Str
	Exists      *bool
	Pos         diag.Pos
}

// PathCond is a condition on what a JSONPath selects.
type PathCond struct {
	Path     string
	Compiled *jsonpath.Path
	Cond     Cond
}

// NamedCond is a condition on a header or query parameter.
type NamedCond struct {
	Name string
	Cond Cond
}

// RequestMatch describes one request the backend must have received.
type RequestMatch struct {
	Method  string
	Path    *Str
	Query   []NamedCond
	Headers []NamedCond
	Body    []*PathCond
	Pos     diag.Pos
}

// Save keeps a value of a call's result for later calls, from
// structuredContent (a JSONPath) or from the text (a regular expression's
// first group, else its whole match).
type Save struct {
	Name  string
	Path  *jsonpath.Path
	Match *regexp.Regexp
	Src   string
	Pos   diag.Pos
}
