package mcpkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/textproto"
	"net/url"
	"sort"
	"strings"

	"github.com/tailormcp/tailor/internal/jsonv"
)

// Style is an OpenAPI parameter serialization style.
type Style struct {
	Name    string // simple, label, matrix, form, spaceDelimited, pipeDelimited, deepObject
	Explode bool
	// JSON sends the value JSON-encoded (parameters declared with `content`).
	JSON bool
}

// Common styles.
var (
	Simple        = Style{Name: "simple"}
	SimpleExplode = Style{Name: "simple", Explode: true}
	FormStyle     = Style{Name: "form", Explode: true}
	FormNoExplode = Style{Name: "form"}
	DeepObject    = Style{Name: "deepObject", Explode: true}
	JSONValue     = Style{Name: "form", JSON: true}
)

// Request is an HTTP request being built from tool arguments. Every value
// the model fills is escaped into its own slot: it can never change the
// path's shape, the host, or add headers.
type Request struct {
	Method   string
	template string
	path     map[string]string
	query    url.Values
	header   map[string]string
	cookies  []string
	body     []byte
	ctype    string
	fields   []field // body fields, encoded when the request is sent
	bodyKind string
	// bodyRequired sends the body even when no value was given.
	bodyRequired bool
	whole        any
	hasWhole     bool
	err          error
	// readOnly and idempotent govern retries and the messages of a failure;
	// security lists the credentials that may be applied.
	readOnly   bool
	idempotent bool
	security   [][]string
}

type field struct {
	name  string
	v     any
	style Style
}

// Request starts a request for method and the spec's path template.
func (c *Call) Request(method, pathTemplate string) *Request {
	return &Request{Method: method, template: pathTemplate, path: map[string]string{}, query: url.Values{}, header: map[string]string{},
		readOnly: c.tool.ReadOnly, idempotent: c.tool.Idempotent, security: c.tool.Security}
}

func (r *Request) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

// Path fills the {name} segment of the path template.
func (r *Request) Path(name string, v Value, st Style) {
	if !v.Set || v.V == nil {
		r.fail("argument for path parameter %q is missing", name)
		return
	}
	var s string
	switch st.Name {
	case "label":
		s = "." + joinValue(v.V, ".", st.Explode, pathEscape)
	case "matrix":
		s = matrix(name, v.V, st.Explode)
	default:
		s = joinValue(v.V, ",", st.Explode, pathEscape)
	}
	if s == "" {
		// An empty segment changes the path's shape (/items//notes),
		// which servers may read as another route.
		r.fail("argument for path parameter %q is empty; it must name something", name)
		return
	}
	r.path[name] = s
	r.checkSegment(name)
}

// pathEscape escapes a value into one path segment: "/", "?", "#" and "%"
// are escaped by PathEscape. A segment that is or decodes to "." or ".." is
// refused by checkSegment, since no escaping keeps it in its place.
func pathEscape(s string) string { return url.PathEscape(s) }

func matrix(name string, v any, explode bool) string {
	switch x := v.(type) {
	case []any:
		if explode {
			var b strings.Builder
			for _, e := range x {
				b.WriteString(";" + pathEscape(name) + "=" + pathEscape(scalar(e)))
			}
			return b.String()
		}
	case map[string]any:
		if explode {
			var b strings.Builder
			for _, k := range sortedKeys(x) {
				b.WriteString(";" + pathEscape(k) + "=" + pathEscape(scalar(x[k])))
			}
			return b.String()
		}
	}
	return ";" + pathEscape(name) + "=" + joinValue(v, ",", false, pathEscape)
}

// Query adds a query parameter.
func (r *Request) Query(name string, v Value, st Style) {
	if !v.Set || v.V == nil {
		return
	}
	addForm(r.query, name, v.V, st)
}

// addForm serializes v into values under name according to st; shared by
// query parameters and form-encoded bodies.
func addForm(vals url.Values, name string, v any, st Style) {
	if st.JSON {
		vals.Add(name, jsonv.Text(v))
		return
	}
	switch st.Name {
	case "deepObject":
		deep(vals, name, v)
		return
	case "spaceDelimited", "pipeDelimited":
		if arr, ok := v.([]any); ok && !st.Explode {
			sep := " "
			if st.Name == "pipeDelimited" {
				sep = "|"
			}
			vals.Add(name, joinValue(arr, sep, false, identity))
			return
		}
	}
	switch x := v.(type) {
	case []any:
		if st.Explode {
			for _, e := range x {
				vals.Add(name, scalar(e))
			}
			return
		}
		vals.Add(name, joinValue(x, ",", false, identity))
	case map[string]any:
		if st.Explode {
			for _, k := range sortedKeys(x) {
				vals.Add(k, scalar(x[k]))
			}
			return
		}
		vals.Add(name, joinValue(x, ",", false, identity))
	default:
		vals.Add(name, scalar(v))
	}
}

// deep writes name[key][sub]=v, and arrays as name[0]=v, the bracket form
// Rails-style and Stripe-style APIs read.
func deep(vals url.Values, name string, v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			deep(vals, name+"["+k+"]", x[k])
		}
	case []any:
		for i, e := range x {
			deep(vals, fmt.Sprintf("%s[%d]", name, i), e)
		}
	default:
		vals.Add(name, scalar(v))
	}
}

// Header sets a header parameter. Values containing CR, LF or NUL are
// refused: they would let the model inject headers.
func (r *Request) Header(name string, v Value, st Style) {
	if !v.Set || v.V == nil {
		return
	}
	s := joinValue(v.V, ",", st.Explode, identity)
	if st.JSON {
		s = jsonv.Text(v.V)
	}
	if strings.ContainsAny(s, "\r\n\x00") {
		r.fail("the value for header %q contains a line break or NUL character, which is not allowed in a header", name)
		return
	}
	r.header[name] = s
}

// Cookie adds a cookie parameter.
func (r *Request) Cookie(name string, v Value, st Style) {
	if !v.Set || v.V == nil {
		return
	}
	s := joinValue(v.V, ",", st.Explode, url.QueryEscape)
	if st.JSON {
		s = url.QueryEscape(jsonv.Text(v.V))
	}
	r.cookies = append(r.cookies, url.QueryEscape(name)+"="+s)
}

// Body kinds.
const (
	JSON      = "json"
	Form      = "form"
	Multipart = "multipart"
	Raw       = "raw"
)

// Body declares the request body's encoding and media type. A body that is
// not required is sent only when at least one of its values was given.
func (r *Request) Body(kind, contentType string, required bool) {
	r.bodyKind, r.ctype, r.bodyRequired = kind, contentType, required
}

// Field sets one top-level property of a JSON or multipart object body.
func (r *Request) Field(name string, v Value) {
	if !v.Set {
		return
	}
	r.fields = append(r.fields, field{name: name, v: v.V})
}

// FormField sets one property of a form-encoded body, serialized by st
// (the OpenAPI `encoding` of that property).
func (r *Request) FormField(name string, v Value, st Style) {
	if !v.Set {
		return
	}
	r.fields = append(r.fields, field{name: name, v: v.V, style: st})
}

// WholeBody sends v as the entire body (arrays, unions, maps, raw text).
func (r *Request) WholeBody(v Value) {
	if !v.Set {
		return
	}
	r.whole, r.hasWhole = v.V, true
}

// hasBody reports whether a body goes out.
func (r *Request) hasBody() bool {
	return r.bodyKind != "" && (r.hasWhole || len(r.fields) > 0 || r.bodyRequired)
}

// encodeBody serializes the body (again on each attempt; it is pure).
func (r *Request) encodeBody() error {
	if !r.hasBody() {
		return nil
	}
	if r.hasWhole {
		switch r.bodyKind {
		case Raw:
			s, ok := r.whole.(string)
			if !ok {
				s = jsonv.Text(r.whole)
			}
			r.body = []byte(s)
			return nil
		case Form, Multipart:
			if m, ok := r.whole.(map[string]any); ok {
				r.fields = nil
				for _, k := range sortedKeys(m) {
					r.fields = append(r.fields, field{name: k, v: m[k], style: FormStyle})
				}
				break
			}
			fallthrough
		default:
			r.body = []byte(jsonv.Text(r.whole))
			return nil
		}
	}
	switch r.bodyKind {
	case JSON:
		obj := map[string]any{}
		for _, f := range r.fields {
			obj[f.name] = f.v
		}
		r.body = []byte(jsonv.Text(obj))
	case Form:
		vals := url.Values{}
		for _, f := range r.fields {
			if f.v != nil {
				addForm(vals, f.name, f.v, f.style)
			}
		}
		r.body = []byte(vals.Encode())
	case Multipart:
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		for _, f := range r.fields {
			if f.v == nil {
				continue
			}
			switch x := f.v.(type) {
			case string:
				if err := w.WriteField(f.name, x); err != nil {
					return err
				}
			case map[string]any, []any:
				h := textproto.MIMEHeader{}
				h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q`, f.name))
				h.Set("Content-Type", "application/json")
				p, err := w.CreatePart(h)
				if err != nil {
					return err
				}
				p.Write([]byte(jsonv.Text(x)))
			default:
				if err := w.WriteField(f.name, scalar(x)); err != nil {
					return err
				}
			}
		}
		if err := w.Close(); err != nil {
			return err
		}
		r.body = buf.Bytes()
		r.ctype = w.FormDataContentType()
	}
	return nil
}

// expandPath fills the template; every value was escaped by Path.
func (r *Request) expandPath() (string, error) {
	var b strings.Builder
	t := r.template
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			b.WriteString(t)
			break
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			b.WriteString(t)
			break
		}
		b.WriteString(t[:i])
		name := t[i+1 : i+j]
		v, ok := r.path[name]
		if !ok {
			return "", fmt.Errorf("path parameter %q has no value", name)
		}
		b.WriteString(v)
		t = t[i+j+1:]
	}
	return b.String(), nil
}

func identity(s string) string { return s }

// joinValue renders a scalar, array or object for the simple/form family of
// styles, escaping each element with esc.
func joinValue(v any, sep string, explode bool, esc func(string) string) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = esc(scalar(e))
		}
		return strings.Join(parts, sep)
	case map[string]any:
		var parts []string
		for _, k := range sortedKeys(x) {
			if explode {
				parts = append(parts, esc(k)+"="+esc(scalar(x[k])))
			} else {
				parts = append(parts, esc(k), esc(scalar(x[k])))
			}
		}
		return strings.Join(parts, sep)
	}
	return esc(scalar(v))
}

// scalar renders a primitive the way it is written in a URL; nested
// structures fall back to JSON.
func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return jsonv.Text(x)
	}
	return jsonv.Text(v)
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
