// Package e2e holds tailor's end-to-end tests: servers generated from specs,
// built with the Go toolchain, run as processes and driven by real MCP
// clients against real HTTP backends on loopback.
package e2e

import (
	"net/http"
	"os"
	"os/exec"
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
		shop.bin = m.Compile(t, "shop")["shop"]
	})
	if shop.bin == "" {
		t.Fatal("building the shop server failed in an earlier test")
	}
	return shop.bin
}

var tailorBin struct {
	once sync.Once
	path string
}

// tailorBinary builds the tailor command once per test binary.
func tailorBinary(t *testing.T) string {
	t.Helper()
	tailorBin.once.Do(func() {
		dir := persistent{t}.TempDir()
		out := filepath.Join(dir, "tailor")
		cmd := exec.Command("go", "build", "-o", out, "./cmd/tailor")
		cmd.Dir = testkit.RepoRoot()
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build tailor: %v\n%s", err, b)
		}
		tailorBin.path = out
	})
	if tailorBin.path == "" {
		t.Fatal("building tailor failed in an earlier test")
	}
	return tailorBin.path
}

// server is how a test runs a tool set: the generated and built server, or
// `tailor serve` on the same spec and overlay. Both must behave the same.
type server struct {
	kind    string // "generated" or "serve"
	spec    string
	overlay string
	name    string
	bin     func(t *testing.T) string
}

// command returns the program and the arguments that come before the
// server's own flags.
func (s server) command(t *testing.T) (string, []string) {
	if s.kind == "generated" {
		return s.bin(t), nil
	}
	args := []string{"serve", "--spec", s.spec, "--name", s.name}
	if s.overlay != "" {
		args = append(args, "--overlay", s.overlay)
	}
	return tailorBinary(t), append(args, "--")
}

func (s server) stdio(t *testing.T, env []string, args ...string) *testkit.Server {
	bin, pre := s.command(t)
	return testkit.StartStdio(t, bin, env, append(pre, args...)...)
}

func (s server) http(t *testing.T, env []string, hc *http.Client, args ...string) *testkit.Server {
	bin, pre := s.command(t)
	return testkit.StartHTTPClient(t, bin, env, hc, append(pre, args...)...)
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
	code := testkit.RunWithPrivateCache(m)
	for _, d := range tempDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}
