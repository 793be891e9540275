package mcpkit

import (
	"strings"
	"testing"
)

func BenchmarkRedact64K(b *testing.B) {
	r := newRedactor([]string{"hk_live_4eC39HqLyjWDarjtT1zdp7dc", "pw:Secret/42"}, []string{"svc:pw:Secret/42"})
	text := strings.Repeat(`{"id":"ord_123","name":"a somewhat long name","price":1234.5},`, 1000)
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		r.String(text)
	}
}
