package mcpkit

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// redacted replaces a secret wherever it appears.
const redacted = "[redacted]"

// minSecret is the shortest value treated as a secret: shorter ones would
// blank out ordinary words.
const minSecret = 4

// redactor removes secrets from text in every form a backend, a URL or a
// log line can give them: raw, percent-encoded (either case of hex, `+`
// for a space), JSON-escaped (\uXXXX, \" and \\, \/), any mix of those
// character by character, and base64 (standard or URL alphabet, padded or
// not) of a Basic credential "user:password". One
// regular expression covers them all, so a form that mixes encodings (a
// URL-encoded key inside a JSON string) is caught as well.
//
// Matching that expression everywhere would be slow (no literal to anchor
// on), so the literal forms go through a strings.Replacer, and the
// expression runs only near the characters every other form contains:
// '%', '\\' and, for a secret with a space, '+'.
type redactor struct {
	re       *regexp.Regexp // nil: nothing to redact
	literals *strings.Replacer
	escapes  string // characters that start an encoded form
	window   int    // the longest encoded form, in bytes
	// also redacts after this one (a call's own secrets after the
	// server's).
	also *redactor
}

// newRedactor builds a redactor for secrets; basic lists "user:password"
// pairs whose base64 goes into Authorization headers.
func newRedactor(secrets, basic []string) *redactor {
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
		return &redactor{}
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
	alts := make([]string, len(list))
	var pairs []string
	r := &redactor{escapes: `%\`}
	for i, f := range list {
		alts[i] = encodedPattern(f)
		pairs = append(pairs, f, redacted)
		r.window = max(r.window, 12*utf8.RuneCountInString(f))
		if strings.ContainsRune(f, ' ') {
			r.escapes = `%\+`
		}
	}
	r.re = regexp.MustCompile(strings.Join(alts, "|"))
	r.literals = strings.NewReplacer(pairs...)
	return r
}

// encodedPattern matches s with each character in any of its encodings.
func encodedPattern(s string) string {
	var b strings.Builder
	for _, r := range s {
		alts := []string{regexp.QuoteMeta(string(r))}
		var buf [utf8.UTFMax]byte
		n := utf8.EncodeRune(buf[:], r)
		pct := ""
		for _, c := range buf[:n] {
			pct += "%" + hexClass(c>>4) + hexClass(c&15)
		}
		alts = append(alts, pct)
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			alts = append(alts, `\\u`+hex4(r1)+`\\u`+hex4(r2))
		} else {
			alts = append(alts, `\\u`+hex4(r))
		}
		switch r {
		case '"', '\\', '/':
			// JSON short escapes, also escaped again (a JSON string that
			// holds JSON).
			alts = append(alts, `(?:\\){1,3}`+regexp.QuoteMeta(string(r)))
		case ' ':
			alts = append(alts, `\+`)
		}
		b.WriteString("(?:" + strings.Join(alts, "|") + ")")
	}
	return b.String()
}

func hexClass(n byte) string {
	const digits = "0123456789ABCDEF"
	d := digits[n]
	if d >= 'A' {
		return "[" + string(d) + string(d+'a'-'A') + "]"
	}
	return string(d)
}

func hex4(r rune) string {
	var b strings.Builder
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteString(hexClass(byte(r>>shift) & 15))
	}
	return b.String()
}

// String redacts s.
func (r *redactor) String(s string) string {
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
func (r *redactor) own(s string) string {
	if r.re == nil {
		return s
	}
	s = r.literals.Replace(s)
	first := strings.IndexAny(s, r.escapes)
	if first < 0 {
		return s
	}
	// An encoded form holds an escape character and is at most window
	// bytes long, so it lies within window bytes of every escape it holds:
	// the expression runs only on those stretches, each escape's merged
	// with the next one's where they meet, so no form is ever cut in two.
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
		b.WriteString(r.re.ReplaceAllLiteralString(s[lo:hi], redacted))
		done = hi
		if last = next; next >= 0 {
			lo = max(done, next-r.window)
		}
	}
	b.WriteString(s[done:])
	return b.String()
}

// Bytes redacts b.
func (r *redactor) Bytes(b []byte) []byte {
	if r == nil || (r.re == nil && r.also == nil) || len(b) == 0 {
		return b
	}
	return []byte(r.String(string(b)))
}

// Value redacts the strings, object keys and numbers of a decoded JSON
// value. It never changes v: containers are copied where something inside
// them changed (v may be a stored quote that still has to be sent).
func (r *redactor) Value(v any) any {
	if r == nil || (r.re == nil && r.also == nil) {
		return v
	}
	out, _ := r.value(v)
	return out
}

func (r *redactor) value(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		s := r.String(x)
		return s, s != x
	case json.Number:
		if r.String(string(x)) != string(x) {
			return redacted, true
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
			return redacted, true
		}
	}
	return v, false
}

// Result redacts everything of a result that the client receives: text,
// structured content, and the question of an input request.
func (r *redactor) Result(res *mcp.CallToolResult) {
	if r == nil || (r.re == nil && r.also == nil) || res == nil {
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

// redactingWriter redacts every write: the server's log lines (its own and
// go-sdk's) pass through it on their way to stderr. slog writes one record
// per Write, so a secret is never split across two writes.
type redactingWriter struct {
	w io.Writer
	r *redactor
}

func (w redactingWriter) Write(p []byte) (int, error) {
	if _, err := w.w.Write(w.r.Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// redactor is the call's redactor: the server's secrets and the
// credential of the caller's own Authorization header (forwarded to the
// backend with --pass-through-auth, and never to be shown either way).
func (c *Call) redactor() *redactor {
	if c.red != nil {
		return c.red
	}
	c.red = c.kit.redactor
	if c.header != nil {
		if h := c.header.Get("Authorization"); h != "" {
			c.red = &redactor{re: c.kit.redactor.re, literals: c.kit.redactor.literals, escapes: c.kit.redactor.escapes,
				window: c.kit.redactor.window, also: c.kit.callerRedactor(h)}
		}
	}
	return c.red
}

// callerRedactor is the redactor of one Authorization header's secrets,
// built once per header value: a session sends the same token on every
// call. The cache is emptied when it holds callerCacheSize entries.
func (k *Runtime) callerRedactor(h string) *redactor {
	if r, ok := k.callers.m.Load(h); ok {
		return r.(*redactor)
	}
	extra, basic := authSecrets(h)
	r := newRedactor(extra, basic)
	if k.callers.n.Add(1) > callerCacheSize {
		k.callers.m.Clear()
		k.callers.n.Store(1)
	}
	k.callers.m.Store(h, r)
	return r
}

const callerCacheSize = 4096

// redact removes every secret the call knows of from s.
func (c *Call) redact(s string) string { return c.redactor().String(s) }

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

// callerCache holds redactors of callers' Authorization headers.
type callerCache struct {
	m sync.Map // header value → *redactor
	n atomic.Int64
}
