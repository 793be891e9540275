package mcpkit

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/diag"
)

// Which tools a request sees and may call is decided in one place: the
// request's selection, an ordered list of rules (ToolRule), each of which
// may refuse a tool with a reason. The same selection filters tools/list,
// refuses tools/call (before anything else, audited like any refused
// call), and bounds what the dynamic meta-tools search, describe, enable
// and call (dynamic.go). The rules are:
//
//   - the server's selection (Config.Selection: --toolsets, --tools,
//     --exclude-tools);
//   - read-only (--read-only): a tool that writes (Tool.Writes) is refused,
//     whatever else is set;
//   - over HTTP, the request's X-MCP-* headers (X-MCP-Toolsets, X-MCP-Tools,
//     X-MCP-Exclude-Tools, X-MCP-Read-Only): another rule in the list, so a
//     header can only narrow what the flags allow, never widen it;
//   - the verified token's scopes (scopes.go): a tool whose Tool.Scopes
//     the token does not all hold is refused;
//   - Config.ToolRules, for whatever else decides per request: append a
//     rule there.
//
// A quote tool and its confirm tool travel together: a pair is allowed only
// when both are, and naming one in --tools or --exclude-tools names both.
// In dynamic mode the tools/list of a session shows the meta-tools and the
// allowed tools of the toolsets it enabled; that is a view of the listing
// only (a tool not yet enabled may still be called, as call_tool would).

// Selection is a server's choice of tools (flags and environment).
type Selection struct {
	// Toolsets to serve; nil: the API's default toolsets (in dynamic
	// mode: every toolset may be enabled). "all" names every toolset.
	Toolsets []string
	// Tools are served besides the toolsets' tools. Given alone (Toolsets
	// nil), only they are served.
	Tools []string
	// ExcludeTools are never served.
	ExcludeTools []string
	// ReadOnly serves only tools that do not write.
	ReadOnly bool
	// Dynamic starts each session with the meta-tools only (dynamic.go).
	Dynamic bool
}

// Toolset is a named group of tools (Tool.Toolset names it).
type Toolset struct {
	Name        string
	Description string
	// Default toolsets are served when no --toolsets is given.
	Default bool
}

// RequestInfo is what a ToolRule may read of a request.
type RequestInfo struct {
	// Session is the MCP session (nil when there is none).
	Session *mcp.ServerSession
	// Header holds the HTTP request's headers (nil over stdio).
	Header http.Header
	// Token is the verified bearer token's information, if any.
	Token *auth.TokenInfo
}

// Refusal says why a request may not see or call a tool: a message of the
// catalog (see Catalog) and its fields. The model reads it when it calls
// the tool anyway.
type Refusal struct {
	Message string
	Fields  M
}

// A ToolRule is one rule of the selection: for a request it returns the
// check of each tool, or nil when the rule does not concern the request.
// The check returns nil to allow a tool. A rule that cannot read the
// request returns a check refusing every tool.
type ToolRule func(r RequestInfo) func(t *Tool) *Refusal

// HeaderPrefix names the per-request selection headers: the flag's name
// after it (X-MCP-Toolsets for --toolsets).
const HeaderPrefix = "X-MCP-"

// selected is the selection of one request.
type selected struct {
	k      *Runtime
	checks []func(*Tool) *Refusal
	// enabled, in dynamic mode, is the session's listing (nil: not dynamic).
	enabled *enabledSet
	// perCaller is set when the listing depends on the request or its
	// session (headers, token scopes, tool rules, dynamic mode), not only
	// on how the server was started.
	perCaller bool
}

// requestInfo reads a request's session, headers and token.
func requestInfo(req mcp.Request) RequestInfo {
	var r RequestInfo
	if req == nil {
		return r
	}
	r.Session, _ = req.GetSession().(*mcp.ServerSession)
	if ex := req.GetExtra(); ex != nil {
		r.Header, r.Token = ex.Header, ex.TokenInfo
	}
	return r
}

// selection builds the selection of a request; an error says what is wrong
// with the request's selection headers.
func (k *Runtime) selection(r RequestInfo) (*selected, error) {
	s := &selected{k: k}
	if k.static != nil {
		s.checks = append(s.checks, k.static)
	}
	if k.cfg.Selection.ReadOnly {
		s.checks = append(s.checks, readOnly("--read-only or "+k.api.EnvPrefix+"_READ_ONLY"))
	}
	static := len(s.checks)
	hs, err := k.headerSelection(r.Header)
	if err != nil {
		return nil, err
	}
	s.checks = append(s.checks, hs...)
	if c := k.scopeRule(r); c != nil {
		s.checks = append(s.checks, c)
	}
	for _, rule := range k.cfg.ToolRules {
		if c := rule(r); c != nil {
			s.checks = append(s.checks, c)
		}
	}
	if k.cfg.Selection.Dynamic {
		s.enabled = k.dyn.of(r.Session)
	}
	s.perCaller = len(s.checks) > static || s.enabled != nil
	return s, nil
}

// refusal says why the request may not use t, or nil: every rule's check,
// on the tool and on its quote/confirm partner.
func (s *selected) refusal(t *Tool) *Refusal {
	for _, c := range s.checks {
		if r := c(t); r != nil {
			return r
		}
	}
	if p := s.k.partner(t); p != nil {
		for _, c := range s.checks {
			if r := c(p); r != nil {
				return r
			}
		}
	}
	return nil
}

// allows reports whether the request may see and call t.
func (s *selected) allows(t *Tool) bool { return s.refusal(t) == nil }

// listed reports whether t is in the request's tools/list.
func (s *selected) listed(t *Tool) bool {
	return s.allows(t) && (s.enabled == nil || s.enabled.has(t))
}

// everything reports whether the request sees every tool as registered,
// so that tools/list can be go-sdk's own.
func (s *selected) everything() bool { return len(s.checks) == 0 && s.enabled == nil }

// allowed lists the tools the request may use, in registration order.
func (s *selected) allowed() []*entry {
	var out []*entry
	for _, e := range s.k.tools {
		if s.allows(e.tool) {
			out = append(out, e)
		}
	}
	return out
}

// partner is t's quote or confirm tool, if any.
func (k *Runtime) partner(t *Tool) *Tool {
	name := t.Confirms
	if t.Quote != nil {
		name = t.Quote.ConfirmTool
	}
	if e := k.byName[name]; name != "" && e != nil {
		return e.tool
	}
	return nil
}

func readOnly(setting string) func(*Tool) *Refusal {
	return func(t *Tool) *Refusal {
		if t.Writes {
			return &Refusal{Message: "tool_read_only", Fields: M{"setting": setting}}
		}
		return nil
	}
}

// names is a set of tool names.
type names map[string]bool

// nameSet resolves a list of tool and toolset names into the set of tool
// names they stand for, with each quote/confirm partner; problems name
// each unknown name with a suggestion.
func (k *Runtime) nameSet(toolsets, tools []string, where func(kind string) string) (names, []string) {
	set := names{}
	var problems []string
	for _, ts := range toolsets {
		if ts == "all" {
			for _, e := range k.tools {
				set[e.tool.Name] = true
			}
			continue
		}
		if !k.hasToolset(ts) {
			problems = append(problems, fmt.Sprintf("%s: unknown toolset %q%s", where("toolsets"), ts, suggestion(ts, k.toolsetNames())))
			continue
		}
		for _, e := range k.tools {
			if e.tool.Toolset == ts {
				set[e.tool.Name] = true
			}
		}
	}
	for _, name := range tools {
		e := k.byName[name]
		if e == nil {
			problems = append(problems, fmt.Sprintf("%s: unknown tool %q%s", where("tools"), name, suggestion(name, k.toolNames())))
			continue
		}
		set[name] = true
	}
	for name := range set {
		if p := k.partner(k.byName[name].tool); p != nil {
			set[p.Name] = true
		}
	}
	return set, problems
}

// suggestion is " (did you mean x?)", else the names known when few.
func suggestion(name string, known []string) string {
	if best := diag.Nearest(name, known); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	if len(known) <= 30 {
		return "; known: " + strings.Join(known, ", ")
	}
	return ""
}

// compileSelection checks the server's selection against its tools and
// builds its rule (nil when it allows every tool).
func (k *Runtime) compileSelection() error {
	sel := k.cfg.Selection
	flag := func(kind string) string {
		return fmt.Sprintf("--%s (%s_%s)", kind, k.api.EnvPrefix, strings.ToUpper(strings.ReplaceAll(kind, "-", "_")))
	}
	toolsets, tools := sel.Toolsets, sel.Tools
	// In dynamic mode --tools names what is listed from the start; every
	// toolset stays discoverable unless --toolsets says otherwise.
	if toolsets == nil && (sel.Tools == nil || sel.Dynamic) {
		if sel.Dynamic {
			toolsets = []string{"all"}
		} else {
			for _, ts := range k.api.Toolsets {
				if ts.Default {
					toolsets = append(toolsets, ts.Name)
				}
			}
			// A tool of no toolset, or of one the API does not describe,
			// is served.
			for _, e := range k.tools {
				if !k.describedToolset(e.tool.Toolset) {
					tools = append(tools, e.tool.Name)
				}
			}
		}
	}
	allowed, problems := k.nameSet(toolsets, tools, flag)
	excluded, more := k.nameSet(nil, sel.ExcludeTools, func(string) string { return flag("exclude-tools") })
	problems = append(problems, more...)
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	k.startTools = names{}
	for _, name := range sel.Tools {
		k.startTools[name] = true
	}
	all := true
	for _, e := range k.tools {
		if !allowed[e.tool.Name] || excluded[e.tool.Name] {
			all = false
		}
	}
	if all {
		return nil
	}
	k.static = func(t *Tool) *Refusal {
		switch {
		case excluded[t.Name]:
			return &Refusal{Message: "tool_not_selected", Fields: M{"setting": flag("exclude-tools")}}
		case !allowed[t.Name]:
			return &Refusal{Message: "tool_not_selected", Fields: M{"setting": "--toolsets and --tools"}}
		}
		return nil
	}
	return nil
}

// headerSelection reads a request's X-MCP-* selection headers into rules
// (none without headers). Each is one more rule: it narrows.
func (k *Runtime) headerSelection(h http.Header) ([]func(*Tool) *Refusal, error) {
	if h == nil {
		return nil, nil
	}
	toolsets, tools := h.Values(headerName("toolsets")), h.Values(headerName("tools"))
	exclude, ro := h.Values(headerName("exclude-tools")), h.Get(headerName("read-only"))
	if len(toolsets) == 0 && len(tools) == 0 && len(exclude) == 0 && ro == "" {
		return nil, nil
	}
	where := func(kind string) string { return "the " + headerName(kind) + " header" }
	var checks []func(*Tool) *Refusal
	var problems []string
	if len(toolsets) > 0 || len(tools) > 0 {
		set, p := k.nameSet(commaList(strings.Join(toolsets, ",")), commaList(strings.Join(tools, ",")), where)
		problems = append(problems, p...)
		checks = append(checks, func(t *Tool) *Refusal {
			if !set[t.Name] {
				return &Refusal{Message: "tool_not_selected", Fields: M{"setting": where("toolsets") + " and " + where("tools")}}
			}
			return nil
		})
	}
	if len(exclude) > 0 {
		set, p := k.nameSet(nil, commaList(strings.Join(exclude, ",")), func(string) string { return where("exclude-tools") })
		problems = append(problems, p...)
		checks = append(checks, func(t *Tool) *Refusal {
			if set[t.Name] {
				return &Refusal{Message: "tool_not_selected", Fields: M{"setting": where("exclude-tools")}}
			}
			return nil
		})
	}
	if ro != "" {
		on, err := strconv.ParseBool(strings.TrimSpace(ro))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %q is not a boolean (true or false)", where("read-only"), ro))
		}
		// false cannot widen what the server allows: it adds no rule.
		if on {
			checks = append(checks, readOnly(where("read-only")))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return checks, nil
}

// headerName is the selection header of a flag: X-MCP-Exclude-Tools for
// exclude-tools.
func headerName(flag string) string {
	parts := strings.Split(flag, "-")
	for i, p := range parts {
		parts[i] = strings.ToUpper(p[:1]) + p[1:]
	}
	return HeaderPrefix + strings.Join(parts, "-")
}

func (k *Runtime) hasToolset(name string) bool {
	return slices.Contains(k.toolsetNames(), name)
}

func (k *Runtime) describedToolset(name string) bool {
	for _, ts := range k.api.Toolsets {
		if ts.Name == name {
			return true
		}
	}
	return false
}

// toolsetNames lists the API's toolsets and those its tools name, sorted.
func (k *Runtime) toolsetNames() []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, ts := range k.api.Toolsets {
		add(ts.Name)
	}
	for _, e := range k.tools {
		add(e.tool.Toolset)
	}
	sort.Strings(out)
	return out
}

func (k *Runtime) toolNames() []string {
	out := make([]string, 0, len(k.tools))
	for _, e := range k.tools {
		out = append(out, e.tool.Name)
	}
	return out
}

// refusedCall is the result of a call the request's selection refuses,
// or nil.
func (c *Call) refusedCall() *mcp.CallToolResult {
	s, err := c.kit.selection(requestInfo(c.req))
	if err != nil {
		return errorResult(c.say("selection_invalid", M{"problem": err.Error()}))
	}
	if r := s.refusal(c.tool); r != nil {
		attrs := []any{"tool", c.tool.Name, "refusal", r.Message}
		for _, f := range slices.Sorted(maps.Keys(r.Fields)) {
			attrs = append(attrs, f, r.Fields[f])
		}
		c.logger().Warn("call refused", attrs...)
		return errorResult(c.say(r.Message, r.Fields))
	}
	return nil
}

// listPageSize is go-sdk's default page size, kept for filtered listings.
const listPageSize = mcp.DefaultPageSize

// selectTools is a receiving middleware: tools/list shows what the
// request's selection lists (go-sdk's own listing when it lists all).
func (k *Runtime) selectTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/list" {
			return next(ctx, method, req)
		}
		s, err := k.selection(requestInfo(req))
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		if s.everything() {
			return next(ctx, method, req)
		}
		var defs []*mcp.Tool
		for _, e := range k.meta {
			defs = append(defs, e.def)
		}
		for _, e := range k.tools {
			if s.listed(e.tool) {
				defs = append(defs, e.def)
			}
		}
		sort.Slice(defs, func(i, j int) bool { return defs[i].Name < defs[j].Name })
		cursor := ""
		if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p != nil {
			cursor = p.Cursor
		}
		res, err := pageOf(defs, cursor)
		if err != nil {
			return nil, err
		}
		// go-sdk fills these for the listings it answers itself; this one
		// bypasses it. A listing that depends on the caller must not be
		// served from a cache shared with other callers.
		res.CacheScope = "public"
		if s.perCaller {
			res.CacheScope = "private"
		}
		return res, nil
	}
}

// pageOf is the page of defs (sorted by name) after cursor, the last name
// of the previous page.
func pageOf(defs []*mcp.Tool, cursor string) (*mcp.ListToolsResult, error) {
	start := 0
	if cursor != "" {
		after, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor"}
		}
		start = sort.Search(len(defs), func(i int) bool { return defs[i].Name > string(after) })
	}
	res := &mcp.ListToolsResult{Tools: []*mcp.Tool{}}
	end := min(len(defs), start+listPageSize)
	res.Tools = append(res.Tools, defs[start:end]...)
	if end < len(defs) {
		res.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(defs[end-1].Name))
	}
	return res, nil
}
