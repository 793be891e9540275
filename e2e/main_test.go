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

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/testkit"
)

// built is a tool set of testdata/e2e/<dir>: its openapi.yaml, curated by
// its overlay.yaml when curated, as Go package pkg; generated and built
// once per test binary.
type built struct {
	dir, pkg string
	curated  bool
	once     sync.Once
	bin      string
}

var (
	shop    = &built{dir: "shop", pkg: "shop"}
	curated = &built{dir: "shop", pkg: "shopc", curated: true}
	hosting = &built{dir: "hosting", pkg: "hosting", curated: true}
)

func (b *built) spec() (spec, overlay string) {
	dir := filepath.Join(testkit.RepoRoot(), "testdata", "e2e", b.dir)
	if b.curated {
		overlay = filepath.Join(dir, "overlay.yaml")
	}
	return filepath.Join(dir, "openapi.yaml"), overlay
}

// binary is the generated and built server.
func (b *built) binary(t *testing.T) string {
	t.Helper()
	b.once.Do(func() {
		spec, overlay := b.spec()
		m := testkit.NewModule(persistent{t})
		m.Generate(t, spec, b.pkg, func(o *generator.Options) { o.OverlayPath = overlay })
		b.bin = m.Compile(t, b.pkg)[b.pkg]
	})
	if b.bin == "" {
		t.Fatalf("building the %s server failed in an earlier test", b.pkg)
	}
	return b.bin
}

// servers are the tool set generated and served.
func (b *built) servers() []server {
	spec, overlay := b.spec()
	return []server{
		{kind: "generated", spec: spec, overlay: overlay, name: b.pkg, bin: b.binary},
		{kind: "serve", spec: spec, overlay: overlay, name: b.pkg},
	}
}

// shopBinary is the raw shop server.
func shopBinary(t *testing.T) string { return shop.binary(t) }

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
