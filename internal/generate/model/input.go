package model

import (
	"fmt"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-openapi/jsonpointer"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/schema"
)

// input assembles a tool's inputSchema while the call plan is built, so that
// argument names are allocated once and collisions are resolved in one place.
type input struct {
	b        *builder
	ptr      string
	pos      diag.Pos
	doc      *schema.Doc
	props    map[string]any
	required []string
	// security is the operation's security requirement: parameters that
	// carry one of its schemes' secrets are not the model's to fill.
	security [][]string
}

func newInput(b *builder, ptr string, pos diag.Pos, security [][]string) *input {
	doc := b.conv.NewDoc(schema.Input)
	doc.Budget = b.opts.InputSchemaBudget
	return &input{b: b, ptr: ptr, pos: pos, doc: doc, props: map[string]any{}, security: security}
}

// DefaultInputSchemaBudget bounds the $defs of an inputSchema, in bytes (see
// schema.Doc.Budget). Arguments refer to components level by level within
// it; what lies further is a placeholder the model fills from the
// description and the API validates. A few APIs' request bodies reach a
// whole query language (elasticsearch: 420 KB of $defs per tool, 38 MB
// for tools/list, more than a client reads in one message, and far more
// than a model can take in).
const DefaultInputSchemaBudget = 64 << 10

// claim allocates the argument name for a value the spec calls name in
// location where. A name already taken gets the location as a prefix
// ("query_id"), and the description says so: collisions are resolved
// visibly, never by dropping one side.
// The warning is placed at (pos, ptr): where the spec writes that value.
func (in *input) claim(name, where, prefix string, pos diag.Pos, ptr string) (arg, note string) {
	arg = ArgName(name)
	if _, taken := in.props[arg]; !taken {
		if arg != name {
			note = fmt.Sprintf("(Sent as %s `%s`.)", where, name)
		}
		return arg, note
	}
	base := ArgName(prefix + "_" + name)
	arg = base
	for i := 2; ; i++ {
		if _, taken := in.props[arg]; !taken {
			break
		}
		arg = fmt.Sprintf("%s_%d", base, i)
	}
	in.b.diags.Warnf(pos, ptr, "%s `%s` has the same argument name as another input; the model sees it as %q", where, name, arg)
	return arg, fmt.Sprintf("(Sent as %s `%s`; named %s because another input is called %s.)", where, name, arg, ArgName(name))
}

func (in *input) add(arg string, prop any, required bool) {
	in.props[arg] = prop
	if required {
		in.required = append(in.required, arg)
	}
}

// addParam adds a path, query, header or cookie parameter.
func (in *input) addParam(call *ir.Call, p *openapi3.Parameter) {
	loc := ir.Location(strings.ToLower(p.In))
	switch loc {
	case ir.InPath, ir.InQuery, ir.InHeader, ir.InCookie:
	default:
		in.b.diags.Warnf(in.pos, in.ptr, "parameter %q has unknown location %q; left out", p.Name, p.In)
		return
	}
	if p.Name == "" {
		in.b.diags.Warnf(in.pos, in.ptr, "a %s parameter without a name; left out (nothing could say where its value goes)", loc)
		return
	}
	param := &ir.Param{Name: p.Name, In: loc, Required: p.Required || loc == ir.InPath, AllowReserved: p.AllowReserved}
	param.Style, param.Explode = paramStyle(p, loc)
	sref := p.Schema
	if sref == nil {
		for _, mt := range sortedKeys(p.Content) {
			if m := p.Content[mt]; m != nil && m.Schema != nil {
				sref = m.Schema
				param.JSONContent = isJSON(mt)
				break
			}
		}
	}
	// A required parameter that allows one value is sent with it (an API
	// version in Accept: application/vnd.x.v3+json).
	fixed, single := singleValue(sref)
	single = single && param.Required
	if single {
		param.Source.Fixed = marshal(fixed)
	}
	if loc == ir.InHeader {
		switch strings.ToLower(p.Name) {
		case "accept", "content-type", "authorization":
			// OpenAPI says these header parameters are ignored: the request
			// and the security schemes define them. A required Accept with
			// one value is still sent: APIs version their media types.
			if single && strings.EqualFold(p.Name, "accept") {
				call.Params = append(call.Params, param)
			}
			if strings.EqualFold(p.Name, "authorization") && len(in.security) == 0 {
				in.b.diags.Warnf(in.pos, in.ptr, "header parameter %q is left out, as OpenAPI says: security schemes send credentials, and none applies to this operation, so the server sends none; declare one (components.securitySchemes and security, in the spec or with an overlay action)", p.Name)
			}
			return
		}
	}
	if s, same := in.b.credentialScheme(p.Name, loc, p.Description, in.security); s != "" {
		if same {
			in.b.diags.Warnf(in.pos, in.ptr, "%s parameter %q is the API key of security scheme %q, which sends it; not an argument", loc, p.Name, s)
			return
		}
		param.Source = ir.ValueSource{Credential: s}
		in.b.diags.Warnf(in.pos, in.ptr, "%s parameter %q carries the secret of security scheme %q; filled from its credential (sent there instead of the scheme's own place), not an argument", loc, p.Name, s)
		call.Params = append(call.Params, param)
		return
	}
	if single {
		call.Params = append(call.Params, param)
		return
	}
	prop := in.doc.Convert(sref)
	arg, note := in.claim(p.Name, string(loc)+" parameter", string(loc), in.pos, in.ptr)
	param.Arg = arg
	prop = describe(prop, joinText(p.Description, note))
	if m, ok := prop.(map[string]any); ok {
		if p.Deprecated {
			m["deprecated"] = true
		}
		if p.Example != nil {
			if _, has := m["examples"]; !has {
				m["examples"] = []any{p.Example}
			}
		}
	}
	in.add(arg, prop, param.Required)
	call.Params = append(call.Params, param)
}

// fieldPlace is where the spec writes body field name of media type mt:
// its JSON pointer, and the line of its schema when the loader kept
// origins and the field's schema is written in place (a $ref'd one's
// origin is the component's). Without origins the operation has no line
// either, and the pointer is placed later, as the operation's is.
func (in *input) fieldPlace(mt, name string, pref *openapi3.SchemaRef) (diag.Pos, string) {
	ptr := in.ptr + "/requestBody/content/" + jsonpointer.Escape(mt) + "/schema/properties/" + jsonpointer.Escape(name)
	if in.pos.Line > 0 && pref.Ref == "" && pref.Value.Origin != nil && pref.Value.Origin.Key != nil {
		return position(pref.Value.Origin, in.b.path), ptr
	}
	return in.pos, ptr
}

func paramStyle(p *openapi3.Parameter, loc ir.Location) (string, bool) {
	style := p.Style
	if style == "" {
		switch loc {
		case ir.InQuery, ir.InCookie:
			style = "form"
		default:
			style = "simple"
		}
	}
	explode := style == "form"
	if p.Explode != nil {
		explode = *p.Explode
	}
	return style, explode
}

// addBody adds the request body: an object body's top-level properties
// become arguments of their own; any other body is one argument.
func (in *input) addBody(call *ir.Call, rb *openapi3.RequestBody) {
	mt, media := pickMedia(rb.Content)
	if media == nil {
		return
	}
	body := &ir.Body{ContentType: mt, Required: rb.Required}
	if wildcard(mt) && structured(media.Schema) {
		// "consumes: */*" with an object schema (kubernetes): send JSON.
		body.ContentType = "application/json"
	}
	switch {
	case isJSON(body.ContentType):
		body.Encoding = ir.JSONBody
	case mt == "application/x-www-form-urlencoded":
		body.Encoding = ir.FormBody
	case mt == "multipart/form-data":
		body.Encoding = ir.MultipartBody
	default:
		body.Encoding = ir.RawBody
	}
	call.Body = body

	s := schema.Resolve(media.Schema)
	if body.Encoding != ir.RawBody && flattenable(s) {
		required := map[string]bool{}
		for _, r := range s.Required {
			required[r] = true
		}
		for _, name := range sortedKeys(s.Properties) {
			pref := s.Properties[name]
			if schema.Skip(pref, schema.Input) {
				continue
			}
			f := &ir.BodyField{Name: name}
			if body.Encoding == ir.FormBody || body.Encoding == ir.MultipartBody {
				f.Style, f.Explode = "form", true
				if e := media.Encoding[name]; e != nil {
					if e.Style != "" {
						f.Style = e.Style
					}
					if e.Explode != nil {
						f.Explode = *e.Explode
					} else {
						f.Explode = f.Style == "form"
					}
				}
			}
			body.Fields = append(body.Fields, f)
			pos, ptr := in.fieldPlace(mt, name, pref)
			if sch, _ := in.b.credentialScheme(name, "body", pref.Value.Description, in.security); sch != "" {
				f.Source.Credential = sch
				in.b.diags.Warnf(pos, ptr, "body field %q carries the secret of security scheme %q; filled from its credential (sent there instead of the scheme's own place), not an argument", name, sch)
				continue
			}
			if v, ok := singleValue(pref); ok && rb.Required && required[name] {
				f.Source.Fixed = marshal(v)
				continue
			}
			arg, note := in.claim(name, "body field", "body", pos, ptr)
			f.Arg = arg
			prop := describe(in.doc.Convert(pref), note)
			in.add(arg, prop, rb.Required && required[name])
		}
		return
	}
	arg, note := in.claim("body", "request body", "request", in.pos, in.ptr+"/requestBody")
	body.Arg = arg
	var prop any
	if body.Encoding == ir.RawBody {
		prop = map[string]any{"type": "string"}
		note = joinText(fmt.Sprintf("Request body, sent as %s.", mt), note)
	} else {
		prop = in.doc.Convert(media.Schema)
	}
	in.add(arg, describe(prop, joinText(rb.Description, note)), rb.Required)
}

// flattenable reports whether a body is a plain object whose properties can
// stand as separate arguments without losing anything.
func flattenable(s *openapi3.Schema) bool {
	if s == nil || len(s.Properties) == 0 || len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 || s.Not != nil {
		return false
	}
	if s.Type != nil && !s.Type.Is("object") {
		return false
	}
	ap := s.AdditionalProperties
	return ap.Schema == nil && (ap.Has == nil || !*ap.Has)
}

// pickMedia chooses the request body media type tailor sends: JSON first,
// then forms, then anything else, in a fixed order.
func pickMedia(content openapi3.Content) (string, *openapi3.MediaType) {
	keys := sortedKeys(content)
	rank := func(mt string) int {
		switch {
		case mt == "application/json":
			return 0
		case mt == "application/merge-patch+json":
			return 1
		case isJSON(mt):
			return 2
		case mt == "application/x-www-form-urlencoded":
			return 3
		case mt == "multipart/form-data":
			return 4
		}
		return 5
	}
	sort.SliceStable(keys, func(i, j int) bool { return rank(keys[i]) < rank(keys[j]) })
	for _, k := range keys {
		if m := content[k]; m != nil {
			return k, m
		}
	}
	return "", nil
}

func wildcard(mt string) bool {
	return mt == "*/*" || mt == "application/*"
}

// structured reports whether a schema describes more than a plain string.
func structured(ref *openapi3.SchemaRef) bool {
	s := schema.Resolve(ref)
	if s == nil {
		return false
	}
	if s.Type == nil || len(*s.Type) == 0 {
		return len(s.Properties) > 0 || len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0
	}
	return !s.Type.Is("string")
}

func isJSON(mt string) bool {
	mt = strings.ToLower(strings.TrimSpace(strings.SplitN(mt, ";", 2)[0]))
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// schema returns the tool's inputSchema. Unknown arguments are rejected so
// that a misspelt argument is an error the model can fix, not a silently
// ignored value.
func (in *input) schema() *encoding {
	s := map[string]any{
		"type":                 "object",
		"properties":           in.props,
		"additionalProperties": false,
	}
	if len(in.required) > 0 {
		req := append([]string(nil), in.required...)
		sort.Strings(req)
		s["required"] = req
	}
	return in.b.encode(in.doc, s)
}

// describe adds text to a converted schema's description. A bare $ref gets
// the description beside it (allowed in 2020-12).
func describe(prop any, text string) any {
	if text == "" {
		return prop
	}
	m, ok := prop.(map[string]any)
	if !ok {
		return map[string]any{"description": text, "allOf": []any{prop}}
	}
	cp := make(map[string]any, len(m)+1)
	for k, v := range m {
		cp[k] = v
	}
	if d, _ := cp["description"].(string); d != "" && !strings.Contains(d, text) {
		cp["description"] = text + "\n\n" + d
	} else {
		cp["description"] = text
	}
	return cp
}

func joinText(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
