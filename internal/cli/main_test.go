package cli

import (
	"os"
	"testing"

	"github.com/tailormcp/tailor/internal/testkit"
)

func TestMain(m *testing.M) {
	// tailor test starts tailor serve as this program again: here, the
	// test binary, which then runs the command line it is given.
	if os.Getenv("TAILOR_CLI_TEST_SELF") == "1" {
		os.Exit(Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	tailorCommand = func() ([]string, []string, error) {
		exe, err := os.Executable()
		return []string{exe}, []string{"TAILOR_CLI_TEST_SELF=1"}, err
	}
	os.Exit(testkit.RunWithPrivateCache(m))
}
