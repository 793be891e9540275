package scenario

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/diag"
)

// checker checks one call's expectations, with the values saved so far.
type checker struct {
	saved map[string]any
	fail  func(pos diag.Pos, what string, got ...string)
}

// maxShown bounds a text quoted in a failure.
const maxShown = 600

func shown(s string) string {
	if len(s) > maxShown {
		cut := maxShown
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		return s[:cut] + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return s
}

func (k *checker) approval(c *Call, questions []string) {
	a := c.Approval
	switch {
	case a == nil && len(questions) > 0:
		k.fail(c.Pos, fmt.Sprintf("the user was asked to approve %q, and the call gives no answer: add approval: {answer: accept} (or decline, cancel)", questions[0]), "the simulated user declined")
	case a != nil && len(questions) == 0:
		k.fail(a.Pos, "no approval question was asked")
	case a != nil && a.Question != nil:
		k.text(a.Question, "the approval question", questions[len(questions)-1])
	}
}

func (k *checker) expect(c *Call, res *mcp.CallToolResult, text string, received []Request, recorded bool) {
	e := c.Expect
	if res.IsError != e.IsError {
		pos := e.IsErrorPos
		if pos.Line == 0 {
			pos = c.Pos
		}
		what := "the result is an error (isError), and the call does not expect one (expect: {is_error: true} if it should)"
		if !res.IsError {
			what = "the result is not an error, and expect.is_error is true"
		}
		k.fail(pos, what, "text: "+shown(text))
		// The rest would only repeat it.
		return
	}
	if e.Text != nil {
		k.text(e.Text, "the text", text)
	}
	if len(e.Structured) > 0 {
		var sc any
		if res.StructuredContent != nil {
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &sc)
		}
		for _, pc := range e.Structured {
			k.path(pc, "structuredContent", sc, jsonShown(sc))
		}
	}
	if e.HasRequests {
		k.requests(e, received, recorded)
	}
}

// text checks a TextCond against s.
func (k *checker) text(t *TextCond, what, s string) {
	got := what + ": " + shown(s)
	for _, c := range t.Contains {
		if want := textOf(c.S, k.saved); !strings.Contains(s, want) {
			k.fail(c.Pos, fmt.Sprintf("%s does not contain %q", what, want), got)
		}
	}
	for _, c := range t.NotContains {
		if want := textOf(c.S, k.saved); strings.Contains(s, want) {
			k.fail(c.Pos, fmt.Sprintf("%s contains %q", what, want), got)
		}
	}
	for _, c := range t.Matches {
		if re := k.regexp(c); re != nil && !re.MatchString(s) {
			k.fail(c.Pos, fmt.Sprintf("%s does not match %s", what, c.S), got)
		}
	}
	if c := t.Equals; c != nil {
		if want := textOf(c.S, k.saved); s != want {
			k.fail(c.Pos, fmt.Sprintf("%s is not %q", what, want), got)
		}
	}
}

// regexp compiles a pattern with the saved values put in literally.
func (k *checker) regexp(s Str) *regexp.Regexp {
	src := refPattern.ReplaceAllStringFunc(s.S, func(ref string) string {
		return regexp.QuoteMeta(textOf(ref, k.saved))
	})
	re, err := regexp.Compile(src)
	if err != nil {
		k.fail(s.Pos, fmt.Sprintf("%s is not a regular expression once the saved values are in: %v", s.S, err))
		return nil
	}
	return re
}

// path checks what a JSONPath selects in doc.
func (k *checker) path(pc *PathCond, what string, doc any, docText string) {
	nodes := pc.Compiled.Select(doc)
	var v any
	found := len(nodes) > 0
	switch len(nodes) {
	case 0:
	case 1:
		v = nodes[0]
	default:
		v = []any(nodes)
	}
	k.cond(pc.Cond, fmt.Sprintf("%s %s", what, pc.Path), v, found, what+": "+docText, jsonShown)
}

// cond checks a condition on a value (found says whether there is one);
// show renders the value in failures.
func (k *checker) cond(c Cond, what string, v any, found bool, context string, show func(any) string) {
	switch {
	case c.Exists != nil && *c.Exists && !found:
		k.fail(c.Pos, what+" is absent", context)
		return
	case c.Exists != nil && !*c.Exists && found:
		k.fail(c.Pos, what+" is present: "+show(v), context)
		return
	}
	if !found {
		if c.HasEquals || c.HasContains || c.Matches != nil {
			k.fail(c.Pos, what+" is absent", context)
		}
		return
	}
	if c.HasEquals {
		want := substitute(c.Equals, k.saved)
		if !sameJSON(v, want) {
			k.fail(c.Pos, fmt.Sprintf("%s is %s, want %s", what, show(v), jsonShown(want)), context)
		}
	}
	if c.HasContains {
		want := substitute(c.Contains, k.saved)
		if !containsValue(v, want) {
			k.fail(c.Pos, fmt.Sprintf("%s does not contain %s: it is %s", what, jsonShown(want), show(v)), context)
		}
	}
	if c.Matches != nil {
		if re := k.regexp(*c.Matches); re != nil && !re.MatchString(valueText(v)) {
			k.fail(c.Matches.Pos, fmt.Sprintf("%s does not match %s: it is %s", what, c.Matches.S, show(v)), context)
		}
	}
}

// textValue checks a condition on a header or query parameter, compared
// as text; the value of a credential is not shown.
func (k *checker) textValue(c Cond, what string, values []string, context string, secret bool) {
	show := jsonShown
	if secret {
		show = func(any) string { return "(hidden)" }
	}
	if len(values) == 0 {
		k.cond(c, what, nil, false, context, show)
		return
	}
	v := strings.Join(values, ", ")
	if c.HasEquals {
		c.Equals = valueText(substitute(c.Equals, k.saved))
	}
	k.cond(c, what, v, true, context, show)
}

func containsValue(v, want any) bool {
	switch x := v.(type) {
	case string:
		return strings.Contains(x, valueText(want))
	case []any:
		for _, e := range x {
			if sameJSON(e, want) {
				return true
			}
		}
	case map[string]any:
		// Every member of want is in v, with the same value.
		w, ok := want.(map[string]any)
		if !ok {
			return false
		}
		for name, e := range w {
			if !sameJSON(x[name], e) {
				return false
			}
		}
		return true
	}
	return false
}

// sameJSON compares two values as JSON (numbers by value, objects by
// members).
func sameJSON(a, b any) bool { return canonical(a) == canonical(b) }

func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var back any
	if json.Unmarshal(b, &back) != nil {
		return string(b)
	}
	b, _ = json.Marshal(back)
	return string(b)
}

func jsonShown(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return shown(string(b))
}

// requests checks the requests the backend received during the call:
// exactly those listed, in order.
func (k *checker) requests(e Expect, received []Request, recorded bool) {
	if !recorded {
		k.fail(e.RequestsPos, "expect.requests needs the backend's requests: run with --backend URL")
		return
	}
	got := make([]string, len(received))
	for i, r := range received {
		got[i] = describeRequest(r)
	}
	if len(got) == 0 {
		got = []string{"(no request)"}
	}
	for i, m := range e.Requests {
		if i >= len(received) {
			k.fail(m.Pos, fmt.Sprintf("the backend received %s, and request %d (%s) is not among them", plural(len(received), "request"), i+1, m.describe(k.saved)), got...)
			continue
		}
		k.request(m, received[i], i+1, got)
	}
	if extra := len(received) - len(e.Requests); extra > 0 {
		k.fail(e.RequestsPos, fmt.Sprintf("the backend received %s, %d more than expect.requests lists", plural(len(received), "request"), extra), got...)
	}
}

func (k *checker) request(m *RequestMatch, r Request, n int, got []string) {
	what := fmt.Sprintf("request %d", n)
	context := strings.Join(got, "\n")
	if m.Method != "" && r.Method != m.Method {
		k.fail(m.Pos, fmt.Sprintf("%s is %s %s, want method %s", what, r.Method, r.Path, m.Method), got...)
	}
	if m.Path != nil {
		if want := textOf(m.Path.S, k.saved); r.Path != want {
			k.fail(m.Path.Pos, fmt.Sprintf("%s is %s %s, want path %s", what, r.Method, r.Path, want), got...)
		}
	}
	for _, q := range m.Query {
		k.textValue(q.Cond, fmt.Sprintf("%s's query parameter %s", what, q.Name), r.Query[q.Name], context, sensitive(q.Name))
	}
	for _, h := range m.Headers {
		k.textValue(h.Cond, fmt.Sprintf("%s's header %s", what, h.Name), r.Header.Values(h.Name), context, sensitive(h.Name))
	}
	if len(m.Body) > 0 {
		body := requestBody(r)
		for _, pc := range m.Body {
			k.path(pc, what+"'s body", body, shownBody(r))
		}
	}
}

// requestBody reads a request body as JSON, a form as an object of its
// fields, anything else as a string.
func requestBody(r Request) any {
	var v any
	if json.Unmarshal(r.Body, &v) == nil {
		return v
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		if form, err := url.ParseQuery(string(r.Body)); err == nil {
			m := map[string]any{}
			for name, vals := range form {
				if len(vals) == 1 {
					m[name] = vals[0]
				} else {
					l := make([]any, len(vals))
					for i, s := range vals {
						l[i] = s
					}
					m[name] = l
				}
			}
			return m
		}
	}
	return string(r.Body)
}

// describeRequest is a received request as failures show it: method, path
// and query, headers (secrets hidden), body.
func describeRequest(r Request) string {
	s := r.Method + " " + r.Path
	if q := r.Query.Encode(); q != "" {
		s += "?" + q
	}
	var hs []string
	for name, vals := range r.Header {
		switch strings.ToLower(name) {
		case "accept-encoding", "user-agent", "content-length", "x-forwarded-for", "x-request-id":
			// Transport details, and the server's per-call id (new each run).
			continue
		}
		v := strings.Join(vals, ", ")
		if sensitive(name) {
			v = "(hidden)"
		}
		hs = append(hs, name+": "+v)
	}
	sort.Strings(hs)
	if len(hs) > 0 {
		s += " [" + strings.Join(hs, "; ") + "]"
	}
	if len(r.Body) > 0 {
		s += " " + shownBody(r)
	}
	return s
}

// shownBody is a request body as failures show it: a JSON or form body
// with the values of credential-like fields (token, key, secret,
// password) hidden.
func shownBody(r Request) string {
	v := requestBody(r)
	if _, text := v.(string); text {
		return shown(string(r.Body))
	}
	return jsonShown(hideSecrets(v))
}

func hideSecrets(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for name, e := range x {
			if sensitive(name) {
				out[name] = "(hidden)"
				continue
			}
			out[name] = hideSecrets(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = hideSecrets(e)
		}
		return out
	}
	return v
}

func (m *RequestMatch) describe(saved map[string]any) string {
	var parts []string
	if m.Method != "" {
		parts = append(parts, m.Method)
	}
	if m.Path != nil {
		parts = append(parts, textOf(m.Path.S, saved))
	}
	if len(parts) == 0 {
		return "any request"
	}
	return strings.Join(parts, " ")
}

// save takes a value out of a result for later calls.
func (k *checker) save(s *Save, res *mcp.CallToolResult, text string) (any, bool) {
	if s.Path != nil {
		var sc any
		if res.StructuredContent != nil {
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &sc)
		}
		nodes := s.Path.Select(sc)
		if len(nodes) == 0 {
			k.fail(s.Pos, fmt.Sprintf("save.%s: %s selects nothing in structuredContent", s.Name, s.Src), "structuredContent: "+jsonShown(sc))
			return nil, false
		}
		return nodes[0], true
	}
	m := s.Match.FindStringSubmatch(text)
	if m == nil {
		k.fail(s.Pos, fmt.Sprintf("save.%s: the text does not match %s", s.Name, s.Src), "text: "+shown(text))
		return nil, false
	}
	if len(m) > 1 {
		return m[1], true
	}
	return m[0], true
}
