package load

import (
	"os"
	"testing"
)

func BenchmarkSniffStripe(b *testing.B) {
	data, err := os.ReadFile("/work/shared/corpus/stripe.yaml")
	if err != nil {
		b.Skip()
	}
	for b.Loop() {
		sniff("stripe.yaml", data)
	}
}
