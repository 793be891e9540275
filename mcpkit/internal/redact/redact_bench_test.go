package redact

import (
	"strings"
	"testing"
)

func BenchmarkRedact64K(b *testing.B) {
	r := New([]string{"hk_live_4eC39HqLyjWDarjtT1zdp7dc", "pw:Secret/42"}, []string{"svc:pw:Secret/42"})
	text := strings.Repeat(`{"id":"ord_123","name":"a somewhat long name","price":1234.5},`, 1000)
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		r.String(text)
	}
}

func BenchmarkCallRedactor(b *testing.B) {
	for i := 0; i < b.N; i++ {
		New([]string{"hk_live_4eC39HqLyjWDarjtT1zdp7dc", "pw:Secret/42", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1MSIsImV4cCI6MTc2NDUyODAwMH0.abcdefghijklmnopqrstuvwxyz012345678"}, []string{"svc:pw:Secret/42"})
	}
}

// BenchmarkRedactEscaped64K: an answer dense with escapes (a backend that
// escapes slashes, as PHP's json_encode does, and percent-encoded URLs),
// where the matcher runs over the whole text.
func BenchmarkRedactEscaped64K(b *testing.B) {
	r := New([]string{"hk_live_4eC39HqLyjWDarjtT1zdp7dc", "pw:Secret/42"}, []string{"svc:pw:Secret/42"})
	text := strings.Repeat(`{"url":"https:\/\/api.example.com\/v1\/x?q=a%20b","phone":"+1 555","note":"say \"hi\""},`, 700)
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		r.String(text)
	}
}

// BenchmarkRedactBackslashes: the matcher's worst case, a secret made of
// backslashes over text made of them: every place has four ways to read
// a backslash, and the failures it remembers keep that linear.
func BenchmarkRedactBackslashes(b *testing.B) {
	r := New([]string{`\\\\\\\\\\\\x`}, nil)
	text := strings.Repeat(`\`, 16<<10)
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		r.String(text)
	}
}
