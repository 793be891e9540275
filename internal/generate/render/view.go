package render

import (
	"fmt"
	"go/token"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/lower"
	"github.com/tailormcp/tailor/mcpkit"
)

// view is the data every template sees: the lowered server (what the
// runtime uses), the identifiers it is declared under, and the statements
// of its handlers printed as Go. A tool is lowered and printed only by the
// job that renders its part of tools.go (toolView.print), and dropped with
// it: at 50,000 operations the printed tools are ~150 MB, which held
// beside the formatted pieces through all of rendering was its peak.
type view struct {
	Package       string
	ImportPath    string
	SamePackage   bool
	ToolVersion   string
	SpecPath      string
	SpecSHA256    string
	SpecInputs    int
	InputsSHA256  string
	OverlayPath   string
	OverlaySHA256 string
	// API is the server's mcpkit.API; Schemes its schemes with the name of
	// their kind's constant.
	API         mcpkit.API
	TitleOrName string
	Schemes     []schemeView
	// Tools are the tools' identifiers, in tool order, not yet printed.
	Tools []toolView
	// Messages is the server's message overrides as a Go expression.
	Messages string
}

type schemeView struct {
	mcpkit.Scheme
	KindConst string
}

// toolView is one tool: its lowered value printed as a Go literal (Def),
// and its handler.
type toolView struct {
	*lower.Tool     // nil until printed
	ir              *ir.Tool
	DefVar, Handler string
	// Literal is the *mcpkit.Tool value printed as Go.
	Literal string
	// Request is a single-operation tool's request; Steps a composed
	// tool's, one builder function each.
	Request *requestView
	Steps   []*requestView
	// Reads are a one-operation tool's first reads, one builder each.
	Reads []*requestView
	// ConfirmCalls are a confirm tool's calls on its quote, with what
	// each does.
	ConfirmCalls []confirmCallView
}

// confirmCallView is one call of a confirm tool's handler.
type confirmCallView struct {
	Method  string
	Comment []string
}

// requestView is one request: the handler's (or a step builder's)
// statements.
type requestView struct {
	*lower.Request
	// Name is the step's name and Func its builder function's (steps only).
	Name, Func string
	MethodExpr string
	Statements []string
}

func newView(api *ir.API, opts Options) *view {
	v := &view{
		Package: opts.Package, ImportPath: opts.ImportPath, SamePackage: opts.Package == "main",
		ToolVersion: opts.ToolVersion, SpecPath: lower.OneLine(api.Source.SpecPath), SpecSHA256: api.Source.SpecSHA256,
		SpecInputs: api.Source.SpecInputs, InputsSHA256: api.Source.SpecInputsSHA256,
		OverlayPath: lower.OneLine(api.Source.OverlayPath), OverlaySHA256: api.Source.OverlaySHA256,
		API: lower.OfAPI(api), Messages: stringMap(api.Messages),
	}
	v.TitleOrName = v.API.Title
	if v.TitleOrName == "" {
		v.TitleOrName = v.API.Name
	}
	for _, s := range v.API.Schemes {
		k := map[mcpkit.SchemeKind]string{mcpkit.Bearer: "Bearer", mcpkit.Basic: "Basic", mcpkit.APIKey: "APIKey"}[s.Kind]
		v.Schemes = append(v.Schemes, schemeView{Scheme: s, KindConst: k})
	}
	// Identifiers are handed out in tool order; the rest of each tool's
	// view is its own, printed when its part is rendered.
	idents := newIdents()
	v.Tools = make([]toolView, len(api.Tools))
	for i, t := range api.Tools {
		base := idents.take(camel(t.Name))
		tv := toolView{ir: t, Handler: base, DefVar: base + "Tool"}
		for _, st := range t.Steps {
			tv.Steps = append(tv.Steps, &requestView{Name: st.Name, Func: idents.take(base + strings.ToUpper(st.Name[:1]) + camel(st.Name)[1:])})
		}
		for _, st := range t.Reads {
			tv.Reads = append(tv.Reads, &requestView{Name: st.Name, Func: idents.take(base + "Read" + strings.ToUpper(st.Name[:1]) + camel(st.Name)[1:])})
		}
		v.Tools[i] = tv
	}
	return v
}

// printTools is a part of tools.go's list: its tools lowered and printed.
func printTools(part []toolView) any {
	out := make([]toolView, len(part))
	for i, tv := range part {
		tv.print()
		out[i] = tv
	}
	return out
}

// schemaConsts is a part of schemas.go's list: its tools' schemas.
func schemaConsts(part []toolView) any {
	var out []schemaConst
	for _, tv := range part {
		out = append(out, tv.schemaConsts()...)
	}
	return out
}

// schemaFields are the fields of a tool's definition that name a schema
// constant, in order, what each is, and where the IR holds its text.
var schemaFields = []struct {
	field, kind string
	text        func(*ir.Tool) []byte
}{
	{"InputSchema", "inputSchema", func(t *ir.Tool) []byte { return t.InputSchema }},
	{"StrictSchema", "listed inputSchema (strict form)", func(t *ir.Tool) []byte { return t.StrictSchema }},
	{"OutputSchema", "outputSchema", func(t *ir.Tool) []byte { return t.OutputSchema }},
}

// schemaConsts are the tool's schemas' constants, in the order the tool's
// definition names them.
func (tv *toolView) schemaConsts() []schemaConst {
	var consts []schemaConst
	for _, f := range schemaFields {
		if text := f.text(tv.ir); len(text) > 0 {
			consts = append(consts, schemaConst{Name: tv.Handler + f.field, Tool: tv.ir.Name, Kind: f.kind, JSON: string(text)})
		}
	}
	return consts
}

// print lowers the tool and fills in its request views and its definition
// printed as Go. tv is a copy of the view's, its own from here on.
func (tv *toolView) print() {
	t := lower.OfTool(tv.ir)
	tv.Tool = t
	tv.Steps, tv.Reads = slices.Clone(tv.Steps), slices.Clone(tv.Reads)
	if t.Request != nil {
		tv.Request = newRequestView(t.Request)
	}
	for i, named := range tv.Steps {
		rv := newRequestView(t.Steps[i])
		rv.Name, rv.Func = named.Name, named.Func
		tv.Steps[i] = rv
	}
	for i, named := range tv.Reads {
		rv := newRequestView(t.Reads[i])
		rv.Name, rv.Func = named.Name, named.Func
		tv.Reads[i] = rv
	}
	for _, call := range t.Confirm {
		tv.ConfirmCalls = append(tv.ConfirmCalls, confirmCallView{Method: call.Method(), Comment: confirmComment(call, t.Def.Approval != nil)})
	}
	names := map[string]string{}
	for _, f := range schemaFields {
		if len(f.text(tv.ir)) > 0 {
			names[f.field] = tv.Handler + f.field
		}
	}
	p := goValue{custom: func(path string, f reflect.Value) (string, bool) {
		switch {
		case path == "InputSchema" || path == "StrictSchema" || path == "OutputSchema":
			name, ok := names[path]
			return name, ok
		case strings.HasPrefix(path, "Steps[") && strings.HasSuffix(path, "].Request"):
			i, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(path, "Steps["), "].Request"))
			return tv.Steps[i].Func, true
		case strings.HasPrefix(path, "Reads[") && strings.HasSuffix(path, "].Request"):
			i, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(path, "Reads["), "].Request"))
			return tv.Reads[i].Func, true
		}
		return "", false
	}}
	tv.Literal = p.print(t.Def)
}

// confirmComment says what a confirm tool's call on its quote does.
func confirmComment(call lower.ConfirmCall, approval bool) []string {
	switch {
	case call == lower.Preflight:
		return []string{"Build every request that needs no earlier step's answer, without",
			"sending it: a run that cannot start stops before anything is reserved."}
	case approval:
		return []string{"Reserve the quote for this call and ask the person to approve (the",
			"overlay's approval message): the answer comes in a second call, and only",
			"an accept goes on; a decline gives the quote back."}
	}
	return []string{"Reserve the quote for this call: no other call carries it out meanwhile."}
}

func newRequestView(r *lower.Request) *requestView {
	rv := &requestView{Request: r, MethodExpr: methodExpr(r.Method)}
	for _, st := range r.Statements {
		rv.Statements = append(rv.Statements, statement(st))
	}
	return rv
}

// statement prints one statement as Go.
func statement(st lower.Statement) string {
	v := valueExpr(st.Value)
	switch st.Op {
	case lower.SetPath, lower.SetQuery, lower.SetHeader, lower.SetCookie:
		method := map[lower.Op]string{lower.SetPath: "Path", lower.SetQuery: "Query", lower.SetHeader: "Header", lower.SetCookie: "Cookie"}[st.Op]
		return fmt.Sprintf("r.%s(%s, %s, %s)", method, goString(st.Name), v, styleExpr(st.Style))
	case lower.StartBody:
		return fmt.Sprintf("r.Body(mcpkit.%s, %s, %t)", bodyKindConst[st.BodyKind], goString(st.ContentType), st.Required)
	case lower.SetWholeBody:
		return fmt.Sprintf("r.WholeBody(%s)", v)
	case lower.SetFormField:
		return fmt.Sprintf("r.FormField(%s, %s, %s)", goString(st.Name), v, styleExpr(st.Style))
	case lower.SetField:
		return fmt.Sprintf("r.Field(%s, %s)", goString(st.Name), v)
	}
	panic(fmt.Sprintf("tailor: render knows no statement %d", st.Op))
}

// valueExpr is the expression that reads a statement's value.
func valueExpr(v lower.Value) string {
	switch v.From {
	case lower.FromFixed:
		return fmt.Sprintf("mcpkit.Fixed(%s)", goString(v.Text))
	case lower.FromContext:
		return fmt.Sprintf("c.Caller(%s)", goString(v.Text))
	case lower.FromTemplate:
		return fmt.Sprintf("s.Value(%s)", goString(v.Text))
	case lower.FromCredential:
		return fmt.Sprintf("c.Credential(%s)", goString(v.Text))
	}
	return fmt.Sprintf("c.Arg(%s)", goString(v.Text))
}

// bodyKindConst names mcpkit's body kind constants.
var bodyKindConst = map[string]string{mcpkit.JSON: "JSON", mcpkit.Form: "Form", mcpkit.Multipart: "Multipart", mcpkit.Raw: "Raw"}

// styleExpr names one of mcpkit's predefined styles when st is one.
func styleExpr(st mcpkit.Style) string {
	for _, named := range []struct {
		name  string
		style mcpkit.Style
	}{
		{"JSONValue", mcpkit.JSONValue}, {"Simple", mcpkit.Simple}, {"SimpleExplode", mcpkit.SimpleExplode},
		{"FormStyle", mcpkit.FormStyle}, {"FormNoExplode", mcpkit.FormNoExplode}, {"DeepObject", mcpkit.DeepObject},
	} {
		if st == named.style {
			return "mcpkit." + named.name
		}
	}
	return fmt.Sprintf("mcpkit.Style{Name: %q, Explode: %t}", st.Name, st.Explode)
}

func methodExpr(m string) string {
	switch m {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE":
		return "http.Method" + m[:1] + strings.ToLower(m[1:])
	}
	return goString(m)
}

// camel turns a snake_case tool name into a Go identifier: list_pets → listPets.
func camel(s string) string {
	var b strings.Builder
	up := false
	for _, r := range s {
		switch {
		case r == '_' || r == '-':
			up = b.Len() > 0
		case up:
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	id := b.String()
	if id == "" || id[0] >= '0' && id[0] <= '9' {
		id = "op" + strings.ToUpper(id[:min(1, len(id))]) + id[min(1, len(id)):]
	}
	return id
}

// idents hands out package-level identifiers that clash with nothing the
// generated files declare or import, nor with Go keywords.
type idents map[string]bool

func newIdents() idents {
	taken := idents{}
	for _, n := range []string{"API", "Register", "New", "mcp", "mcpkit", "http", "main", "server", "init"} {
		taken[n] = true
	}
	return taken
}

func (ids idents) take(base string) string {
	if isKeyword(base) || isPredeclared(base) {
		base += "_"
	}
	name := base
	for i := 2; ids.clash(name); i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	for _, suffix := range derived {
		ids[name+suffix] = true
	}
	return name
}

// derived are the suffixes of the identifiers declared beside a tool's
// handler: its definition and its schemas.
var derived = []string{"", "Tool", "InputSchema", "StrictSchema", "OutputSchema"}

// clash reports whether name or an identifier derived from it is taken.
func (ids idents) clash(name string) bool {
	for _, suffix := range derived {
		if ids[name+suffix] {
			return true
		}
	}
	return false
}

func isKeyword(s string) bool { return token.IsKeyword(s) }

func isPredeclared(s string) bool {
	switch s {
	case "bool", "byte", "complex64", "complex128", "error", "float32", "float64", "int", "int8", "int16",
		"int32", "int64", "rune", "string", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "any",
		"comparable", "true", "false", "iota", "nil", "append", "cap", "clear", "close", "complex", "copy",
		"delete", "imag", "len", "make", "max", "min", "new", "panic", "print", "println", "real", "recover":
		return true
	}
	return false
}

// stringMap renders a map[string]string literal, keys sorted ("" for none).
func stringMap(d map[string]string) string {
	if len(d) == 0 {
		return ""
	}
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, goString(k)+": "+goString(d[k]))
	}
	return "map[string]string{" + strings.Join(parts, ", ") + "}"
}

// size is about how many bytes of tools.go the tool's declarations take.
func (tv toolView) size() int { return len(tv.ir.Description) + 1024 }

// schemasSize is about how many bytes of schemas.go the tool's schemas take.
func (tv toolView) schemasSize() int {
	return len(tv.ir.InputSchema) + len(tv.ir.StrictSchema) + len(tv.ir.OutputSchema)
}
