package load

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkSniffStripe is sniff on stripe's 6 MB of YAML: it reads the
// version without parsing the document (skipped without ../shared).
func BenchmarkSniffStripe(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "corpus", "stripe.yaml"))
	if err != nil {
		b.Skip("corpus not found beside the repository (../shared/corpus)")
	}
	for b.Loop() {
		sniff("stripe.yaml", data)
	}
}
