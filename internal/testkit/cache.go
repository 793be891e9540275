package testkit

import (
	"fmt"
	"os"
	"testing"
)

// RunWithPrivateCache runs a test binary's tests with TAILOR_CACHE (the
// tool-set cache of tailor serve) set to a temporary directory of their own, which tailor processes they start inherit, so that tests
// neither fill nor read the developer's cache; it returns m.Run's code.
//
//	func TestMain(m *testing.M) { os.Exit(testkit.RunWithPrivateCache(m)) }
func RunWithPrivateCache(m *testing.M) int {
	dir, err := os.MkdirTemp("", "tailor-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv("TAILOR_CACHE", dir)
	return m.Run()
}
