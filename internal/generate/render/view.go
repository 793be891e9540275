package render

import (
	"encoding/json"
	"fmt"
	"go/token"
	"sort"
	"strings"

	"github.com/tailormcp/tailor/internal/generate/ir"
)

// view is the data every template sees: the IR flattened into strings the
// templates print as they are.
type view struct {
	Package        string
	ImportPath     string
	SamePackage    bool
	ToolVersion    string
	SpecPath       string
	SpecSHA256     string
	OverlayPath    string
	OverlaySHA256  string
	Context        []ir.ContextValue
	Name           string
	Title          string
	TitleOrName    string
	Version        string
	Instructions   string
	EnvPrefix      string
	DefaultBaseURL string
	Schemes        []schemeView
	Tools          []toolView
	// Messages is the server's message overrides as a Go expression.
	Messages string
}

type schemeView struct {
	ir.SecurityScheme
	KindConst string
}

type toolView struct {
	Name, Title, Description                     string
	ReadOnly, Destructive, Idempotent, OpenWorld bool
	InputSchema, OutputSchema                    string
	Security                                     string
	Wrap                                         string
	Method, MethodExpr, Path, OperationID        string
	DefVar, Handler                              string
	Steps                                        []string
	// Shape, errors and defaults, as Go expressions ("" when absent).
	Keep, Drop, Text, Errors, Defaults, Messages string
	MaxBytes                                     int
	// Quote tools, confirm tools and composed tools.
	QuoteTTL        int
	QuoteConfirm    string
	Confirms        string
	ApprovalMessage string
	ApprovalProceed bool
	HasApproval     bool
	Steps2          []stepView
}

// stepView is one step of a composed tool: a function building its request.
type stepView struct {
	Name, Func, Method, MethodExpr, Path, ForEach string
	IdempotencyKey, ReadOnly                      bool
	Security                                      string
	Steps                                         []string
}

func newView(api *ir.API, opts Options) *view {
	v := &view{
		Package: opts.Package, ImportPath: opts.ImportPath, SamePackage: opts.Package == "main",
		ToolVersion: opts.ToolVersion, SpecPath: api.Source.SpecPath, SpecSHA256: api.Source.SpecSHA256,
		OverlayPath: api.Source.OverlayPath, OverlaySHA256: api.Source.OverlaySHA256, Context: api.Context,
		Name: api.Name, Title: api.Title, Version: api.Version, Instructions: api.Instructions,
		EnvPrefix: api.EnvPrefix, Messages: stringMap(api.Messages),
	}
	v.TitleOrName = v.Title
	if v.TitleOrName == "" {
		v.TitleOrName = v.Name
	}
	if len(api.Servers) > 0 {
		v.DefaultBaseURL = api.Servers[0]
	}
	for _, s := range api.Security {
		k := map[ir.SchemeKind]string{ir.BearerScheme: "Bearer", ir.BasicScheme: "Basic", ir.APIKeyScheme: "APIKey"}[s.Kind]
		v.Schemes = append(v.Schemes, schemeView{SecurityScheme: s, KindConst: k})
	}
	idents := newIdents()
	for _, t := range api.Tools {
		base := idents.take(camel(t.Name))
		tv := toolView{
			Name: t.Name, Title: t.Title, Description: t.Description,
			ReadOnly: t.Annotations.ReadOnly, Destructive: t.Annotations.Destructive,
			Idempotent: t.Annotations.Idempotent, OpenWorld: t.Annotations.OpenWorld,
			InputSchema: string(t.InputSchema), OutputSchema: string(t.OutputSchema),
			Handler: base, DefVar: base + "Tool",
		}
		if t.Call != nil {
			tv.Security = securityExpr(t.Call.Security)
		}
		if t.Call != nil {
			tv.Method, tv.MethodExpr, tv.Path, tv.OperationID = t.Call.Method, methodExpr(t.Call.Method), t.Call.Path, t.Call.OperationID
			tv.Wrap = t.Call.Result.Wrap
			tv.Steps = steps(t.Call)
		}
		if t.Quote != nil {
			tv.QuoteTTL, tv.QuoteConfirm = t.Quote.TTLSeconds, t.Quote.ConfirmTool
		}
		tv.Confirms = t.Confirms
		if t.Approval != nil {
			tv.HasApproval, tv.ApprovalMessage, tv.ApprovalProceed = true, t.Approval.Message, t.Approval.Proceed
		}
		for _, st := range t.Steps {
			sv := stepView{
				Name: st.Name, Func: idents.take(base + strings.ToUpper(st.Name[:1]) + camel(st.Name)[1:]),
				Method: st.Call.Method, MethodExpr: methodExpr(st.Call.Method), Path: st.Call.Path,
				ForEach: st.ForEach, IdempotencyKey: st.IdempotencyKey,
				ReadOnly: st.Call.Method == "GET" || st.Call.Method == "HEAD",
				Steps:    steps(st.Call),
				Security: securityExpr(st.Call.Security),
			}
			tv.Steps2 = append(tv.Steps2, sv)
		}
		if sh := t.Shape; sh != nil {
			tv.Keep, tv.Drop, tv.Text, tv.MaxBytes = stringList(sh.Keep), stringList(sh.Drop), sh.Text, sh.MaxBytes
		}
		tv.Errors = errorRules(t.Errors)
		tv.Defaults = defaults(t.Defaults)
		tv.Messages = stringMap(t.Messages)
		v.Tools = append(v.Tools, tv)
	}
	return v
}

// steps are the handler's statements: ir.RequestSteps printed as Go.
func steps(c *ir.Call) []string {
	var out []string
	for _, st := range c.RequestSteps() {
		v := valueExpr(st.Value)
		var stmt string
		switch st.Kind {
		case ir.PathStep, ir.QueryStep, ir.HeaderStep, ir.CookieStep:
			method := map[ir.StepKind]string{ir.PathStep: "Path", ir.QueryStep: "Query", ir.HeaderStep: "Header", ir.CookieStep: "Cookie"}[st.Kind]
			stmt = fmt.Sprintf("r.%s(%s, %s, %s)", method, goString(st.Name), v, styleExpr(st.Style, st.Explode, st.JSON))
		case ir.BodyStep:
			stmt = fmt.Sprintf("r.Body(mcpkit.%s, %s, %t)", bodyKind(st.Encoding), goString(st.ContentType), st.Required)
		case ir.WholeBodyStep:
			stmt = fmt.Sprintf("r.WholeBody(%s)", v)
		case ir.FormFieldStep:
			stmt = fmt.Sprintf("r.FormField(%s, %s, %s)", goString(st.Name), v, styleExpr(st.Style, st.Explode, false))
		case ir.FieldStep:
			stmt = fmt.Sprintf("r.Field(%s, %s)", goString(st.Name), v)
		}
		out = append(out, stmt)
	}
	return out
}

// valueExpr is the expression that reads a step's value.
func valueExpr(v ir.StepValue) string {
	switch v.Kind {
	case ir.FromFixed:
		return fmt.Sprintf("mcpkit.Fixed(%s)", goString(v.Text))
	case ir.FromContext:
		return fmt.Sprintf("c.Context(%s)", goString(v.Text))
	case ir.FromTemplate:
		return fmt.Sprintf("s.Value(%s)", goString(v.Text))
	case ir.FromCredential:
		return fmt.Sprintf("c.Credential(%s)", goString(v.Text))
	}
	return fmt.Sprintf("c.Arg(%s)", goString(v.Text))
}

func bodyKind(e ir.BodyEncoding) string {
	switch e {
	case ir.FormBody:
		return "Form"
	case ir.MultipartBody:
		return "Multipart"
	case ir.RawBody:
		return "Raw"
	}
	return "JSON"
}

// styleExpr names one of mcpkit's predefined styles when it fits.
func styleExpr(style string, explode, json bool) string {
	if json {
		return "mcpkit.JSONValue"
	}
	switch {
	case style == "" || style == "simple" && !explode:
		return "mcpkit.Simple"
	case style == "simple":
		return "mcpkit.SimpleExplode"
	case style == "form" && explode:
		return "mcpkit.FormStyle"
	case style == "form":
		return "mcpkit.FormNoExplode"
	case style == "deepObject":
		return "mcpkit.DeepObject"
	}
	return fmt.Sprintf("mcpkit.Style{Name: %q, Explode: %t}", style, explode)
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
	for i := 2; ids[name] || ids[name+"Tool"]; i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	ids[name], ids[name+"Tool"] = true, true
	return name
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

func stringList(l []string) string {
	if len(l) == 0 {
		return ""
	}
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = goString(s)
	}
	return "[]string{" + strings.Join(q, ", ") + "}"
}

func errorRules(rules []ir.ErrorRule) string {
	if len(rules) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("[]mcpkit.ErrorRule{\n")
	for _, r := range rules {
		b.WriteString("{")
		if len(r.Status) > 0 {
			b.WriteString("Status: " + stringList(r.Status) + ", ")
		}
		if len(r.Body) > 0 {
			keys := make([]string, 0, len(r.Body))
			for k := range r.Body {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			b.WriteString("Body: map[string]string{")
			for i, k := range keys {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(goString(k) + ": " + goString(string(r.Body[k])))
			}
			b.WriteString("}, ")
		}
		b.WriteString("Text: " + goString(r.Text) + "},\n")
	}
	b.WriteString("}")
	return b.String()
}

func defaults(d map[string]json.RawMessage) string {
	m := make(map[string]string, len(d))
	for k, v := range d {
		m[k] = string(v)
	}
	return stringMap(m)
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

// securityExpr renders security alternatives as a Go literal ("" for none).
func securityExpr(sec [][]string) string {
	if len(sec) == 0 {
		return ""
	}
	var alts []string
	for _, alt := range sec {
		var q []string
		for _, n := range alt {
			q = append(q, goString(n))
		}
		alts = append(alts, "{"+strings.Join(q, ", ")+"}")
	}
	return "[][]string{" + strings.Join(alts, ", ") + "}"
}
