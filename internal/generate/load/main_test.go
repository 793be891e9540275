package load

import (
	"os"
	"testing"
)

// TestMain turns the validation cache off: the fuzz test alone would fill
// it with an entry per input. The cache's own tests set TAILOR_CACHE.
func TestMain(m *testing.M) {
	os.Setenv("TAILOR_CACHE", "off")
	os.Exit(m.Run())
}
