package cli

import (
	"os"

	"github.com/tailormcp/tailor/internal/hugeheap"
)

// prepareHeap lets a command that runs the pipeline once and exits grow
// its heap in huge pages when the spec is large (internal/hugeheap says
// why). serve does not: it runs for long, and mostly from its cache. A
// spec that cannot be read is left to the loader to report.
func prepareHeap(specPath string) {
	if st, err := os.Stat(specPath); err == nil {
		hugeheap.ForInput(st.Size())
	}
}
