package redact

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// FuzzRedact: whatever surrounds a secret in one of its encoded forms, the
// redacted text holds none of the forms, and text without a secret (nor
// anything that could encode one) is unchanged.
func FuzzRedact(f *testing.F) {
	const secret = "s3c+r/t= \"x\""
	jsonEsc := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
	forms := []string{secret, url.QueryEscape(secret), url.PathEscape(secret), jsonEsc(secret), jsonEsc(jsonEsc(secret)),
		jsonEsc(url.QueryEscape(secret)), base64.StdEncoding.EncodeToString([]byte("me:" + secret)), base64.RawURLEncoding.EncodeToString([]byte("me:" + secret))}
	for i, s := range []string{"", "key=", "a %2B b", `"\\`, "czNj", "nothing here", "%%%", `\u00`} {
		f.Add(s, s, uint8(i))
	}
	r := New([]string{secret}, []string{"me:" + secret})
	f.Fuzz(func(t *testing.T, before, after string, which uint8) {
		form := forms[int(which)%len(forms)]
		out := r.String(before + form + after)
		for _, fm := range forms {
			if strings.Contains(out, fm) {
				t.Fatalf("%q → %q still holds %q", before+form+after, out, fm)
			}
		}
		if !strings.Contains(out, Redacted) {
			t.Fatalf("%q → %q: nothing redacted", before+form+after, out)
		}
		plain := before + after
		if !strings.ContainsAny(plain, "s%\\+bB") && r.String(plain) != plain {
			t.Fatalf("changed text without a secret: %q", plain)
		}
	})
}
