package render_test

import (
	"os"
	"testing"
)

// TestMain turns the spec validation cache (internal/generate/load/cache.go) off:
// tests that generate must not fill the developer's cache.
func TestMain(m *testing.M) {
	os.Setenv("TAILOR_CACHE", "off")
	os.Exit(m.Run())
}
