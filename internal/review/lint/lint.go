// Package lint checks the tool definitions a model will read — raw or
// curated — for the problems that make agents fail: descriptions that do
// not say when to use a tool, writes that ask the model for money or for
// the caller's identity, values listed in prose instead of an enum, names
// that are ambiguous, mismatched, too long or clashing, a name that says
// read on a tool that writes, near-duplicate tools, instructions hidden in
// spec text (tool poisoning), and a tool list over its token budget.
//
// Each finding has a rule id (Rules lists them, each with the reason it
// exists), a severity, and a position: in the overlay where the tool has an
// entry, else at the operation in the spec. An overlay switches a rule off
// for one tool with `lint: {disable: [{rule: ID, reason: "..."}]}`.
package lint

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/model"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/review/cost"
)

// DefaultBudget is the tools/list size, in tokens, above which token-budget
// fires unless told otherwise.
const DefaultBudget = 20000

// Options tune a run.
type Options struct {
	// Budget is the most tokens tools/list may take; 0 switches the check
	// off.
	Budget int
	// BudgetSet says the user chose Budget (--budget). Past a budget the
	// user chose, here or in the overlay (lint.budget, used when Budget
	// was not chosen), token-budget is an error; past the default it is a
	// warning, so a large raw tool set still lints clean of errors.
	BudgetSet bool
}

// Finding is one problem.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Tool     string   `json:"tool,omitempty"`
	Param    string   `json:"param,omitempty"`
	Pos      diag.Pos `json:"-"`
	File     string   `json:"file,omitempty"`
	Line     int      `json:"line,omitempty"`
	Col      int      `json:"col,omitempty"`
	Message  string   `json:"message"`
}

func (f Finding) String() string {
	s := string(f.Severity) + ": " + f.Message + " [" + f.Rule + "]"
	if p := f.Pos.String(); p != "" {
		return p + ": " + s
	}
	return s
}

// Suppressed is a finding an overlay switched off.
type Suppressed struct {
	Rule   string `json:"rule"`
	Tool   string `json:"tool"`
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// Result is the outcome of a run.
type Result struct {
	Findings   []Finding    `json:"findings"`
	Suppressed []Suppressed `json:"suppressed"`
	Errors     int          `json:"errors"`
	Warnings   int          `json:"warnings"`
	// Tokens is the estimated size of tools/list (see package cost).
	Tokens        int    `json:"tools_list_tokens"`
	TokenEncoding string `json:"token_encoding"`
	Budget        int    `json:"budget"`
	// Toolsets are the tool set's toolsets, each measured alone;
	// DynamicStartTokens is tools/list at the start of a --dynamic session.
	Toolsets           []cost.Toolset `json:"toolsets"`
	DynamicStartTokens int            `json:"dynamic_start_tokens"`
	// Clients are the tool names against each major client's limit.
	Clients []model.ClientNames `json:"client_names"`
}

// Run lints api, the tool set a server would list. raw is the spec's raw
// tool set (for what the API offers, such as quote operations); ov the
// overlay that made api (nil for none).
func Run(api, raw *ir.API, ov *overlay.Overlay, opts Options) *Result {
	l := &linter{api: api, raw: raw, entries: map[string]*overlay.Tool{}, res: &Result{Findings: []Finding{}, Suppressed: []Suppressed{}}}
	l.specLines = true
	if ov != nil {
		// After the overlay's actions the spec is re-encoded: its
		// operations' lines are not the user's file's.
		l.specLines = len(ov.Actions) == 0
		l.overlayPath = ov.Path
		for _, t := range ov.Tools {
			l.entries[t.Name] = t
		}
	}
	l.tools = make([]*toolInfo, len(api.Tools))
	for i, t := range api.Tools {
		l.tools[i] = newToolInfo(t)
	}
	l.indexFields()
	l.findQuotes()

	for _, ti := range l.tools {
		l.description(ti)
		l.writeGuidance(ti)
		l.readNameOnWrite(ti)
		l.money(ti)
		l.identity(ti)
		l.credential(ti)
		l.valuesWithoutEnum(ti)
		l.names(ti)
		l.resumeKeys(ti)
		l.unapprovedDestructive(ti)
		l.poisoning(ti)
	}
	l.apiPoisoning(ov)
	l.nameLength()
	l.nameClash()
	l.nearDuplicates()
	m := cost.Of(api)
	budget, chosen := opts.Budget, opts.BudgetSet
	pos := diag.Pos{File: api.Source.SpecPath}
	if ov != nil {
		pos = diag.Pos{File: ov.Path}
		if !chosen && ov.Lint.Budget > 0 {
			budget, chosen, pos = ov.Lint.Budget, true, ov.Lint.BudgetPos
		}
	}
	l.res.Tokens, l.res.TokenEncoding, l.res.Budget = m.Tokens, cost.Encoding, budget
	l.res.Toolsets, l.res.DynamicStartTokens = cost.Toolsets(api), cost.DynamicStart().Tokens
	if budget > 0 && m.Tokens > budget {
		f := Finding{Rule: "token-budget", Pos: pos, Message: fmt.Sprintf("tools/list takes about %s tokens (%d tools, %s estimate), over the budget of %s; serving fewer toolsets (--toolsets) or starting with discovery tools (--dynamic: about %s tokens) also keeps it down", thousands(m.Tokens), len(api.Tools), cost.Encoding, thousands(budget), thousands(l.res.DynamicStartTokens))}
		if !chosen {
			f.Message += " (lint's default; set `lint: {budget: N}` in the overlay to make it an error)"
		}
		l.add(f)
		if chosen {
			l.res.Findings[len(l.res.Findings)-1].Severity = Error
		}
	}
	l.applyDisables(ov)
	for i := range l.res.Findings {
		f := &l.res.Findings[i]
		f.File, f.Line, f.Col = f.Pos.File, f.Pos.Line, f.Pos.Col
		if f.Severity == Error {
			l.res.Errors++
		} else {
			l.res.Warnings++
		}
	}
	return l.res
}

type linter struct {
	api, raw    *ir.API
	overlayPath string
	specLines   bool
	entries     map[string]*overlay.Tool
	tools       []*toolInfo
	res         *Result
	// outputFields maps each response field name to the first tool that
	// returns it; fieldNames holds every property name of the responses.
	outputFields map[string]string
	fieldNames   map[string]bool
	// argOwner maps each argument name to the one tool that has it, or ""
	// when several do.
	argOwner map[string]string
	// quote is a quote/preview/estimate operation of the API, if any.
	quote string
}

func (l *linter) add(f Finding) {
	f.Severity = rule(f.Rule).Severity
	l.res.Findings = append(l.res.Findings, f)
}

// toolInfo is a tool with its arguments decoded.
type toolInfo struct {
	t    *ir.Tool
	args []*argInfo
}

// inPath reports whether the argument fills a path segment (a resource's
// name, even when called token: /invites/{token}).
func (ti *toolInfo) inPath(arg string) bool {
	if c := ti.t.Call; c != nil {
		for _, p := range c.Params {
			if p.Arg == arg {
				return p.In == ir.InPath
			}
		}
	}
	return false
}

// argNames lists the names prose may mention the tool's inputs by: the
// arguments' and, for a single-operation tool, the parameters' and body
// fields' names on the wire.
func (ti *toolInfo) argNames() []string {
	var out []string
	for _, a := range ti.args {
		out = append(out, a.name)
	}
	if c := ti.t.Call; c != nil {
		for _, p := range c.Params {
			out = append(out, p.Name)
		}
		if c.Body != nil {
			for _, f := range c.Body.Fields {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

type argInfo struct {
	name        string
	types       []string
	enum        bool
	description string
	schema      map[string]any
}

func newToolInfo(t *ir.Tool) *toolInfo {
	ti := &toolInfo{t: t}
	var root map[string]any
	if err := json.Unmarshal(t.InputSchema, &root); err != nil {
		return ti
	}
	defs, _ := root["$defs"].(map[string]any)
	props, _ := root["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s, _ := props[n].(map[string]any)
		s = deref(s, defs)
		a := &argInfo{name: n, schema: s}
		a.description, _ = s["description"].(string)
		_, a.enum = s["enum"]
		if _, c := s["const"]; c {
			a.enum = true
		}
		switch ty := s["type"].(type) {
		case string:
			a.types = []string{ty}
		case []any:
			for _, x := range ty {
				if str, ok := x.(string); ok && str != "null" {
					a.types = append(a.types, str)
				}
			}
		}
		ti.args = append(ti.args, a)
	}
	return ti
}

func deref(s map[string]any, defs map[string]any) map[string]any {
	for i := 0; i < 8 && s != nil; i++ {
		ref, ok := s["$ref"].(string)
		if !ok {
			break
		}
		next, _ := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		if next == nil {
			break
		}
		merged := map[string]any{}
		for k, v := range next {
			merged[k] = v
		}
		if d, ok := s["description"]; ok {
			merged["description"] = d
		}
		s = merged
	}
	if s == nil {
		return map[string]any{}
	}
	return s
}

func (a *argInfo) is(types ...string) bool {
	for _, t := range a.types {
		for _, want := range types {
			if t == want {
				return true
			}
		}
	}
	return false
}

func (a *argInfo) scalar() bool { return a.is("string", "integer", "number") }

// Positions: the tool's overlay entry where it has one (its parameter
// entry for an argument), else the operation in the spec.

func (l *linter) toolPos(t *ir.Tool) diag.Pos {
	if e := l.entries[t.Name]; e != nil {
		return e.Pos
	}
	return l.origin(t)
}

func (l *linter) origin(t *ir.Tool) diag.Pos {
	switch {
	case t.Origin.File == "":
		return diag.Pos{File: l.overlayPath}
	case !l.specLines:
		return diag.Pos{File: t.Origin.File}
	}
	return diag.Pos{File: t.Origin.File, Line: t.Origin.Line, Col: t.Origin.Col}
}

func (l *linter) argPos(t *ir.Tool, arg string) diag.Pos {
	if e := l.entries[t.Name]; e != nil {
		for _, p := range e.Params {
			if p.Name == arg || (p.Rename != nil && *p.Rename == arg) {
				return p.Pos
			}
		}
		for _, a := range e.Args {
			if a.Name == arg {
				return a.Pos
			}
		}
	}
	return l.toolPos(t)
}

// stepPos is a step's entry in the overlay, else the tool's.
func (l *linter) stepPos(t *ir.Tool, step string) diag.Pos {
	if e := l.entries[t.Name]; e != nil {
		for _, st := range e.Steps {
			if st.Name == step {
				return st.Pos
			}
		}
	}
	return l.toolPos(t)
}

// specPos is where text that came from the spec is: the operation.
func (l *linter) specPos(t *ir.Tool) diag.Pos {
	if t.Origin.File != "" {
		return l.origin(t)
	}
	return l.toolPos(t)
}

// applyDisables drops findings an overlay entry switched off, and reports
// switches for rules that do not exist.
func (l *linter) applyDisables(ov *overlay.Overlay) {
	if ov == nil {
		return
	}
	type key struct{ tool, rule string }
	off := map[key]*Suppressed{}
	ids := make([]string, len(Rules))
	for i, r := range Rules {
		ids[i] = r.ID
	}
	var config []Finding
	for _, t := range ov.Tools {
		for _, d := range t.Lint {
			if !known(d.Rule) {
				hint := diag.DidYouMean(d.Rule, ids)
				config = append(config, Finding{Rule: "lint-config", Tool: t.Name, Pos: d.Pos, Message: fmt.Sprintf("tool `%s` disables unknown rule `%s`%s", t.Name, d.Rule, hint)})
				continue
			}
			off[key{t.Name, d.Rule}] = &Suppressed{Rule: d.Rule, Tool: t.Name, Reason: d.Reason}
		}
	}
	kept := l.res.Findings[:0]
	for _, f := range l.res.Findings {
		if s := off[key{f.Tool, f.Rule}]; s != nil && f.Tool != "" {
			s.Count++
			continue
		}
		kept = append(kept, f)
	}
	l.res.Findings = kept
	for _, c := range config {
		c.Severity = Error
		l.res.Findings = append(l.res.Findings, c)
	}
	for _, t := range ov.Tools {
		for _, d := range t.Lint {
			if s := off[key{t.Name, d.Rule}]; s != nil && s.Count > 0 {
				l.res.Suppressed = append(l.res.Suppressed, *s)
				s.Count = 0
			}
		}
	}
}

func known(id string) bool {
	for _, r := range Rules {
		if r.ID == id {
			return true
		}
	}
	return false
}

// words splits a name into lower-case words: "lineItemID" and
// "line_item_id" → [line item id].
func words(name string) []string {
	var out []string
	var cur []rune
	rs := []rune(name)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ' || r == '[' || r == ']':
			flush()
		case r >= 'A' && r <= 'Z':
			if i > 0 && (rs[i-1] >= 'a' && rs[i-1] <= 'z' || rs[i-1] >= '0' && rs[i-1] <= '9' || (i+1 < len(rs) && rs[i+1] >= 'a' && rs[i+1] <= 'z' && rs[i-1] >= 'A' && rs[i-1] <= 'Z')) {
				flush()
			}
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

var spaces = regexp.MustCompile(`\s+`)

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
