package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/tailormcp/tailor/internal/testkit"
)

// The documentation makes claims a reader acts on: flag tables, links, the
// overlay's keys, the demo's output. These tests compare each with what the
// code does, so that a change of the code that the docs do not follow fails.

// docFiles are the Markdown files a reader is pointed to.
func docFiles(t *testing.T) []string {
	t.Helper()
	root := testkit.RepoRoot()
	files := []string{"README.md", "ARCHITECTURE.md", "BENCHMARKS.md"}
	for _, pattern := range []string{"docs/*.md", "examples/*/README.md"} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			rel, _ := filepath.Rel(root, f)
			files = append(files, filepath.ToSlash(rel))
		}
	}
	return files
}

func readDoc(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testkit.RepoRoot(), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var fence = regexp.MustCompile("(?ms)^```.*?^```[ \t]*$")

// prose is a Markdown text without its fenced code blocks.
func prose(doc string) string { return fence.ReplaceAllString(doc, "") }

// headingSlugs are the anchors GitHub gives a file's headings.
func headingSlugs(doc string) map[string]bool {
	slugs := map[string]bool{}
	for _, line := range strings.Split(prose(doc), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		slugs[b.String()] = true
	}
	return slugs
}

var (
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	inlineCode = regexp.MustCompile("`[^`\n]*`")
)

// TestDocLinks: every relative link of the docs names a file that exists,
// and every #anchor a heading of that file.
func TestDocLinks(t *testing.T) {
	root := testkit.RepoRoot()
	for _, rel := range docFiles(t) {
		text := inlineCode.ReplaceAllString(prose(readDoc(t, rel)), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			target, anchor, _ := strings.Cut(link, "#")
			path := rel
			if target != "" {
				path = filepath.ToSlash(filepath.Join(filepath.Dir(rel), target))
			}
			info, err := os.Stat(filepath.Join(root, filepath.FromSlash(path)))
			if err != nil {
				t.Errorf("%s: link %s: %s does not exist", rel, link, path)
				continue
			}
			if anchor == "" {
				continue
			}
			if info.IsDir() || !headingSlugs(readDoc(t, path))[anchor] {
				t.Errorf("%s: link %s: %s has no heading #%s", rel, link, path, anchor)
			}
		}
	}
}

// docTable returns the cells of the first table after the heading that
// starts with heading, header and separator rows left out.
func docTable(t *testing.T, rel, heading string) [][]string {
	t.Helper()
	lines := strings.Split(readDoc(t, rel), "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, heading) })
	if i < 0 {
		t.Fatalf("%s has no heading %q", rel, heading)
	}
	var rows [][]string
	for _, l := range lines[i+1:] {
		if !strings.HasPrefix(l, "|") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		rows = append(rows, cells)
	}
	if len(rows) < 3 {
		t.Fatalf("%s: no table under %q", rel, heading)
	}
	return rows[2:]
}

var longFlag = regexp.MustCompile(`--([a-z0-9-]+)`)

// docFlags are the flags a table's first column names.
func docFlags(rows [][]string) []string {
	var flags []string
	for _, r := range rows {
		if m := longFlag.FindStringSubmatch(r[0]); m != nil {
			flags = append(flags, m[1])
		}
	}
	sort.Strings(flags)
	return flags
}

// TestDocCommandFlags: the flag tables of generate and serve list exactly
// the flags each command's --help lists.
func TestDocCommandFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tailor")
	}
	helpFlag := regexp.MustCompile(`(?m)^\s+(?:-[a-z], )?--([a-z0-9-]+)`)
	for _, c := range []struct{ cmd, doc, heading string }{
		{"generate", "docs/generate.md", "## Flags"},
		{"serve", "docs/runtime.md", "## Without generating code"},
	} {
		out, err := exec.Command(tailorBinary(t), c.cmd, "--help").Output()
		if err != nil {
			t.Fatalf("tailor %s --help: %v", c.cmd, err)
		}
		var want []string
		for _, m := range helpFlag.FindAllStringSubmatch(string(out), -1) {
			if m[1] != "help" {
				want = append(want, m[1])
			}
		}
		sort.Strings(want)
		if got := docFlags(docTable(t, c.doc, c.heading)); !slices.Equal(got, want) {
			t.Errorf("%s lists the flags %v for tailor %s; its --help lists %v", c.doc, got, c.cmd, want)
		}
	}
}

// serverSetting is a generated server's flag or environment variable as
// -h shows it.
type serverSetting struct{ env, def string }

// serverHelp reads a generated server's -h: its flags with their
// environment variables and defaults, and the variables without a flag
// (credentials and context values left out: they depend on the spec).
func serverHelp(t *testing.T, bin string) (flags map[string]serverSetting, envOnly []string) {
	t.Helper()
	cmd := exec.Command(bin, "-h")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s -h: %v\n%s", bin, err, stderr.String())
	}
	var (
		flagLine = regexp.MustCompile(`^  -([a-z0-9-]+)`)
		envOf    = regexp.MustCompile(`\(env ([A-Z0-9_]+)\)`)
		defOf    = regexp.MustCompile(`\(env [A-Z0-9_]+\) \(default (.+)\)$`)
		envLine  = regexp.MustCompile(`^  ([A-Z][A-Z0-9_]*)\t(.*)`)
	)
	flags = map[string]serverSetting{}
	current, credentials := "", false
	for _, line := range strings.Split(stderr.String(), "\n") {
		switch {
		case strings.HasPrefix(line, "Credentials"):
			credentials = true
		case line == "":
			credentials = false
		case flagLine.MatchString(line):
			current = flagLine.FindStringSubmatch(line)[1]
		case strings.HasPrefix(line, "    \t") && current != "":
			s := serverSetting{}
			if m := envOf.FindStringSubmatch(line); m != nil {
				s.env = m[1]
			}
			if m := defOf.FindStringSubmatch(line); m != nil {
				s.def = m[1]
			}
			flags[current], current = s, ""
		case envLine.MatchString(line) && !credentials:
			if m := envLine.FindStringSubmatch(line); !strings.HasPrefix(m[2], "context value") {
				envOnly = append(envOnly, m[1])
			}
		}
	}
	if len(flags) == 0 {
		t.Fatalf("no flags in %s -h:\n%s", bin, stderr.String())
	}
	sort.Strings(envOnly)
	return flags, envOnly
}

// TestDocServerFlags: docs/runtime.md's table of a generated server's
// flags and environment variables is the server's -h: the same flags, each
// with its variable and default, and the same variables without a flag.
func TestDocServerFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a server")
	}
	const prefix = "SHOP" // testdata/e2e/shop, generated as "shop"
	flags, envOnly := serverHelp(t, shopBinary(t))
	rows := docTable(t, "docs/runtime.md", "## Flags and environment variables")
	seen := map[string]bool{}
	var docEnvOnly []string
	for _, r := range rows {
		if len(r) < 4 {
			t.Errorf("docs/runtime.md: row %q has fewer than 4 cells", r)
			continue
		}
		env := strings.Trim(strings.ReplaceAll(r[1], "<PREFIX>", prefix), "`")
		def := r[2]
		if def == "—" {
			def = ""
		}
		m := longFlag.FindStringSubmatch(r[0])
		if m == nil {
			docEnvOnly = append(docEnvOnly, env)
			continue
		}
		name := m[1]
		seen[name] = true
		h, ok := flags[name]
		switch {
		case !ok:
			t.Errorf("docs/runtime.md lists --%s, which the server's -h does not", name)
		case h.env != env:
			t.Errorf("docs/runtime.md: --%s reads %s; the server's -h says %s", name, env, h.env)
		case h.def != def:
			t.Errorf("docs/runtime.md: --%s defaults to %q; the server's -h says %q", name, def, h.def)
		}
	}
	for name := range flags {
		if !seen[name] {
			t.Errorf("the server's -h has --%s, which docs/runtime.md does not list", name)
		}
	}
	sort.Strings(docEnvOnly)
	if !slices.Equal(docEnvOnly, envOnly) {
		t.Errorf("docs/runtime.md lists the variables without a flag %v; the server's -h lists %v", docEnvOnly, envOnly)
	}
}

// TestDocOverlayKeys: docs/overlay.md names every key of the overlay's
// JSON Schema, as code.
func TestDocOverlayKeys(t *testing.T) {
	keys := testkit.SchemaKeys(t, []byte(readDoc(t, "overlays/overlay.schema.json")))

	// Code in the doc: inline spans, and the keys of YAML in code.
	doc := readDoc(t, "docs/overlay.md")
	named := map[string]bool{}
	yamlKey := regexp.MustCompile(`([a-z_]+):`)
	for _, code := range append(inlineCode.FindAllString(doc, -1), fence.FindAllString(doc, -1)...) {
		named[strings.Trim(code, "`")] = true
		for _, m := range yamlKey.FindAllStringSubmatch(code, -1) {
			named[m[1]] = true
		}
	}
	var missing []string
	for k := range keys {
		if !named[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("docs/overlay.md does not name the overlay keys %v", missing)
	}
}

// readmeBlock returns the body of the first fenced block that follows the
// line starting with after.
func readmeBlock(t *testing.T, after string) string {
	t.Helper()
	readme := readDoc(t, "README.md")
	i := strings.Index(readme, "\n"+after)
	if i < 0 {
		t.Fatalf("README.md has no line starting with %q", after)
	}
	block := fence.FindString(readme[i:])
	if block == "" {
		t.Fatalf("README.md: no code block after %q", after)
	}
	block = block[strings.IndexByte(block, '\n')+1:]
	return strings.TrimSuffix(strings.TrimRight(block, " \t"), "```")
}

// TestReadmeOverlay: the README's short overlay generates against the
// back-office spec it is written for, without errors or warnings.
func TestReadmeOverlay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tailor")
	}
	dir := t.TempDir()
	overlay := filepath.Join(dir, "overlay.yaml")
	if err := os.WriteFile(overlay, []byte(readmeBlock(t, "## An overlay, in short")), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tailorBinary(t), "generate", "-q", "--spec", filepath.Join(testkit.RepoRoot(), "examples", "backoffice", "openapi.yaml"),
		"--overlay", overlay, "--out", filepath.Join(dir, "out"), "--package", "server")
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("the README's overlay: tailor generate: %v\n%s", err, out)
	}
}

// Quote ids and times differ per run of the demo.
var demoVarying = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`q_[a-z0-9]{10}`), "q_ID"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`), "TIME"},
	{regexp.MustCompile(`\d\d:\d\d:\d\d UTC`), "TIME UTC"},
}

func demoLines(s string) []string {
	for _, v := range demoVarying {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return strings.Split(s, "\n")
}

// checkReadmeDemo fails unless every line of the README's `make demo`
// excerpt is a line of the demo's output, in the same order.
func checkReadmeDemo(t *testing.T, out string) {
	t.Helper()
	got := demoLines(out)
	i, checked := 0, 0
	for _, want := range demoLines(readmeBlock(t, "`make demo` prints")) {
		if strings.TrimSpace(want) == "" {
			continue
		}
		checked++
		for i < len(got) && got[i] != want {
			i++
		}
		if i == len(got) {
			t.Errorf("README.md's `make demo` excerpt has a line the demo no longer prints (or prints elsewhere):\n%s\nthe demo printed:\n%s", want, out)
			return
		}
	}
	if checked < 10 {
		t.Errorf("README.md's `make demo` excerpt has %d lines; is it still under the line starting \"`make demo` prints\"?", checked)
	}
}
