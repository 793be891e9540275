package e2e

import (
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
	for _, ex := range []struct {
		dir  string
		opts generator.Options
	}{
		{"petstore", generator.Options{SpecPath: "openapi.yaml", OutDir: "mcpserver", Package: "mcpserver", Name: "petstore", Main: true}},
		{"backoffice", generator.Options{SpecPath: "openapi.yaml", OverlayPath: "overlay.yaml", OutDir: "mcpserver", Package: "mcpserver", Main: true}},
	} {
		t.Run(ex.dir, func(t *testing.T) {
			t.Chdir(filepath.Join(testkit.RepoRoot(), "examples", ex.dir))
			res, err := testkit.Generate(ex.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings()) > 0 {
				t.Errorf("the example should generate without warnings: %v", res.Warnings())
			}
			for _, f := range res.Files {
				committed, err := os.ReadFile(filepath.Join("mcpserver", f.Path))
				if err != nil || !f.Equal(committed) {
					t.Errorf("examples/%s/mcpserver/%s is stale: run `go generate ./examples/%s` (or make generate)", ex.dir, f.Path, ex.dir)
				}
			}
		})
	}
}

// TestDemo runs the README's main command the way `make demo` does (and
// checks the README's excerpt of its output), and the raw example's demo.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the examples")
	}
	for _, c := range []struct {
		example, cmd string
		want         []string
	}{
		{"backoffice", "backoffice", []string{
			"- refund_items(quote_id*)",
			"text:    Refund of NT$230 for Headphone case. How: price 380; the kept items (Bluetooth headphones 1,200) are below the coupon's 1,500 threshold, so its 150 discount is taken back.",
			`approval: the person is asked "Refund NT$230 to card ending 4242 for order 5531?" and accepts`,
			"text:    Cancelled shipment of Headphone case ×1; refunded NT$230 to the original payment method (card ending 4242), refund rf_8801.",
			"was already carried out",
			"use create_return",
			"refund rf_8801: NT$230 for li_2",
			"li_2 (Headphone case): cancelled",
		}},
		{"petstore", "petstore", []string{
			"- list_pets(limit*, species*, status*): Lists the shelter's pets, newest first.",
			"Conflict (HTTP 409 Conflict). The API said: Clover has already been adopted",
			"`limit`: maximum: got 500, want 50",
		}},
	} {
		t.Run(c.example, func(t *testing.T) {
			root := testkit.RepoRoot()
			bin := filepath.Join(t.TempDir(), c.cmd)
			build := exec.Command("go", "build", "-o", bin, "./examples/"+c.example+"/mcpserver/cmd/"+c.cmd)
			build.Dir = root
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("build: %v\n%s", err, out)
			}
			demo := exec.Command("go", "run", "./examples/"+c.example+"/demo", "--server", bin)
			demo.Dir = root
			out, err := demo.CombinedOutput()
			if err != nil {
				t.Fatalf("demo: %v\n%s", err, out)
			}
			for _, want := range c.want {
				if !strings.Contains(string(out), want) {
					t.Errorf("demo output lacks %q:\n%s", want, out)
				}
			}
			if c.example == "backoffice" {
				checkReadmeDemo(t, string(out))
			}
		})
	}
}

// TestBackofficeReadmeDiff keeps the example README's `tailor diff` table
// the real output.
func TestBackofficeReadmeDiff(t *testing.T) {
	dir := filepath.Join(testkit.RepoRoot(), "examples", "backoffice")
	cmd := exec.Command(tailorBinary(t), "diff", "--spec", "openapi.yaml", "--overlay", "overlay.yaml", "--format", "markdown")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tailor diff: %v", err)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The first line is a heading naming the files; the tables must match.
	_, tables, _ := strings.Cut(string(out), "\n")
	if !strings.Contains(string(readme), strings.TrimSpace(tables)) {
		t.Errorf("examples/backoffice/README.md does not show the current `tailor diff` output; it is now:\n%s", tables)
	}
}
