// Package e2e holds tailor's end-to-end tests: servers generated from specs,
// built with the Go toolchain, run as processes and driven by real MCP
// clients against real HTTP backends on loopback.
package e2e

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tailormcp/tailor/internal/testkit"
)

var shop struct {
	once sync.Once
	bin  string
	err  string
}

// shopBinary generates and builds the server of testdata/e2e/shop once per
// test binary.
func shopBinary(t *testing.T) string {
	t.Helper()
	shop.once.Do(func() {
		m := testkit.NewModule(persistent{t})
		m.Generate(t, filepath.Join(testkit.RepoRoot(), "testdata", "e2e", "shop", "openapi.yaml"), "shop")
		shop.bin = m.Build(t, "shop")["shop"]
	})
	if shop.bin == "" {
		t.Fatal("building the shop server failed in an earlier test")
	}
	return shop.bin
}

// persistent gives testkit a temp dir that outlives the first test using
// it; TestMain removes it.
type persistent struct{ *testing.T }

var tempDirs []string

func (p persistent) TempDir() string {
	d, err := os.MkdirTemp("", "tailor-e2e-")
	if err != nil {
		p.Fatal(err)
	}
	tempDirs = append(tempDirs, d)
	return d
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range tempDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}
