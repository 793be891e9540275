package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/testkit"
)

// TestExamplesUpToDate regenerates every example the way its //go:generate
// line does and fails when the committed files differ: the examples are
// documentation, and stale documentation is a bug.
func TestExamplesUpToDate(t *testing.T) {
	root := testkit.RepoRoot()
	dir := filepath.Join(root, "examples", "petstore")
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	res, err := generator.Generate(generator.Options{SpecPath: "openapi.yaml", OutDir: "mcpserver", Package: "mcpserver", Name: "petstore", Main: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) > 0 {
		t.Errorf("the example spec should generate without warnings: %v", res.Warnings)
	}
	for _, f := range res.Files {
		committed, err := os.ReadFile(filepath.Join("mcpserver", f.Path))
		if err != nil || !bytes.Equal(committed, f.Content) {
			t.Errorf("examples/petstore/mcpserver/%s is stale: run `go generate ./examples/petstore` (or make generate)", f.Path)
		}
	}
}

// TestDemo runs the README's main command the way `make demo` does.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	root := testkit.RepoRoot()
	bin := filepath.Join(t.TempDir(), "petstore")
	build := exec.Command("go", "build", "-o", bin, "./examples/petstore/mcpserver/cmd/petstore")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	demo := exec.Command("go", "run", "./examples/petstore/demo", "--server", bin)
	demo.Dir = root
	out, err := demo.CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{
		"- list_pets(limit, species, status): Lists the shelter's pets, newest first.",
		`text:    [{"id":"p_17","name":"Biscuit","species":"dog","age_months":14,"status":"available"}]`,
		`"adoption_id":"ad_501","fee":80`,
		"Conflict (HTTP 409 Conflict). The API said: Clover has already been adopted",
		"Not found (HTTP 404 Not Found)",
		"`limit`: maximum: got 500, want 50",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("demo output lacks %q:\n%s", want, text)
		}
	}
}
