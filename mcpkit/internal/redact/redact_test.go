package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A secret must not survive in any form a backend, a URL or a log line can
// give it.
func TestRedactorForms(t *testing.T) {
	const key = `k3y+/with "odd" chars=é`
	const user, pass = "svc-user", "pa ss:wörd"
	r := New([]string{key, pass}, []string{user + ":" + pass})
	jsonEsc := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
	asciiEsc := func(s string) string { // every character as \uXXXX
		out := ""
		for _, r := range s {
			out += `\u` + hex16(r)
		}
		return out
	}
	basic := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
	forms := map[string]string{
		"raw":                   key,
		"query-escaped":         url.QueryEscape(key),
		"path-escaped":          url.PathEscape(key),
		"lower-case hex":        strings.ToLower(url.QueryEscape(key)),
		"JSON-escaped":          jsonEsc(key),
		"JSON in JSON":          jsonEsc(jsonEsc(key)),
		"unicode-escaped":       asciiEsc(key),
		"Basic base64url":       base64.RawURLEncoding.EncodeToString([]byte(user + ":" + pass)),
		"Basic header":          "Basic " + basic,
		"Basic in JSON":         jsonEsc("Basic " + basic),
		"password query":        url.QueryEscape(pass),
		"password raw":          pass,
		"query key in an error": `Get "http://127.0.0.1:1/x?api_key=` + url.QueryEscape(key) + `": connection refused`,
	}
	for name, form := range forms {
		got := r.String("before " + form + " after")
		if !strings.Contains(got, Redacted) || strings.Contains(got, form) {
			t.Errorf("%s: %q → %q", name, form, got)
		}
		if !strings.HasPrefix(got, "before ") || !strings.HasSuffix(got, " after") {
			t.Errorf("%s: redacted more than the secret: %q", name, got)
		}
	}
	if got := r.String("nothing secret here: k3y and pa ss"); got != "nothing secret here: k3y and pa ss" {
		t.Errorf("changed text without a secret: %q", got)
	}
}

// An encoded form is caught wherever it lies after other escapes: the
// expression runs only on stretches around escape characters, and a form
// placed across the end of the first escape's stretch must not be cut in
// two (the fuzzer found a JSON-escaped secret that leaked that way).
func TestRedactorFormAcrossStretches(t *testing.T) {
	const secret = `s3c+r/t= "x"`
	jsonEsc := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
	r := New([]string{secret}, []string{"me:" + secret})
	for _, form := range []string{jsonEsc(secret), url.QueryEscape(secret), jsonEsc(jsonEsc(secret))} {
		for gap := 0; gap <= 2*r.window+len(form); gap++ {
			text := `\` + strings.Repeat("a", gap) + form + "z"
			if got := r.String(text); strings.Contains(got, form) || !strings.HasSuffix(got, Redacted+"z") {
				t.Fatalf("%q after an escape and %d bytes: %q", form, gap, got)
			}
		}
	}
}

func hex16(r rune) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[r>>12&15], digits[r>>8&15], digits[r>>4&15], digits[r&15]})
}

// Redacting a decoded value copies what it changes: the value may be a
// stored quote whose real values are still to be sent.
func TestRedactorValueCopies(t *testing.T) {
	r := New([]string{"s3cret-key"}, nil)
	inner := map[string]any{"echo": "key=s3cret-key", "n": json.Number("1")}
	orig := map[string]any{"a": inner, "list": []any{"x", "s3cret-key"}, "s3cret-key": true, "num": json.Number("12345")}
	got := r.Value(orig).(map[string]any)
	if inner["echo"] != "key=s3cret-key" || orig["list"].([]any)[1] != "s3cret-key" || orig["s3cret-key"] != true {
		t.Fatalf("the original was changed: %v", orig)
	}
	b, _ := json.Marshal(got)
	if strings.Contains(string(b), "s3cret-key") || !strings.Contains(string(b), `"echo":"key=[redacted]"`) || !strings.Contains(string(b), `"[redacted]":true`) {
		t.Fatalf("redacted: %s", b)
	}
	if num := New([]string{"12345"}, nil).Value(json.Number("9123456")); num != Redacted {
		t.Errorf("a number holding the secret: %v", num)
	}
}

func TestRedactorResult(t *testing.T) {
	r := New([]string{"s3cret-key"}, nil)
	sc := map[string]any{"k": "s3cret-key"}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo s3cret-key"}}, StructuredContent: sc,
		InputRequests: mcp.InputRequestMap{"approval": &mcp.ElicitParams{Message: "ok s3cret-key?"}}}
	r.Result(res)
	if got := res.Content[0].(*mcp.TextContent).Text; got != "echo [redacted]" {
		t.Errorf("text: %q", got)
	}
	if got := res.StructuredContent.(map[string]any)["k"]; got != Redacted || sc["k"] != "s3cret-key" {
		t.Errorf("structured: %v (original %v)", got, sc["k"])
	}
	if got := res.InputRequests["approval"].(*mcp.ElicitParams).Message; got != "ok [redacted]?" {
		t.Errorf("question: %q", got)
	}
}

// The log writer redacts each line, whatever wrote it.
func TestAuthSecrets(t *testing.T) {
	s, b := authSecrets("Basic " + base64.StdEncoding.EncodeToString([]byte("me:pw-1234")))
	if len(s) != 2 || s[1] != "pw-1234" || len(b) != 1 || b[0] != "me:pw-1234" {
		t.Errorf("basic: %v %v", s, b)
	}
	if s, _ := authSecrets("Bearer tok-abc"); len(s) != 1 || s[0] != "tok-abc" {
		t.Errorf("bearer: %v", s)
	}
}

// expressionRedactor is the matcher's specification: one regular
// expression of every form, each character in any of its encodings,
// matched over the whole text after the literal forms are replaced. The
// Redactor must give the same text.
func expressionRedactor(r *Redactor) func(string) string {
	alts := make([]string, len(r.forms))
	for i, f := range r.forms {
		var b strings.Builder
		for _, c := range f {
			enc := []string{regexp.QuoteMeta(string(c))}
			pct := ""
			for _, x := range []byte(string(c)) {
				pct += fmt.Sprintf("%%(?:%X|%x)(?:%X|%x)", x>>4, x>>4, x&15, x&15)
			}
			enc = append(enc, pct)
			u := ""
			for _, unit := range utf16.Encode([]rune{c}) {
				u += `\\u`
				for shift := 12; shift >= 0; shift -= 4 {
					d := unit >> shift & 15
					u += fmt.Sprintf("(?:%X|%x)", d, d)
				}
			}
			enc = append(enc, u)
			switch c {
			case '"', '\\', '/':
				enc = append(enc, `(?:\\){1,3}`+regexp.QuoteMeta(string(c)))
			case ' ':
				enc = append(enc, `\+`)
			}
			b.WriteString("(?:" + strings.Join(enc, "|") + ")")
		}
		alts[i] = b.String()
	}
	re := regexp.MustCompile(strings.Join(alts, "|"))
	return func(s string) string { return re.ReplaceAllLiteralString(r.literals.Replace(s), Redacted) }
}

// The secrets of the matcher's tests: JSON's short escapes, a space, a
// percent sign, letters that are hex digits, a character beyond the BMP,
// one of two bytes, and one secret inside another.
var matcherSecrets = []string{`k3y+/with "odd" chars=é`, `a\b\\c/d"e`, `50% off 🎉`, `feedface`, `ace`, `\\\\`}

func TestRedactorMatchesExpression(t *testing.T) {
	r := New(matcherSecrets, []string{"me:" + matcherSecrets[0]})
	want := expressionRedactor(r)
	jsonEsc := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
	asciiEsc := func(s string) string {
		var b strings.Builder
		for _, u := range utf16.Encode([]rune(s)) {
			fmt.Fprintf(&b, `\u%04x`, u)
		}
		return b.String()
	}
	var texts []string
	for _, s := range matcherSecrets {
		for _, form := range []string{s, url.QueryEscape(s), url.PathEscape(s), jsonEsc(s), jsonEsc(jsonEsc(s)), asciiEsc(s), strings.ToLower(url.QueryEscape(s)), jsonEsc(url.QueryEscape(s))} {
			texts = append(texts, "x"+form+"y", `\\\\`+form+`\\\\`, form+form, "%"+form+"%2", strings.Repeat(`\`, 7)+form)
		}
	}
	texts = append(texts, strings.Repeat(`\`, 200), strings.Repeat(`\\u0061`, 40), strings.Repeat("%2", 50)+"%")
	for _, text := range texts {
		if got, w := r.String(text), want(text); got != w {
			t.Errorf("%q:\n got %q\nwant %q", text, got, w)
		}
	}
}

func FuzzRedactorMatchesExpression(f *testing.F) {
	for i, s := range matcherSecrets {
		f.Add(s, `\"`+url.QueryEscape(s)+`\\/`, uint8(i))
	}
	f.Add(`\\\\\\\\\\`, `%25%5C%5c\u005C\u005c`, uint8(5))
	r := New(matcherSecrets, []string{"me:" + matcherSecrets[0]})
	want := expressionRedactor(r)
	f.Fuzz(func(t *testing.T, a, b string, which uint8) {
		s := matcherSecrets[int(which)%len(matcherSecrets)]
		for _, text := range []string{a + b, a + s + b, a + url.QueryEscape(s) + b} {
			if got, w := r.String(text), want(text); got != w {
				t.Fatalf("%q:\n got %q\nwant %q", text, got, w)
			}
		}
	})
}
