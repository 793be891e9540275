package generator_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*/out/ from what the generator produces now")

// goldenDir holds one folder per case: an openapi.yaml (or .json), any files
// it refers to, and out/ with the expected server.go, tools.go and
// warnings.txt.
var goldenDir = filepath.Join("..", "testdata", "golden")

// goldenCase is one folder of goldenDir.
type goldenCase struct {
	name string // folder name
	dir  string // absolute path of the folder
	spec string // spec file name inside dir
}

// pkg is the Go package name of the case's generated code: the folder name
// with everything but letters and digits left out, so that every case is a
// distinct package of one module in TestGoldenCompiles.
func (c goldenCase) pkg() string {
	var b strings.Builder
	for _, r := range strings.ToLower(c.name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	p := b.String()
	if p == "" || p[0] >= '0' && p[0] <= '9' {
		p = "x" + p
	}
	return p
}

func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir, err := filepath.Abs(filepath.Join(goldenDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		c := goldenCase{name: e.Name(), dir: dir}
		for _, f := range []string{"openapi.yaml", "openapi.json"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				c.spec = f
				break
			}
		}
		if c.spec == "" {
			t.Errorf("%s: no openapi.yaml or openapi.json", dir)
			continue
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		t.Fatalf("no cases under %s", goldenDir)
	}
	return cases
}

// TestGolden regenerates every case and compares the result with out/ byte
// for byte. With -update it rewrites out/ instead.
//
// Each case runs with the case folder as working directory and the spec and
// output given relative to it, exactly as a user running tailor next to
// their spec would, so that the Source header and every warning position are
// the same on every machine.
func TestGolden(t *testing.T) {
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(c.dir)
			want := generate(t, c)
			if *update {
				writeGolden(t, want)
				return
			}
			have := readDir(t, "out")
			for _, name := range sortedNames(want, have) {
				w, inWant := want[name]
				h, inHave := have[name]
				switch {
				case !inHave:
					t.Errorf("out/%s is missing (run go test ./generator -run Golden -update)", name)
				case !inWant:
					t.Errorf("out/%s is not generated any more (run go test ./generator -run Golden -update)", name)
				case !bytes.Equal(w, h):
					t.Errorf("out/%s differs from what tailor generates (run go test ./generator -run Golden -update to accept):\n%s", name, lineDiff(h, w))
				}
			}
		})
	}
}

// generate runs the pipeline in the working directory and returns every
// golden file, warnings.txt included.
func generate(t *testing.T, c goldenCase) map[string][]byte {
	t.Helper()
	opts := generator.Options{
		SpecPath:    c.spec,
		OutDir:      "out",
		Package:     c.pkg(),
		ToolVersion: "", // keeps the header free of tailor's version
	}
	// A case with an overlay.yaml is a curated tool set.
	if _, err := os.Stat("overlay.yaml"); err == nil {
		opts.OverlayPath = "overlay.yaml"
	}
	res, err := testkit.Generate(opts)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	files := map[string][]byte{}
	for _, f := range res.Files {
		files[f.Path] = f.Content
	}
	var w bytes.Buffer
	for _, d := range res.Warnings() {
		fmt.Fprintln(&w, d.String())
	}
	files["warnings.txt"] = w.Bytes()
	return files
}

func writeGolden(t *testing.T, files map[string][]byte) {
	t.Helper()
	if err := os.RemoveAll("out"); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join("out", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readDir returns every file under dir by slash path relative to it.
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return files
}

func sortedNames(ms ...map[string][]byte) []string {
	var names []string
	for _, m := range ms {
		for n := range m {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names
}

// lineDiff shows where have and want first part, with a little context:
// enough to see what changed without a diff tool.
func lineDiff(have, want []byte) string {
	h := strings.Split(string(have), "\n")
	w := strings.Split(string(want), "\n")
	i := 0
	for i < len(h) && i < len(w) && h[i] == w[i] {
		i++
	}
	var b strings.Builder
	for j := max(i-2, 0); j < i; j++ {
		fmt.Fprintf(&b, "  %4d   %s\n", j+1, clip(h[j]))
	}
	for j := i; j < min(i+3, len(h)); j++ {
		fmt.Fprintf(&b, "- %4d   %s\n", j+1, clip(h[j]))
	}
	for j := i; j < min(i+3, len(w)); j++ {
		fmt.Fprintf(&b, "+ %4d   %s\n", j+1, clip(w[j]))
	}
	return b.String()
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// TestGoldenCompiles builds and vets every case's out/ as a package of one
// throwaway module that requires this checkout of tailor, so a golden file
// that is committed is a golden file that compiles.
//
// A throwaway testkit.Module is used rather than a go.mod committed under
// testdata/golden (sqlc's way): that nested module would need its own
// go.sum, restating the root module's dependencies and going stale
// whenever mcpkit's change, and running the go command in it would rewrite
// it in the working tree. NewModule derives both from the root module on
// every run, like the end-to-end tests do.
func TestGoldenCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every golden package with the go command")
	}
	cases := goldenCases(t)
	m := testkit.NewModule(t)
	for _, c := range cases {
		dst := filepath.Join(m.Dir, c.pkg())
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		files := readDir(t, filepath.Join(c.dir, "out"))
		n := 0
		for name, content := range files {
			if filepath.Ext(name) != ".go" {
				continue
			}
			n++
			p := filepath.Join(dst, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if n == 0 {
			t.Errorf("%s: no Go files in out/ (run go test ./generator -run Golden -update)", c.name)
		}
	}
	m.Go(t, "build", "./...")
	m.Go(t, "vet", "./...")
}
