// Package model is the second stage of the pipeline: it turns a loaded
// OpenAPI document into the raw tool set, one ir.Tool per operation, with
// names valid for every MCP client, JSON Schema 2020-12 input and output
// schemas, and the request plan each tool's handler follows.
package model

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-openapi/jsonpointer"

	"github.com/tailormcp/tailor/internal/confusable"
	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/load"
	"github.com/tailormcp/tailor/internal/generate/load/specfile"
	"github.com/tailormcp/tailor/internal/generate/schema"
)

// Options names the server being built.
type Options struct {
	// Name is the server's implementation name (defaults to the spec title).
	Name string
	// EnvPrefix prefixes the environment variables the server reads.
	EnvPrefix string
	// InputSchemaBudget and OutputSchemaBudget bound the $defs of a tool's
	// schemas, in bytes (see schema.Doc.Budget); 0 is the default,
	// DefaultInputSchemaBudget or DefaultOutputSchemaBudget.
	InputSchemaBudget, OutputSchemaBudget int
}

type builder struct {
	opts      Options
	doc       *openapi3.T
	path      string
	envPrefix string
	conv      *schema.Converter
	diags     *diag.List
	// names are the operations' tool names (fitNames), in operation
	// order; budget is the length they fit in; shortened counts those
	// fitNames shortened.
	names     []fitted
	budget    int
	shortened int
	results   map[resultKey]madeResult
	// encodings are the tools' schemas converted and not yet encoded
	// (encode.go); schemas says which tool each is for.
	encodings []*encoding
	schemas   []toolSchemas
	schemes   []ir.SecurityScheme
}

// Raw makes the raw tool set of spec: one tool per operation. Problems it works around are
// returned as warnings; it does not fail on any loadable spec.
func Raw(spec *load.Spec, opts Options) (*ir.API, []diag.Diagnostic) {
	doc := spec.Doc
	b := &builder{doc: doc, path: spec.Path, diags: &diag.List{}, results: map[resultKey]madeResult{}, opts: opts}
	if b.opts.InputSchemaBudget == 0 {
		b.opts.InputSchemaBudget = DefaultInputSchemaBudget
	}
	if b.opts.OutputSchemaBudget == 0 {
		b.opts.OutputSchemaBudget = DefaultOutputSchemaBudget
	}
	b.conv = schema.NewConverter(nil)
	b.conv.UseDocument(doc)
	b.conv.SetPlacer(spec.SchemaPlacer())

	api := &ir.API{Source: ir.Source{SpecPath: spec.Path, SpecSHA256: spec.SHA256}}
	if doc.Info != nil {
		api.Title, api.Version = doc.Info.Title, doc.Info.Version
	}
	api.Name = opts.Name
	b.envPrefix = opts.EnvPrefix
	if api.Name == "" {
		api.Name = DefaultServerName(api.Title, servers(doc))
		// The environment variables keep the name they had before the
		// default server name was shortened: configured credentials go on
		// working.
		if b.envPrefix == "" && SnakeCase(api.Title) != "" {
			b.envPrefix = strings.ToUpper(SnakeCase(api.Title))
		}
	}
	if b.envPrefix == "" {
		b.envPrefix = strings.ToUpper(SnakeCase(api.Name))
	}
	api.EnvPrefix = b.envPrefix
	api.Servers = servers(doc)
	api.Security = b.securitySchemes()
	api.DeclaredScopes = b.declaredScopes()
	b.schemes = api.Security
	known := map[string]bool{}
	for _, s := range api.Security {
		known[s.Name] = true
	}

	ops := operations(doc)
	tags := map[string]string{} // toolset → the tag it was named after
	bases := make([]string, len(ops))
	for i, op := range ops {
		bases[i] = baseName(op)
	}
	b.budget = NameBudget(api.Name)
	b.names = fitNames(bases, b.budget)
	for _, f := range b.names {
		if f.shortened {
			b.shortened++
		}
	}
	for i, op := range ops {
		ptr := pointer(op)
		pos := position(op.op.Origin, spec.Path)
		b.conv.SetWarner(func(at *openapi3.Location, msg string) {
			// A schema problem is reported where the schema says it (a
			// component may live in another file); the operation that
			// first used it is the fallback.
			p := pos
			if at != nil {
				p = diag.Pos{File: specfile.DisplayPath(at.File, spec.Path), Line: at.Line, Col: at.Column}
			}
			b.diags.Warnf(p, ptr, "%s", msg)
		})
		name := b.toolName(api.Name, ops, i, bases[i], pos)
		t := b.tool(op, ptr, pos, b.requirements(op.op, known))
		t.Name = name
		var tag string
		t.Toolset, tag = toolsetOf(op.op.Tags, op.path)
		if _, seen := tags[t.Toolset]; !seen {
			tags[t.Toolset] = tag
		}
		api.Tools = append(api.Tools, t)
		b.encodeFull()
	}
	b.encodeAll()
	api.Toolsets = toolsets(doc, api, tags)
	if len(api.Tools) == 0 {
		b.diags.Warnf(diag.Pos{File: spec.Path}, "#/paths", "the spec has no operations under `paths` (callbacks and webhooks are not tools): the server will have no tools")
	}
	return api, b.diags.All()
}

type operation struct {
	path   string
	method string
	item   *openapi3.PathItem
	op     *openapi3.Operation
}

var methodOrder = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions, http.MethodTrace, "QUERY"}

// operations lists every operation in a stable order: by path, then method.
func operations(doc *openapi3.T) []operation {
	if doc.Paths == nil {
		return nil
	}
	paths := doc.Paths.Map()
	keys := make([]string, 0, len(paths))
	for k := range paths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []operation
	for _, p := range keys {
		item := paths[p]
		if item == nil {
			continue
		}
		ops := item.Operations()
		for _, m := range methodOrder {
			if op := ops[m]; op != nil {
				out = append(out, operation{path: p, method: m, item: item, op: op})
			}
		}
	}
	return out
}

func (b *builder) tool(o operation, ptr string, pos diag.Pos, security [][]string) *ir.Tool {
	op := o.op
	t := &ir.Tool{
		Title:  oneLine(op.Summary),
		Origin: ir.Origin{Pointer: ptr, File: pos.File, Line: pos.Line, Col: pos.Col},
		Call:   &ir.Call{OperationID: op.OperationID, Tags: op.Tags, Method: o.method, Path: o.path, Security: security, Scopes: b.scopes(op)},
	}
	t.Scopes = t.Call.Scopes
	// The operation's own text, else its path item's (which describes
	// every operation on the path), else what it calls.
	for _, text := range []string{op.Description, op.Summary, o.item.Description, o.item.Summary} {
		if t.Description = strings.TrimSpace(text); t.Description != "" {
			break
		}
	}
	if t.Description == "" {
		t.Description = fmt.Sprintf("Calls %s %s.", o.method, o.path)
	}
	if op.Deprecated {
		t.Description = "Deprecated: the API marks this operation as deprecated; prefer another tool when one fits.\n\n" + t.Description
	}
	t.Annotations = annotations(o.method)

	in := newInput(b, ptr, pos, security)
	for _, p := range b.pathParams(o, parameters(o.item, op), ptr) {
		in.addParam(t.Call, p)
	}
	if op.RequestBody != nil && op.RequestBody.Value != nil {
		in.addBody(t.Call, op.RequestBody.Value)
	}
	ts := toolSchemas{tool: t, in: in.schema()}
	ts.out, t.Call.Result = b.result(op)
	b.schemas = append(b.schemas, ts)
	return t
}

// pointer is the JSON pointer of an operation.
func pointer(o operation) string {
	return "#/paths/" + jsonpointer.Escape(o.path) + "/" + strings.ToLower(o.method)
}

// maxNamedShortenings is the most shortened names warned about one by
// one; past it one warning says what was done (kubernetes shortens
// hundreds).
const maxNamedShortenings = 10

// toolName is the name fitNames chose for operation i, with a warning
// where it is not the operation's own name: shortened to fit every
// client, or given a suffix because another tool has it.
func (b *builder) toolName(server string, ops []operation, i int, base string, pos diag.Pos) string {
	o, f := ops[i], b.names[i]
	name, ptr := f.name, pointer(o)
	// Named after method and path too: two paths can snake_case alike
	// (/v1/items.json, /v1/items-json).
	what, source := fmt.Sprintf("operationId %q", o.op.OperationID), o.op.OperationID
	if nameOf(o.op.OperationID) == "" {
		what, source = o.method+" "+o.path, o.path
	}
	if _, replaced := confusable.ToLatin(source); len(replaced) > 0 {
		b.diags.Warnf(pos, ptr, "%s spells the tool's name with letters of other scripts that look like Latin ones (%s); read as it looks, the tool is named %q: spell the name in Latin letters in the spec, or rename the tool in the overlay",
			what, lookAlikes(replaced), name)
	}
	switch {
	case f.taken >= 0:
		b.diags.Warnf(pos, ptr, "%s gives tool name %q, already used by %s; this tool is named %q", what, b.names[f.taken].name, pointer(ops[f.taken]), name)
	case f.shortened && b.shortened > maxNamedShortenings:
		// One message for all, merged into one line with a count.
		b.diags.Warnf(pos, ptr, "tool names longer than the %d characters every major client passes whole with server name %q (%s) are shortened, keeping the verb and the words that tell them apart; name a tool in the overlay to choose its name",
			b.budget, server, tightest(server))
	case f.shortened:
		b.diags.Warnf(pos, ptr, "%s is %d characters as a tool name, over the %d every major client passes whole with server name %q (%s); shortened to %q: name it in the overlay to choose another",
			what, len(base), b.budget, server, tightest(server), name)
	}
	return name
}

// baseName is a tool's name before shortening and de-duplication: the
// operationId in snake_case, else method and path.
func baseName(o operation) string {
	base := nameOf(o.op.OperationID)
	if base == "" {
		base = nameOf(strings.ToLower(o.method) + " " + o.path)
	}
	if base == "" {
		base = strings.ToLower(o.method)
	}
	return base
}

func annotations(method string) ir.Annotations {
	a := ir.Annotations{OpenWorld: true}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, "QUERY":
		a.ReadOnly = true
	case http.MethodPut:
		a.Idempotent = true
	case http.MethodDelete:
		a.Idempotent, a.Destructive = true, true
	}
	return a
}

// parameters merges path-level and operation-level parameters; the
// operation's win for the same name and location. An operation has a
// handful: they are looked up in a list, not a map made per operation.
func parameters(item *openapi3.PathItem, op *openapi3.Operation) []*openapi3.Parameter {
	var out []*openapi3.Parameter
	var ins []string // each one's location in lower case
	add := func(ps openapi3.Parameters) {
	next:
		for _, r := range ps {
			if r == nil || r.Value == nil {
				continue
			}
			p := r.Value
			in := strings.ToLower(p.In)
			for i, q := range out {
				if ins[i] == in && q.Name == p.Name {
					out[i] = p
					continue next
				}
			}
			out, ins = append(out, p), append(ins, in)
		}
	}
	add(item.Parameters)
	add(op.Parameters)
	return out
}

func servers(doc *openapi3.T) []string {
	var out []string
	for _, s := range doc.Servers {
		if s == nil {
			continue
		}
		u := s.URL
		names := make([]string, 0, len(s.Variables))
		for n := range s.Variables {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if v := s.Variables[n]; v != nil {
				u = strings.ReplaceAll(u, "{"+n+"}", v.Default)
			}
		}
		out = append(out, strings.TrimRight(u, "/"))
	}
	return out
}

func position(o *openapi3.Origin, file string) diag.Pos {
	if o == nil || o.Key == nil {
		return diag.Pos{File: file}
	}
	return diag.Pos{File: displayPath(o.Key.File, file), Line: o.Key.Line, Col: o.Key.Column}
}

// displayPath names a file the way the user would (see specfile.DisplayPath).
func displayPath(file, spec string) string { return specfile.DisplayPath(file, spec) }

var spaces = regexp.MustCompile(`\s+`)

func oneLine(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }

// marshal encodes v as the generator writes JSON (see schema.Marshal).
func marshal(v any) json.RawMessage { return schema.Marshal(v) }
