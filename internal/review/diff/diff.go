// Package diff compares tool sets for review.
//
// Compare puts the raw tool set (every operation converted as is) beside
// the curated one (the overlay applied), tool by tool: the operations each
// curated tool calls, the parameters hidden, fixed, injected from the
// caller's context, renamed or computed from earlier steps, the arguments
// the model no longer fills, the description's length, the annotations,
// and what each tool and the whole tools/list cost in tokens (an estimate,
// see package cost).
//
// Against shows what a new version of the spec does to the curated tools
// of an older one: operations that vanished, parameters added, removed or
// made required, and response fields that disappeared, marking those the
// overlay's templates and keep/drop paths read.
//
// Write renders a report as a terminal table, as Markdown for a pull
// request comment, or as JSON.
package diff

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/model"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/review/cost"
)

// Report is the comparison of a raw and a curated tool set.
type Report struct {
	Spec    string `json:"spec"`
	Overlay string `json:"overlay,omitempty"`
	// TokenEncoding says how tokens were counted. Counts are estimates:
	// clients and models wrap tool definitions in their own formats.
	TokenEncoding string       `json:"token_encoding"`
	TokensNote    string       `json:"tokens_note"`
	Raw           cost.Measure `json:"raw"`
	Curated       cost.Measure `json:"curated"`
	// Toolsets are the curated set's toolsets, each measured alone;
	// DynamicStart is tools/list at the start of a --dynamic session.
	Toolsets     []cost.Toolset `json:"toolsets"`
	DynamicStart cost.Measure   `json:"dynamic_start"`
	Tools        []*Tool        `json:"tools"`
	// NotOffered lists the raw tools whose operation no curated tool calls.
	NotOffered []Op `json:"not_offered"`
	// Names are each tool set's names against each major client's limit
	// with the server's name before them (model.Clients).
	Names Names `json:"client_names"`
	// Against is set by diff --against.
	Against *Impact `json:"against,omitempty"`
	// Note says anything the reader must know to read the report right.
	Note string `json:"note,omitempty"`
}

// Names are the raw and curated names against the clients' limits.
type Names struct {
	Server  string              `json:"server"`
	Raw     []model.ClientNames `json:"raw"`
	Curated []model.ClientNames `json:"curated"`
}

// Tool is one tool of the curated set beside the raw tools of its
// operations.
type Tool struct {
	Name string `json:"name"`
	// Kind is "curated" (an overlay entry), "raw" (kept as is by include),
	// "composed", "quote" or "confirm".
	Kind       string `json:"kind"`
	Operations []Op   `json:"operations"`
	Hidden     []Arg  `json:"hidden"`
	Fixed      []Arg  `json:"fixed"`
	Injected   []Arg  `json:"injected"`
	Renamed    []Arg  `json:"renamed"`
	// Computed are step arguments filled from a template over the quote,
	// earlier steps or the element of a for_each.
	Computed []Arg `json:"computed"`
	// NoLongerFilled are the raw tools' arguments the model does not fill
	// in this tool (hidden, fixed, injected or computed).
	NoLongerFilled []string `json:"model_no_longer_fills"`
	// NewArgs are arguments the raw tools did not have (a composed tool's
	// own, a confirm tool's quote_id, new names).
	NewArgs     []string `json:"new_arguments"`
	Description Pair     `json:"description_chars"`
	Annotations Labels   `json:"annotations"`
	// Scopes are the OAuth scopes a token needs to see and call the tool,
	// beside those of its raw tools (their union for a composed tool).
	Scopes Scopes `json:"scopes"`
	Tokens Pair   `json:"tokens"`
	// Approval says when the person is asked before the tool runs (see
	// approvalOf); empty: never (a tool that only reads).
	Approval string `json:"approval,omitempty"`
}

// Scopes are OAuth scopes before (the raw tools') and after curation.
type Scopes struct {
	Raw     []string `json:"raw"`
	Curated []string `json:"curated"`
}

// Op is an operation and the raw tool it becomes.
type Op struct {
	Method      string `json:"method"`
	Path        string `json:"path"`
	OperationID string `json:"operation_id,omitempty"`
	RawTool     string `json:"raw_tool,omitempty"`
	// Step names the step of a composed tool that calls it.
	Step string `json:"step,omitempty"`
}

func (o Op) String() string {
	s := o.Method + " " + o.Path
	if o.OperationID != "" {
		s = o.OperationID + " (" + s + ")"
	}
	if o.Step != "" {
		s = o.Step + ": " + s
	}
	return s
}

// Arg is one argument of a raw tool and what curation did to it.
type Arg struct {
	// Name is the raw tool's argument name; Step the composed tool's step.
	Name string `json:"name"`
	Step string `json:"step,omitempty"`
	// Detail is the new name, the fixed JSON value, the context value or
	// the template.
	Detail string `json:"detail,omitempty"`
}

func (a Arg) label() string {
	if a.Step != "" {
		return a.Step + "." + a.Name
	}
	return a.Name
}

// Pair is a number before (raw) and after (curated); Raw is 0 where there
// is no single raw tool to compare with.
type Pair struct {
	Raw     int `json:"raw"`
	Curated int `json:"curated"`
}

// Labels are annotation hints, such as "read-only,idempotent".
type Labels struct {
	Raw     string `json:"raw"`
	Curated string `json:"curated"`
}

// Compare compares raw (the spec without an overlay) with curated (with
// it); ov is the overlay, nil when there is none.
func Compare(raw, curated *ir.API, ov *overlay.Overlay) *Report {
	r := &Report{
		Spec:          raw.Source.SpecPath,
		TokenEncoding: cost.Encoding,
		TokensNote:    "an estimate: clients and models count differently",
		Raw:           cost.Of(raw),
		Curated:       cost.Of(curated),
		Toolsets:      cost.Toolsets(curated),
		DynamicStart:  cost.DynamicStart(),
		Tools:         []*Tool{},
		NotOffered:    []Op{},
	}
	if ov != nil {
		r.Overlay = ov.Path
	}
	r.Names = Names{Server: curated.Name, Raw: model.NamesByClient(raw.Name, toolNames(raw)), Curated: model.NamesByClient(curated.Name, toolNames(curated))}
	byOp := map[string]*ir.Tool{}
	for _, t := range raw.Tools {
		byOp[opKey(t.Call)] = t
	}
	entries := map[string]*overlay.Tool{}
	if ov != nil {
		for _, t := range ov.Tools {
			entries[t.Name] = t
		}
	}
	used := map[string]bool{}
	for _, t := range curated.Tools {
		dt := compareTool(t, byOp, entries[t.Name] != nil, r)
		for _, o := range dt.Operations {
			used[o.Method+" "+o.Path] = true
		}
		r.Tools = append(r.Tools, dt)
	}
	for _, t := range raw.Tools {
		if !used[opKey(t.Call)] {
			r.NotOffered = append(r.NotOffered, opOf(t.Call, t.Name, ""))
		}
	}
	return r
}

func toolNames(api *ir.API) []string {
	out := make([]string, len(api.Tools))
	for i, t := range api.Tools {
		out[i] = t.Name
	}
	return out
}

func opKey(c *ir.Call) string { return c.Method + " " + c.Path }

func opOf(c *ir.Call, rawTool, step string) Op {
	return Op{Method: c.Method, Path: c.Path, OperationID: c.OperationID, RawTool: rawTool, Step: step}
}

func compareTool(t *ir.Tool, byOp map[string]*ir.Tool, inOverlay bool, r *Report) *Tool {
	dt := &Tool{
		Name: t.Name, Kind: "curated",
		Operations: []Op{}, Hidden: []Arg{}, Fixed: []Arg{}, Injected: []Arg{}, Renamed: []Arg{}, Computed: []Arg{},
		NoLongerFilled: []string{}, NewArgs: []string{},
	}
	dt.Description.Curated = len(t.Description)
	dt.Annotations.Curated = labels(t.Annotations)
	dt.Tokens.Curated = cost.ToolTokens(t)
	dt.Approval = approvalOf(t)
	args := schemaArgs(t.InputSchema)
	covered := map[string]bool{}
	var rawScopes [][]string

	switch {
	case t.Call != nil:
		rawTool := byOp[opKey(t.Call)]
		name := ""
		if rawTool != nil {
			name = rawTool.Name
			dt.Description.Raw = len(rawTool.Description)
			dt.Annotations.Raw = labels(rawTool.Annotations)
			dt.Tokens.Raw = cost.ToolTokens(rawTool)
			rawScopes = append(rawScopes, rawTool.Scopes)
		}
		dt.Operations = append(dt.Operations, opOf(t.Call, name, ""))
		if !inOverlay {
			dt.Kind = "raw"
		}
		if t.Quote != nil {
			dt.Kind = "quote"
		}
		rawArgs := map[string]string{} // wire key → raw argument name
		if rawTool != nil {
			forEachArg(rawTool.Call, func(key, arg string, _ ir.ValueSource) { rawArgs[key] = arg })
		}
		forEachArg(t.Call, func(key, arg string, src ir.ValueSource) {
			rawArg, ok := rawArgs[key]
			if !ok || rawArg == "" {
				return
			}
			covered[arg] = arg != ""
			classify(dt, Arg{Name: rawArg}, arg, src)
		})
	default:
		dt.Kind = "composed"
		if t.Confirms != "" {
			dt.Kind = "confirm"
		}
		for _, st := range t.Steps {
			rawTool := byOp[opKey(st.Call)]
			name := ""
			if rawTool != nil {
				name = rawTool.Name
				dt.Tokens.Raw += cost.ToolTokens(rawTool)
				rawScopes = append(rawScopes, rawTool.Scopes)
			}
			dt.Operations = append(dt.Operations, opOf(st.Call, name, st.Name))
			forEachArg(st.Call, func(key, arg string, src ir.ValueSource) {
				rawArg := arg
				if rawTool != nil {
					forEachArg(rawTool.Call, func(k, a string, _ ir.ValueSource) {
						if k == key {
							rawArg = a
						}
					})
				}
				if rawArg == "" {
					return
				}
				a := Arg{Name: rawArg, Step: st.Name}
				if ref, ok := strings.CutPrefix(src.Template, "{{.args."); ok && strings.HasSuffix(ref, "}}") {
					covered[strings.TrimSuffix(ref, "}}")] = true
					return // passed through from the tool's own argument
				}
				if strings.HasPrefix(src.Template, "{{.quote.args.") {
					return // the model chose it when it asked for the quote
				}
				classify(dt, a, arg, src)
			})
		}
	}
	for _, a := range args {
		if !covered[a] {
			dt.NewArgs = append(dt.NewArgs, a)
		}
	}
	sort.Strings(dt.NoLongerFilled)
	dt.NoLongerFilled = dedupe(dt.NoLongerFilled)
	dt.Scopes = Scopes{Raw: nonNil(ir.SortedSet(rawScopes...)), Curated: nonNil(t.Scopes)}
	return dt
}

// classify records what happened to one raw argument: arg is its name in
// the curated tool ("" when the model does not fill it), src where its
// value comes from instead.
func classify(dt *Tool, a Arg, arg string, src ir.ValueSource) {
	switch {
	case src.Fixed != nil:
		a.Detail = string(src.Fixed)
		dt.Fixed = append(dt.Fixed, a)
	case src.Context != "":
		a.Detail = "context." + src.Context
		dt.Injected = append(dt.Injected, a)
	case src.Template != "":
		a.Detail = src.Template
		dt.Computed = append(dt.Computed, a)
	case arg == "":
		dt.Hidden = append(dt.Hidden, a)
	default:
		if arg != a.Name {
			a.Detail = arg
			dt.Renamed = append(dt.Renamed, a)
		}
		return
	}
	dt.NoLongerFilled = append(dt.NoLongerFilled, a.label())
}

// forEachArg calls f for every value of a request: key identifies it on
// the wire ("query:limit", "body:amount", "body"), arg is the model's
// argument name ("" when it does not fill it), src where else it comes
// from.
func forEachArg(c *ir.Call, f func(key, arg string, src ir.ValueSource)) {
	for _, p := range c.Params {
		f(string(p.In)+":"+p.Name, p.Arg, p.Source)
	}
	if b := c.Body; b != nil {
		if len(b.Fields) == 0 {
			f("body", b.Arg, b.Source)
		}
		for _, fl := range b.Fields {
			f("body:"+fl.Name, fl.Arg, fl.Source)
		}
	}
}

// schemaArgs lists the properties of an input schema, sorted.
func schemaArgs(raw json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(raw, &s)
	out := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func labels(a ir.Annotations) string {
	var l []string
	if a.ReadOnly {
		l = append(l, "read-only")
	} else {
		l = append(l, "write")
	}
	if a.Destructive && !a.ReadOnly {
		l = append(l, "destructive")
	}
	if a.Idempotent {
		l = append(l, "idempotent")
	}
	if a.OpenWorld {
		l = append(l, "open-world")
	}
	return strings.Join(l, ",")
}

// nonNil makes an empty list print as [] in JSON, not null.
func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// thousands formats n with commas: 12345 → 12,345.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// approvalOf says when the server asks the person before t runs: always
// (the overlay's approval), never (`approval: false`), or under which
// --approve policies (tools without an approval of their own).
func approvalOf(t *ir.Tool) string {
	a := t.Approval
	switch {
	case a != nil && a.Never:
		return "never (approval: false)"
	case a != nil && a.Message != "":
		return "always: " + a.Message
	case a != nil:
		return "always: the generated question"
	case t.Quote != nil || t.Annotations.ReadOnly || !t.Writes():
		return ""
	case t.Annotations.Destructive:
		return "with --approve destructive or writes"
	}
	return "with --approve writes"
}
