package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	santhosh "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/render"
	"github.com/tailormcp/tailor/internal/review/cost"
	"github.com/tailormcp/tailor/internal/testkit"
)

var updateCorpusReport = flag.Bool("update-corpus-report", false, "rewrite docs/corpus.md from this run of TestCorpus")

// corpusRun is what TestCorpus found for one spec.
type corpusRun struct {
	spec    testkit.CorpusSpec
	res     *testkit.Generated
	elapsed time.Duration
	tools   int
	written bool // by tailor generate
	started bool
	failed  []string // the phases in which this spec failed
}

var corpusToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// TestCorpus takes every real-world spec of ../shared/corpus (wild/
// included, one entry per MANIFEST.tsv row) through what a new user does:
//
//   - generate in-process, timed, one spec at a time: gofmt-clean files
//     with the generated-code header, and every path placeholder filled by
//     an argument, a fixed value or a context value;
//   - `tailor generate` (exit 0), then `tailor check` at once (exit 0: the
//     regenerated files are byte for byte the written ones, which are byte
//     for byte the in-process ones);
//   - build every server in one `go build`, and vet them;
//   - start each with no environment at all: it lists exactly one valid,
//     uniquely named tool per operation the listing counts, with schemas
//     that compile with go-sdk's and mcpkit's validators, and an argument
//     for every placeholder; a server whose spec gives no absolute server
//     URL warns on stderr and answers a call with isError naming the
//     setting.
//
// docs/corpus.md is the table of these results (-update-corpus-report
// rewrites it; the test fails when its rows are stale). Every spec must
// load: a local defect is repaired or skipped with a warning, never a
// refusal.
func TestCorpus(t *testing.T) {
	dir := testkit.CorpusDir()
	if dir == "" {
		t.Skip("corpus not found beside the repository (../shared/corpus)")
	}
	specs, err := testkit.CorpusSpecs(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := testkit.NewModule(t)
	runs := make([]*corpusRun, len(specs))
	for i, s := range specs {
		runs[i] = &corpusRun{spec: s}
	}
	phase := time.Now()
	lap := func(what string) {
		t.Logf("%s: %s", what, time.Since(phase).Round(10*time.Millisecond))
		phase = time.Now()
	}

	t.Run("generate", func(t *testing.T) {
		for _, r := range runs {
			t.Run(r.spec.Pkg(), func(t *testing.T) {
				defer r.count(t, "generation")
				corpusGenerate(t, m, r)
			})
		}
	})
	lap("generate in-process, one spec at a time")

	var loaded []*corpusRun
	for _, r := range runs {
		if r.res != nil {
			loaded = append(loaded, r)
		}
	}
	tailor := tailorBinary(t)
	t.Run("cli", func(t *testing.T) {
		for _, r := range loaded {
			t.Run(r.spec.Pkg(), func(t *testing.T) {
				t.Parallel()
				defer r.count(t, "tailor generate/check")
				corpusCLI(t, tailor, m, r)
			})
		}
	})
	lap("tailor generate, then tailor check")

	// Every spec whose files were written is built and served, so that
	// one spec's failure hides nothing about the others.
	var written []*corpusRun
	var pkgs []string
	for _, r := range loaded {
		if r.written {
			written = append(written, r)
			pkgs = append(pkgs, r.spec.Pkg())
		}
	}
	loaded = written
	bins := m.Compile(t, pkgs...)
	lap("go build")
	m.Go(t, "vet", "./...")
	lap("go vet")

	schemas := &corpusSchemaCache{seen: map[string]string{}}
	t.Run("serve", func(t *testing.T) {
		for _, r := range loaded {
			t.Run(r.spec.Pkg(), func(t *testing.T) {
				t.Parallel()
				defer r.count(t, "serving")
				corpusServe(t, bins[r.spec.Pkg()], r, schemas)
			})
		}
	})
	lap("start with no environment, list tools, compile schemas")

	corpusReport(t, runs)
}

// count records, for the report, that a phase failed for the spec.
func (r *corpusRun) count(t *testing.T, phase string) {
	if t.Failed() {
		r.failed = append(r.failed, phase)
	}
}

// corpusGenerate generates r's spec in-process and checks the result.
func corpusGenerate(t *testing.T, m *testkit.Module, r *corpusRun) {
	pkg := r.spec.Pkg()
	opts := generator.Options{SpecPath: r.spec.Path, OutDir: filepath.Join(m.Dir, pkg), Package: pkg, Main: true,
		ImportPath: m.Path + "/" + pkg, Name: pkg, RefRoot: r.spec.RefRoot}
	start := time.Now()
	res, err := testkit.Generate(opts)
	r.elapsed = time.Since(start)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	r.res = res
	corpusCheckFiles(t, res.Files)
	for _, tool := range res.Curated.Tools {
		if missing := tool.Call.Unfilled(); len(missing) > 0 {
			t.Errorf("tool %s: nothing fills {%s} of %s", tool.Name, strings.Join(missing, "}, {"), tool.Call.Path)
		}
	}
	t.Logf("%d tools, %d warnings, generated in %s", len(res.Curated.Tools), len(res.Warnings()), r.elapsed.Round(time.Millisecond))
}

// corpusCLI runs `tailor generate` and `tailor check` on r's spec in the
// module, as a user would.
func corpusCLI(t *testing.T, tailor string, m *testkit.Module, r *corpusRun) {
	pkg := r.spec.Pkg()
	flags := []string{"--spec", r.spec.Path, "--out", pkg, "--package", pkg, "--main", "--name", pkg, "--omit-version", "--ref-root", r.spec.RefRoot}
	tailorRun := func(cmd string) (int, string) {
		c := exec.Command(tailor, append([]string{cmd}, flags...)...)
		c.Dir = m.Dir
		var stderr bytes.Buffer
		c.Stderr, c.Stdout = &stderr, &stderr
		err := c.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), stderr.String()
		} else if err != nil {
			t.Fatalf("tailor %s: %v", cmd, err)
		}
		return 0, stderr.String()
	}
	if code, out := tailorRun("generate"); code != 0 {
		t.Fatalf("tailor generate: exit %d\n%s", code, lastLines(out, 20))
	}
	r.written = true
	for _, f := range r.res.Files {
		disk, err := os.ReadFile(filepath.Join(m.Dir, pkg, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if !f.Equal(disk) {
			t.Errorf("generation is not deterministic: %s differs between two runs (%s)", f.Path, corpusFirstDiff(f.Bytes(), disk))
		}
	}
	if code, out := tailorRun("check"); code != 0 {
		t.Errorf("tailor check right after tailor generate: exit %d\n%s", code, lastLines(out, 30))
	}
}

// corpusServe starts r's server with no environment and checks what it
// lists.
func corpusServe(t *testing.T, bin string, r *corpusRun, schemas *corpusSchemaCache) {
	srv := testkit.StartStdioEnv(t, bin, nil)
	tools := corpusListTools(t, srv)
	r.tools, r.started = len(tools), true
	if len(tools) != r.spec.Ops {
		t.Errorf("server lists %d tools; the corpus listing counts %d operations", len(tools), r.spec.Ops)
	}
	if len(tools) != len(r.res.Curated.Tools) {
		t.Errorf("server lists %d tools; the generator made %d", len(tools), len(r.res.Curated.Tools))
	}
	corpusCheckTools(t, schemas, tools)
	corpusCheckPlaceholders(t, r.res.Curated, tools)
	corpusDynamic(t, bin, len(tools))

	// Without a base URL the server still starts; a call says what to set.
	base := ""
	if len(r.res.Curated.Servers) > 0 {
		base = r.res.Curated.Servers[0]
	}
	if strings.HasPrefix(base, "http://") || strings.HasPrefix(base, "https://") || len(tools) == 0 {
		return // a call would go to the vendor's real API
	}
	env := strings.ToUpper(r.spec.Pkg()) + "_BASE_URL"
	srv.WaitStderr(t, "a warning about the missing base URL", func(stderr string) bool { return strings.Contains(stderr, "no backend base URL") })
	res := srv.Call(t, tools[0].Name, nil)
	if text := testkit.Text(res); !res.IsError || !strings.Contains(text, env) || strings.Contains(strings.ToLower(text), "retry later") {
		t.Errorf("a call without a base URL: isError=%v %q; want an error naming %s", res.IsError, text, env)
	}
}

// corpusDynamic starts the server in dynamic mode: whatever the API's
// size, tools/list starts with the meta-tools, within 2,000 o200k tokens,
// and list_toolsets accounts for every tool.
func corpusDynamic(t *testing.T, bin string, tools int) {
	srv := testkit.StartStdioEnv(t, bin, nil, "--dynamic")
	listed := corpusListTools(t, srv)
	b, err := json.Marshal(&mcp.ListToolsResult{Tools: listed})
	if err != nil {
		t.Fatal(err)
	}
	if n := cost.Tokens(b); n > 2000 || len(listed) != 5 {
		t.Errorf("--dynamic: tools/list at start is %d tools, %d tokens; want the 5 meta-tools within 2,000 tokens", len(listed), n)
	}
	text := testkit.Text(srv.Call(t, "list_toolsets", nil))
	sum := 0
	for _, m := range toolsetCount.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		sum += n
	}
	if sum != tools {
		t.Errorf("--dynamic: list_toolsets counts %d tools, the server has %d:\n%s", sum, tools, text)
	}
}

var toolsetCount = regexp.MustCompile(`(?m)^- \S+ \((\d+) tools?`)

// corpusCheckFiles checks every generated file is gofmt-clean and carries the
// generated-code header.
func corpusCheckFiles(t *testing.T, files []render.File) {
	t.Helper()
	if len(files) == 0 {
		t.Fatal("no files generated")
	}
	for _, f := range files {
		content := f.Bytes()
		if !bytes.HasPrefix(content, []byte("// Code generated by tailor")) {
			t.Errorf("%s does not start with the generated-code header: %.80q", f.Path, content)
		}
		formatted, err := format.Source(content)
		if err != nil {
			t.Errorf("%s does not parse: %v", f.Path, err)
			continue
		}
		if !bytes.Equal(formatted, content) {
			t.Errorf("%s is not gofmt-clean (%s)", f.Path, corpusFirstDiff(content, formatted))
		}
	}
}

// corpusListTools pages through tools/list.
func corpusListTools(t *testing.T, srv *testkit.Server) []*mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var tools []*mcp.Tool
	params := &mcp.ListToolsParams{}
	for page := 0; ; page++ {
		if page > 100 {
			t.Fatal("tools/list did not stop paginating")
		}
		res, err := srv.Session.ListTools(ctx, params)
		if err != nil {
			t.Fatalf("tools/list: %v\nserver stderr:\n%s", err, srv.Stderr())
		}
		tools = append(tools, res.Tools...)
		if res.NextCursor == "" {
			return tools
		}
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
}

// corpusCheckTools checks names and that every schema compiles with the validator
// the generated server uses.
func corpusCheckTools(t *testing.T, schemas *corpusSchemaCache, tools []*mcp.Tool) {
	t.Helper()
	names := map[string]bool{}
	for _, tool := range tools {
		if !corpusToolName.MatchString(tool.Name) {
			t.Errorf("tool name %q does not match %s", tool.Name, corpusToolName)
		}
		if names[tool.Name] {
			t.Errorf("tool name %q is listed twice", tool.Name)
		}
		names[tool.Name] = true
		schemas.check(t, tool.Name, "inputSchema", tool.InputSchema)
		if tool.OutputSchema != nil {
			schemas.check(t, tool.Name, "outputSchema", tool.OutputSchema)
		}
	}
}

// corpusCheckPlaceholders checks, for every tool, that each placeholder of
// its path is filled: by a required argument the server lists, or by a
// value the model does not give (fixed, from context or a credential).
func corpusCheckPlaceholders(t *testing.T, api *ir.API, listed []*mcp.Tool) {
	t.Helper()
	byName := map[string]*mcp.Tool{}
	for _, tl := range listed {
		byName[tl.Name] = tl
	}
	for _, tool := range api.Tools {
		lt := byName[tool.Name]
		if lt == nil {
			t.Errorf("tool %s is not listed", tool.Name)
			continue
		}
		raw, _ := json.Marshal(lt.InputSchema)
		var in struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		json.Unmarshal(raw, &in)
		for _, hole := range ir.Placeholders(tool.Call.Path) {
			filled := false
			for _, p := range tool.Call.Params {
				if p.In != ir.InPath || p.Name != hole {
					continue
				}
				_, listedArg := in.Properties[p.Arg]
				filled = p.Source.Hidden() || p.Arg != "" && listedArg && slices.Contains(in.Required, p.Arg)
			}
			if !filled {
				t.Errorf("tool %s: {%s} of %s has no required argument, fixed, context or credential value", tool.Name, hole, tool.Call.Path)
			}
		}
	}
}

// corpusSchemaCache compiles each distinct schema once: kubernetes' 1,400 tool
// schemas have fewer than 450 distinct texts, and compiling is the slow
// part of checking them.
type corpusSchemaCache struct {
	mu   sync.Mutex
	seen map[string]string // schema JSON → problem ("" when fine)
}

// check checks a schema as the client received it: an object schema that
// compiles with github.com/google/jsonschema-go (go-sdk's validator) and
// with santhosh-tekuri/jsonschema (mcpkit's argument validator).
func (c *corpusSchemaCache) check(t *testing.T, tool, which string, v any) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Errorf("%s: %s: %v", tool, which, err)
		return
	}
	c.mu.Lock()
	problem, ok := c.seen[string(raw)]
	c.mu.Unlock()
	if !ok {
		problem = corpusSchemaProblem(raw)
		c.mu.Lock()
		c.seen[string(raw)] = problem
		c.mu.Unlock()
	}
	if problem != "" {
		t.Errorf("%s: %s %s\nschema: %.300s", tool, which, problem, raw)
	}
}

// corpusSchemaProblem says what is wrong with a tool schema, or returns "".
func corpusSchemaProblem(raw []byte) string {
	var top map[string]any
	if err := json.Unmarshal(raw, &top); err != nil {
		return "is not a JSON object: " + err.Error()
	}
	if top["type"] != "object" {
		return fmt.Sprintf("has type %v, not object", top["type"])
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return "does not unmarshal as a jsonschema-go Schema: " + err.Error()
	}
	if _, err := s.Resolve(nil); err != nil {
		return "does not compile with jsonschema-go: " + err.Error()
	}
	if _, err := compileSanthosh(raw); err != nil {
		return "does not compile with santhosh-tekuri/jsonschema: " + err.Error()
	}
	return ""
}

// compileSanthosh compiles a self-contained tool schema the way mcpkit does.
func compileSanthosh(raw []byte) (*santhosh.Schema, error) {
	doc, err := santhosh.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	comp := santhosh.NewCompiler()
	comp.DefaultDraft(santhosh.Draft2020)
	comp.UseLoader(corpusNoLoader{})
	const url = "mem:///schema.json"
	if err := comp.AddResource(url, doc); err != nil {
		return nil, err
	}
	return comp.Compile(url)
}

type corpusNoLoader struct{}

func (corpusNoLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("a tool schema refers to %s outside itself", url)
}

// corpusFirstDiff describes where two byte slices first differ.
func corpusFirstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	line := 1 + bytes.Count(a[:i], []byte{'\n'})
	lo := max(i-40, 0)
	return "first difference at line " + strconv.Itoa(line) + ": " +
		strconv.Quote(string(a[lo:min(i+40, len(a))])) + " vs " + strconv.Quote(string(b[lo:min(i+40, len(b))]))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[%d lines before]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
