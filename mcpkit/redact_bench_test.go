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

func BenchmarkCallRedactor(b *testing.B) {
	for i := 0; i < b.N; i++ {
		newRedactor([]string{"hk_live_4eC39HqLyjWDarjtT1zdp7dc", "pw:Secret/42", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1MSIsImV4cCI6MTc2NDUyODAwMH0.abcdefghijklmnopqrstuvwxyz012345678"}, []string{"svc:pw:Secret/42"})
	}
}
