package cli

import (
	"os"
	"testing"

	"github.com/tailormcp/tailor/internal/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.RunWithPrivateCache(m)) }
