// Package redact removes secrets from whatever a server shows or records:
// results, log lines, audit records, telemetry. A secret is caught raw and
// in every encoding a backend, a URL or a log line can give it.
package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Redacted replaces a secret wherever it appears.
const Redacted = "[redacted]"

// minSecret is the shortest value treated as a secret: shorter ones would
// blank out ordinary words.
const minSecret = 4

// Redactor removes secrets from text in every form a backend, a URL or a
// log line can give them: raw, percent-encoded (either case of hex, `+`
// for a space), JSON-escaped (\uXXXX, \" and \\, \/), any mix of those
// character by character, and base64 (standard or URL alphabet, padded or
// not) of a Basic credential "user:password". A form that mixes encodings
// (a URL-encoded key inside a JSON string) is caught as well.
//
// The literal forms go through a strings.Replacer; every other form holds
// one of the characters that start an encoding ('%', '\\' and, for a
// secret with a space, '+'), so the matcher (redact_match.go) runs only
// near those.
type Redactor struct {
	forms    [][]rune // the secrets, longest first; none: nothing to redact
	starts   [256]bool
	literals *strings.Replacer
	escapes  string // characters that start an encoded form
	window   int    // the longest encoded form, in bytes
	// also redacts after this one (a call's own secrets after the
	// server's).
	also *Redactor
}

// New builds a Redactor for secrets; basic lists "user:password"
// pairs whose base64 goes into Authorization headers.
func New(secrets, basic []string) *Redactor {
	forms := map[string]bool{}
	for _, s := range secrets {
		if len(s) >= minSecret {
			forms[s] = true
		}
	}
	for _, b := range basic {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			if e := enc.EncodeToString([]byte(b)); len(e) >= minSecret {
				forms[e] = true
			}
		}
	}
	if len(forms) == 0 {
		return &Redactor{}
	}
	list := make([]string, 0, len(forms))
	for f := range forms {
		list = append(list, f)
	}
	// Longest first: a secret that contains another is replaced whole.
	sort.Slice(list, func(i, j int) bool {
		if len(list[i]) != len(list[j]) {
			return len(list[i]) > len(list[j])
		}
		return list[i] < list[j]
	})
	var pairs []string
	r := &Redactor{escapes: `%\`}
	for _, f := range list {
		runes := []rune(f)
		r.forms = append(r.forms, runes)
		pairs = append(pairs, f, Redacted)
		r.window = max(r.window, maxEncodedRune*len(runes))
		if strings.ContainsRune(f, ' ') {
			r.escapes = `%\+`
		}
		r.starts[utf8.AppendRune(nil, runes[0])[0]] = true
	}
	for _, c := range r.escapes {
		r.starts[c] = true
	}
	r.literals = strings.NewReplacer(pairs...)
	return r
}

// String redacts s.
func (r *Redactor) String(s string) string {
	if r == nil || s == "" {
		return s
	}
	s = r.own(s)
	if r.also != nil {
		s = r.also.String(s)
	}
	return s
}

// own redacts r's own secrets.
func (r *Redactor) own(s string) string {
	if len(r.forms) == 0 {
		return s
	}
	s = r.literals.Replace(s)
	first := strings.IndexAny(s, r.escapes)
	if first < 0 {
		return s
	}
	// An encoded form holds an escape character and is at most window
	// bytes long, so it lies within window bytes of every escape it holds:
	// the matcher runs only on those stretches, each escape's merged with
	// the next one's where they meet, so no form is ever cut in two.
	var b strings.Builder
	done := 0 // s[:done] is written
	for lo, last := max(0, first-r.window), first; last >= 0; {
		hi := min(len(s), last+r.window+1)
		next := -1
		if n := strings.IndexAny(s[last+1:], r.escapes); n >= 0 {
			next = last + 1 + n
		}
		if next >= 0 && next-r.window <= hi {
			last = next // this escape's stretch meets the current one
			continue
		}
		b.WriteString(s[done:lo])
		r.replaceEncoded(&b, s[lo:hi])
		done = hi
		if last = next; next >= 0 {
			lo = max(done, next-r.window)
		}
	}
	b.WriteString(s[done:])
	return b.String()
}

// Bytes redacts b.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil || (len(r.forms) == 0 && r.also == nil) || len(b) == 0 {
		return b
	}
	return []byte(r.String(string(b)))
}

// Value redacts the strings, object keys and numbers of a decoded JSON
// value. It never changes v: containers are copied where something inside
// them changed (v may be a stored quote that still has to be sent).
func (r *Redactor) Value(v any) any {
	if r == nil || (len(r.forms) == 0 && r.also == nil) {
		return v
	}
	out, _ := r.value(v)
	return out
}

func (r *Redactor) value(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		s := r.String(x)
		return s, s != x
	case json.Number:
		if r.String(string(x)) != string(x) {
			return Redacted, true
		}
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			ne, changed := r.value(e)
			nk := r.String(k)
			if changed || nk != k {
				if out == nil {
					out = make(map[string]any, len(x))
					for k2, e2 := range x {
						out[k2] = e2
					}
				}
				if nk != k {
					delete(out, k)
				}
				out[nk] = ne
			}
		}
		if out != nil {
			return out, true
		}
	case []any:
		var out []any
		for i, e := range x {
			if ne, changed := r.value(e); changed {
				if out == nil {
					out = append([]any(nil), x...)
				}
				out[i] = ne
			}
		}
		if out != nil {
			return out, true
		}
	default:
		// Values that are not plain JSON (a struct a handler returned):
		// their text is checked.
		if text := fmt.Sprint(v); v != nil && r.String(text) != text {
			return Redacted, true
		}
	}
	return v, false
}

// Result redacts everything of a result that the client receives: text,
// structured content, and the question of an input request.
func (r *Redactor) Result(res *mcp.CallToolResult) {
	if r == nil || (len(r.forms) == 0 && r.also == nil) || res == nil {
		return
	}
	for i, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			if s := r.String(tc.Text); s != tc.Text {
				res.Content[i] = &mcp.TextContent{Text: s, Meta: tc.Meta, Annotations: tc.Annotations}
			}
		}
	}
	if res.StructuredContent != nil {
		res.StructuredContent = r.Value(res.StructuredContent)
	}
	for name, ir := range res.InputRequests {
		if p, ok := ir.(*mcp.ElicitParams); ok {
			cp := *p
			cp.Message = r.String(p.Message)
			res.InputRequests[name] = &cp
		}
	}
}

// Writer redacts every write: the server's log lines (its own and
// go-sdk's) pass through it on their way to stderr. slog writes one record
// per Write, so a secret is never split across two writes.
type Writer struct {
	W io.Writer
	R *Redactor
}

func (w Writer) Write(p []byte) (int, error) {
	if _, err := w.W.Write(w.R.Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// authSecrets splits an Authorization header value into what must not be
// shown: the credential, and for Basic its password and "user:password".
func authSecrets(h string) (secrets, basic []string) {
	scheme, cred, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok {
		cred = scheme
	}
	cred = strings.TrimSpace(cred)
	if cred == "" {
		return nil, nil
	}
	secrets = append(secrets, cred)
	if strings.EqualFold(scheme, "basic") {
		if raw, err := base64.StdEncoding.DecodeString(cred); err == nil {
			if _, pass, ok := strings.Cut(string(raw), ":"); ok {
				secrets = append(secrets, pass)
				basic = append(basic, string(raw))
			}
		}
	}
	return secrets, basic
}

// Callers holds the redactors of callers' Authorization headers: a
// session sends the same token on every call, so each header value's
// Redactor is built once. The cache is emptied when it holds
// callerCacheSize entries.
type Callers struct {
	m sync.Map // header value → *Redactor
	n atomic.Int64
}

const callerCacheSize = 4096

// For is the Redactor of base's secrets and then the credential of the
// Authorization header value h.
func (c *Callers) For(base *Redactor, h string) *Redactor {
	if r, ok := c.m.Load(h); ok {
		return r.(*Redactor)
	}
	extra, basic := authSecrets(h)
	combined := *base
	combined.also = New(extra, basic)
	r := &combined
	if c.n.Add(1) > callerCacheSize {
		c.m.Clear()
		c.n.Store(1)
	}
	c.m.Store(h, r)
	return r
}
