package mcpkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tailormcp/tailor/internal/jsonv"
)

// Dynamic mode (--dynamic): a session starts with a few small meta-tools
// instead of the whole tool set, whose definitions would cost every model
// request (a large API's tools/list is hundreds of thousands of tokens).
// The model lists the toolsets, searches the tools, describes one, and
// either enables a toolset (its tools join this session's tools/list, and
// the client is sent notifications/tools/list_changed) or calls a tool by
// name through call_tool. Everything here stays inside the request's
// selection (selection.go): a tool it refuses is neither found, described,
// enabled nor called. call_tool runs the tool's own handler, so a call
// through it is validated, identified, approved and audited exactly as a
// direct call.

// Meta-tool names.
const (
	ListToolsetsTool   = "list_toolsets"
	SearchToolsTool    = "search_tools"
	DescribeToolTool   = "describe_tool"
	EnableToolsetsTool = "enable_toolsets"
	CallToolTool       = "call_tool"
)

// metaTools are the meta-tools' definitions, in listing order.
var metaTools = []*Tool{
	{Name: ListToolsetsTool, ReadOnly: true, Idempotent: true,
		Description: "Lists the groups (toolsets) of this server's tools, each with what it covers and how many tools it has. " +
			"Use it first to see what the server can do; then search_tools to find a tool, or enable_toolsets to add a whole group to your tools. Takes no arguments.",
		InputSchema: `{"type":"object","properties":{},"additionalProperties":false}`},
	{Name: SearchToolsTool, ReadOnly: true, Idempotent: true,
		Description: "Finds this server's tools by words: matches tool names, toolsets, argument names and descriptions, best first, each with its arguments (* = required). " +
			"Use it to find the tool for a task, then call it with call_tool (or describe_tool for its full schema). Search for what you want done, e.g. \"list invoices of a customer\".",
		InputSchema: `{"type":"object","properties":{"query":{"type":"string","minLength":1,"description":"Words describing the task or the data, e.g. \"cancel subscription\"."},"limit":{"type":"integer","minimum":1,"maximum":50,"default":8,"description":"Most tools to return (default 8)."}},"required":["query"],"additionalProperties":false}`},
	{Name: DescribeToolTool, ReadOnly: true, Idempotent: true,
		Description: "Returns one tool's full definition: its description, input schema (every argument, its type, constraints and meaning) and output schema. " +
			"Use it before call_tool when search_tools' summary of the arguments is not enough.",
		InputSchema: `{"type":"object","properties":{"name":{"type":"string","minLength":1,"description":"The tool's name, as search_tools or list_toolsets gave it."}},"required":["name"],"additionalProperties":false}`},
	{Name: EnableToolsetsTool, Idempotent: true,
		Description: "Adds whole toolsets to your tools for the rest of this session: the server tells the client its tool list changed, and the toolsets' tools can then be called directly. " +
			"Use it when you will use several tools of a group; for a single call, call_tool is enough. Changes nothing in the API.",
		InputSchema: `{"type":"object","properties":{"toolsets":{"type":"array","minItems":1,"items":{"type":"string","minLength":1},"description":"Names of toolsets, as list_toolsets gives them."}},"required":["toolsets"],"additionalProperties":false}`},
	{Name: CallToolTool, OpenWorld: true,
		Description: "Calls one of this server's tools by name with its arguments, exactly as if it were called directly: the same checks, results and errors. " +
			"Use it for a tool found with search_tools or describe_tool that is not in your tool list. Pass the tool's arguments as an object.",
		InputSchema: `{"type":"object","properties":{"name":{"type":"string","minLength":1,"description":"The tool's name."},"arguments":{"type":"object","description":"The tool's arguments, as its input schema describes them."}},"required":["name"],"additionalProperties":false}`},
}

// enabledSet is what a dynamic session lists besides the meta-tools.
type enabledSet struct {
	mu       sync.Mutex
	toolsets map[string]bool
	tools    names
}

func (s *enabledSet) has(t *Tool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.toolsets[t.Toolset] || s.tools[t.Name]
}

func (s *enabledSet) hasToolset(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.toolsets[name]
}

// dynamicState holds each session's enabled toolsets, dropped when the
// session ends.
type dynamicState struct {
	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*enabledSet
	start    *enabledSet
}

// of is the session's set, or the start set when it enabled nothing.
func (d *dynamicState) of(ss *mcp.ServerSession) *enabledSet {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s := d.sessions[ss]; s != nil {
		return s
	}
	return d.start
}

// enable adds toolsets to a session's set.
func (d *dynamicState) enable(ss *mcp.ServerSession, toolsets []string) {
	d.mu.Lock()
	s := d.sessions[ss]
	if s == nil {
		s = &enabledSet{toolsets: map[string]bool{}, tools: d.start.tools}
		if d.sessions == nil {
			d.sessions = map[*mcp.ServerSession]*enabledSet{}
		}
		d.sessions[ss] = s
		go func() {
			ss.Wait()
			d.mu.Lock()
			delete(d.sessions, ss)
			d.mu.Unlock()
		}()
	}
	d.mu.Unlock()
	s.mu.Lock()
	for _, ts := range toolsets {
		s.toolsets[ts] = true
	}
	s.mu.Unlock()
}

// addMetaTools registers the meta-tools on s.
func (k *Runtime) addMetaTools(s *mcp.Server) error {
	handlers := map[string]func(context.Context, *mcp.CallToolRequest, *selected, map[string]any) *mcp.CallToolResult{
		ListToolsetsTool: k.listToolsets, SearchToolsTool: k.searchTools, DescribeToolTool: k.describeTool,
		EnableToolsetsTool: k.enableToolsets, CallToolTool: nil,
	}
	k.dyn.start = &enabledSet{toolsets: map[string]bool{}, tools: k.startTools}
	for _, t := range metaTools {
		if k.byName[t.Name] != nil {
			return fmt.Errorf("--dynamic: the API has a tool named %s, which is also the name of a meta-tool of dynamic mode: rename it in the overlay", t.Name)
		}
		t, h := t, handlers[t.Name]
		e := &entry{tool: t, def: t.Definition()}
		e.handler = func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			sel, err := k.selection(requestInfo(req))
			if err != nil {
				return errorResult(k.render("selection_invalid", t.Name, nil, M{"problem": err.Error()})), nil
			}
			args, bad := k.metaArgs(t, req)
			if bad != nil {
				return bad, nil
			}
			if t.Name == CallToolTool {
				return k.callTool(ctx, req, sel, args)
			}
			return h(ctx, req, sel, args), nil
		}
		k.meta = append(k.meta, e)
		s.AddTool(e.def, e.handler)
	}
	return nil
}

// metaArgs decodes and validates a meta-tool's arguments.
func (k *Runtime) metaArgs(t *Tool, req *mcp.CallToolRequest) (map[string]any, *mcp.CallToolResult) {
	var args map[string]any
	raw := bytes.TrimSpace(req.Params.Arguments)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if len(raw) > k.cfg.MaxArgumentBytes || jsonv.Depth(raw) > k.cfg.MaxArgumentDepth {
		return nil, errorResult(k.render("arguments_too_large", t.Name, nil, M{"size": byteSize(len(raw)), "limit": byteSize(k.cfg.MaxArgumentBytes)}))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&args); err != nil || args == nil {
		return nil, errorResult(k.render("arguments_not_object", t.Name, nil, nil))
	}
	v, err := t.compiled()
	if err != nil {
		return nil, errorResult(k.render("internal_error", t.Name, nil, nil))
	}
	v.dropClientArgs(args)
	if problems, _ := v.validate(anyMap(args)); len(problems) > 0 {
		return nil, errorResult(k.render("arguments_invalid", t.Name, nil, M{"problems": strings.Join(problems, "; ")}))
	}
	return args, nil
}

// toolsetInfo is one toolset as the request sees it.
type toolsetInfo struct {
	Toolset
	tools []*entry
}

// toolsets lists the toolsets with at least one tool the request may use.
func (s *selected) toolsets() []*toolsetInfo {
	byName := map[string]*toolsetInfo{}
	var out []*toolsetInfo
	for _, e := range s.allowed() {
		ti := byName[e.tool.Toolset]
		if ti == nil {
			ti = &toolsetInfo{Toolset: Toolset{Name: e.tool.Toolset}}
			for _, ts := range s.k.api.Toolsets {
				if ts.Name == e.tool.Toolset {
					ti.Toolset = ts
				}
			}
			byName[ti.Name] = ti
			out = append(out, ti)
		}
		ti.tools = append(ti.tools, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (k *Runtime) listToolsets(_ context.Context, _ *mcp.CallToolRequest, sel *selected, _ map[string]any) *mcp.CallToolResult {
	sets := sel.toolsets()
	if len(sets) == 0 {
		return textResult("This server offers no tools to this session as it is configured.")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d toolsets:\n", len(sets))
	for _, ts := range sets {
		fmt.Fprintf(&b, "- %s (%d tool%s", ts.Name, len(ts.tools), plural(len(ts.tools)))
		if sel.enabled != nil && sel.enabled.hasToolset(ts.Name) {
			b.WriteString(", enabled")
		}
		b.WriteString(")")
		if ts.Description != "" {
			b.WriteString(": " + oneLine(ts.Description, 160))
		}
		b.WriteString("\n")
	}
	b.WriteString("Find a tool with search_tools, or add a toolset's tools to your tool list with enable_toolsets.")
	return textResult(b.String())
}

func (k *Runtime) searchTools(_ context.Context, _ *mcp.CallToolRequest, sel *selected, args map[string]any) *mcp.CallToolResult {
	query, _ := args["query"].(string)
	limit := 8
	if n, ok := args["limit"].(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			limit = int(i)
		}
	}
	hits := rank(query, sel.allowed())
	if len(hits) == 0 {
		return textResult(fmt.Sprintf("No tool matches %q. Try other words (what you want done, or the kind of data), or list_toolsets to see what the server covers.", query))
	}
	var b strings.Builder
	shown := min(limit, len(hits))
	fmt.Fprintf(&b, "%d of %d matching tools, best first:\n", shown, len(hits))
	for _, e := range hits[:shown] {
		fmt.Fprintf(&b, "- %s (toolset %s%s): %s\n  arguments: %s\n", e.tool.Name, e.tool.Toolset, writesNote(e.tool), oneLine(e.tool.Description, 200), argSummary(e.tool.InputSchema, 24))
	}
	b.WriteString("Call one with call_tool {\"name\": ..., \"arguments\": {...}}; describe_tool gives its full schema.")
	return textResult(b.String())
}

func writesNote(t *Tool) string {
	if t.Writes {
		return ", changes data"
	}
	return ""
}

func (k *Runtime) describeTool(_ context.Context, _ *mcp.CallToolRequest, sel *selected, args map[string]any) *mcp.CallToolResult {
	name, _ := args["name"].(string)
	e := k.byName[name]
	if e == nil || !sel.allows(e.tool) {
		return errorResult(k.unknownTool(DescribeToolTool, name, sel))
	}
	// The full input schema: call_tool's arguments are not held to the
	// strict form the tool list uses, so the model may see all of it.
	full := *e.def
	full.InputSchema = rawSchema(e.tool.InputSchema)
	def, err := json.MarshalIndent(&full, "", "  ")
	if err != nil {
		return errorResult(k.render("internal_error", DescribeToolTool, nil, nil))
	}
	return textResult(fmt.Sprintf("%s (toolset %s%s):\n%s\nCall it with call_tool {\"name\": %q, \"arguments\": {...}}.", name, e.tool.Toolset, writesNote(e.tool), def, name))
}

func (k *Runtime) enableToolsets(ctx context.Context, req *mcp.CallToolRequest, sel *selected, args map[string]any) *mcp.CallToolResult {
	var asked []string
	if l, ok := args["toolsets"].([]any); ok {
		for _, v := range l {
			if s, ok := v.(string); ok {
				asked = append(asked, s)
			}
		}
	}
	sets := sel.toolsets()
	byName := map[string]*toolsetInfo{}
	var known []string
	for _, ts := range sets {
		byName[ts.Name] = ts
		known = append(known, ts.Name)
	}
	var problems []string
	for _, name := range asked {
		if byName[name] == nil {
			problems = append(problems, fmt.Sprintf("%q is not a toolset of this server%s", name, suggestion(name, known)))
		}
	}
	if len(problems) > 0 {
		return errorResult(k.render("toolset_unknown", EnableToolsetsTool, nil, M{"problems": strings.Join(problems, "; ")}))
	}
	if k.stateless || req.Session == nil {
		return errorResult(k.render("toolsets_not_kept", EnableToolsetsTool, nil, nil))
	}
	k.dyn.enable(req.Session, asked)
	var tools []string
	for _, name := range asked {
		for _, e := range byName[name].tools {
			tools = append(tools, e.tool.Name)
		}
	}
	k.notifyToolsChanged(ctx, req.Session)
	return textResult(fmt.Sprintf("Enabled %s: %d tool%s added to your tool list (%s). If your tool list does not show them, call them with call_tool.",
		strings.Join(asked, ", "), len(tools), plural(len(tools)), joinShort(tools, 20)))
}

// callTool calls a tool by name through its own handler: the call is the
// direct call, under the same request (session, headers, token, approval
// round trip).
func (k *Runtime) callTool(ctx context.Context, req *mcp.CallToolRequest, sel *selected, args map[string]any) (*mcp.CallToolResult, error) {
	name, _ := args["name"].(string)
	e := k.byName[name]
	if e == nil {
		return errorResult(k.unknownTool(CallToolTool, name, sel)), nil
	}
	var raw json.RawMessage
	if a, ok := args["arguments"]; ok {
		b, err := json.Marshal(a)
		if err != nil {
			return errorResult(k.render("arguments_not_object", name, nil, nil)), nil
		}
		raw = b
	}
	p := req.Params
	inner := &mcp.CallToolRequest{Session: req.Session, Extra: req.Extra, Params: &mcp.CallToolParamsRaw{
		Meta: p.Meta, Name: name, Arguments: raw, InputResponses: p.InputResponses, RequestState: p.RequestState,
	}}
	return e.handler(ctx, inner)
}

// unknownTool says a name is no tool the request may use, with the
// nearest that is.
func (k *Runtime) unknownTool(meta, name string, sel *selected) string {
	var known []string
	for _, e := range sel.allowed() {
		known = append(known, e.tool.Name)
	}
	hint := ""
	if best := nearest(name, known); best != "" {
		hint = best
	}
	return k.render("tool_unknown", meta, nil, M{"name": name, "suggestion": hint})
}

// notifyToolsChanged sends notifications/tools/list_changed to one session
// (go-sdk sends it to every session, and only when its own list changes).
func (k *Runtime) notifyToolsChanged(ctx context.Context, ss *mcp.ServerSession) {
	if k.send == nil {
		return
	}
	req := &mcp.ServerRequest[*mcp.ToolListChangedParams]{Session: ss, Params: &mcp.ToolListChangedParams{}}
	if _, err := k.send(ctx, "notifications/tools/list_changed", req); err != nil {
		k.log.Warn("could not notify the client that its tool list changed", "error", err.Error())
	}
}

// captureSend is a sending middleware that keeps the sending handler, for
// notifyToolsChanged.
func (k *Runtime) captureSend(next mcp.MethodHandler) mcp.MethodHandler {
	k.send = next
	return next
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// htmlTag matches the markup some API descriptions carry (<p>, <strong>):
// a summary line reads better without it (describe_tool shows it as is).
var htmlTag = regexp.MustCompile(`</?[a-zA-Z][^<>]*>`)

// oneLine is text on one line without markup, cut to at most max runes.
func oneLine(text string, max int) string {
	text = strings.Join(strings.Fields(htmlTag.ReplaceAllString(text, " ")), " ")
	r := []rune(text)
	if len(r) > max {
		return strings.TrimSpace(string(r[:max-1])) + "…"
	}
	return text
}

func joinShort(l []string, n int) string {
	if len(l) <= n {
		return strings.Join(l, ", ")
	}
	return strings.Join(l[:n], ", ") + fmt.Sprintf(", and %d more", len(l)-n)
}

// argSummary lists a schema's arguments as name*: type, required first.
func argSummary(schema string, most int) string {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal([]byte(schema), &s) != nil || len(s.Properties) == 0 {
		return "none"
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	props := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		props = append(props, n)
	}
	sort.Slice(props, func(i, j int) bool {
		if required[props[i]] != required[props[j]] {
			return required[props[i]]
		}
		return props[i] < props[j]
	})
	var parts []string
	for _, n := range props {
		typ := ""
		switch t := s.Properties[n].Type.(type) {
		case string:
			typ = t
		case []any:
			var ts []string
			for _, x := range t {
				if x, ok := x.(string); ok && x != "null" {
					ts = append(ts, x)
				}
			}
			typ = strings.Join(ts, "|")
		}
		mark := ""
		if required[n] {
			mark = "*"
		}
		if typ != "" {
			parts = append(parts, n+mark+": "+typ)
		} else {
			parts = append(parts, n+mark)
		}
	}
	return joinShort(parts, most)
}

// MetaTools are the tools a dynamic session starts with (tailor's review
// tools count their tokens).
func MetaTools() []*Tool { return metaTools }
