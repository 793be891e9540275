package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/format"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	santhosh "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/generator/load"
	"github.com/tailormcp/tailor/generator/render"
	"github.com/tailormcp/tailor/internal/testkit"
)

// corpusOps are the operation counts the corpus README documents; the test
// also counts operations itself from the loaded document, and both must
// agree with the number of tools the server lists.
var corpusOps = map[string]int{
	"petstore":             3,
	"petstore_expanded":    4,
	"api_with_examples":    2,
	"uspto":                3,
	"link_example":         6,
	"callback_example":     1, // callbacks are not tools
	"webhook_example_31":   0, // webhooks only: a server with no tools
	"non_oauth_scopes_31":  1,
	"uber_v2":              5,
	"petstore_minimal_v2":  1,
	"petstore_separate_v2": 4,
	"discourse_31":         93,
	"stripe":               468,
	"kubernetes_v2":        738,
}

type corpusSpec struct {
	pkg     string // Go package name, also the binary and env prefix
	path    string
	refRoot string // the folder its $refs may read below, when not its own
}

// corpusSpecs lists every top-level *.yaml / *.json of the corpus plus the
// multi-file petstore-separate-v2 spec, in a stable order.
func corpusSpecs(t *testing.T, dir string) []corpusSpec {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var specs []corpusSpec
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".yaml" && ext != ".json") {
			continue
		}
		specs = append(specs, corpusSpec{pkg: corpusPkgName(strings.TrimSuffix(e.Name(), ext)), path: filepath.Join(dir, e.Name())})
	}
	specs = append(specs, corpusSpec{pkg: "petstore_separate_v2", path: filepath.Join(dir, "petstore-separate-v2", "spec", "swagger.yaml"),
		refRoot: filepath.Join(dir, "petstore-separate-v2")})
	sort.Slice(specs, func(i, j int) bool { return specs[i].pkg < specs[j].pkg })
	seen := map[string]bool{}
	for _, s := range specs {
		if seen[s.pkg] {
			t.Fatalf("two corpus specs map to package %s", s.pkg)
		}
		seen[s.pkg] = true
	}
	return specs
}

var corpusNonIdent = regexp.MustCompile(`[^a-z0-9]+`)

// corpusPkgName turns a file name into a Go package name: "discourse-31" →
// "discourse_31".
func corpusPkgName(base string) string {
	n := strings.Trim(corpusNonIdent.ReplaceAllString(strings.ToLower(base), "_"), "_")
	if n == "" || n[0] >= '0' && n[0] <= '9' {
		n = "spec_" + n
	}
	if token.IsKeyword(n) || n == "main" {
		n += "_spec"
	}
	return n
}

// corpusCountOperations counts (path, method) pairs under `paths` for the eight
// methods OpenAPI defines, from the loaded document.
func corpusCountOperations(t *testing.T, path, refRoot string) int {
	t.Helper()
	spec, err := load.Load(path, load.Options{SkipValidation: true, RefRoot: refRoot})
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	if spec.Doc.Paths == nil {
		return 0
	}
	n := 0
	for _, item := range spec.Doc.Paths.Map() {
		if item == nil {
			continue
		}
		for _, op := range []*openapi3.Operation{item.Get, item.Put, item.Post, item.Delete, item.Options, item.Head, item.Patch, item.Trace} {
			if op != nil {
				n++
			}
		}
	}
	return n
}

var corpusToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// TestCorpus generates a server for every real-world spec of the corpus into
// one module, checks the generated files, builds and vets them all at once,
// then starts each server and checks the tools it lists.
func TestCorpus(t *testing.T) {
	dir := testkit.CorpusDir()
	if dir == "" {
		t.Skip("corpus not found beside the repository (../shared/corpus)")
	}
	specs := corpusSpecs(t, dir)
	m := testkit.NewModule(t)

	phase := time.Now()
	lap := func(what string) {
		t.Logf("%s: %s", what, time.Since(phase).Round(10*time.Millisecond))
		phase = time.Now()
	}

	// Generate each spec twice, concurrently (the runs are independent, and
	// stripe alone takes seconds), write the first, check its files and that
	// the second is byte for byte the same. Count the operations meanwhile.
	var mu sync.Mutex
	ops := map[string]int{}
	t.Run("generate", func(t *testing.T) {
		for _, s := range specs {
			t.Run(s.pkg, func(t *testing.T) {
				t.Parallel()
				tweak := func(o *generator.Options) { o.EnvPrefix, o.RefRoot = strings.ToUpper(s.pkg), s.refRoot }
				opts := generator.Options{SpecPath: s.path, OutDir: filepath.Join(m.Dir, s.pkg), Package: s.pkg, Main: true,
					ImportPath: m.Path + "/" + s.pkg, Name: s.pkg}
				tweak(&opts)
				var again *generator.Result
				var againErr error
				done := make(chan struct{})
				go func() {
					defer close(done)
					again, againErr = generator.Generate(opts)
				}()
				defer func() { <-done }() // also when m.Generate fails the test
				start := time.Now()
				res := m.Generate(t, s.path, s.pkg, tweak)
				elapsed := time.Since(start)
				<-done
				if againErr != nil {
					t.Fatalf("second generation failed: %v", againErr)
				}
				corpusCheckFiles(t, res.Files)
				if len(again.Files) != len(res.Files) {
					t.Fatalf("second generation made %d files, the first %d", len(again.Files), len(res.Files))
				}
				size := 0
				for i, f := range res.Files {
					size += len(f.Content)
					if g := again.Files[i]; g.Path != f.Path || !bytes.Equal(g.Content, f.Content) {
						t.Errorf("generation is not deterministic: %s differs between two runs (%s)", f.Path, corpusFirstDiff(f.Content, g.Content))
					}
				}
				t.Logf("%d tools, %d warnings, %d KB of Go, generated in %s", len(res.API.Tools), len(res.Warnings), size>>10, elapsed.Round(time.Millisecond))

				n := corpusCountOperations(t, s.path, s.refRoot)
				if want, ok := corpusOps[s.pkg]; ok && n != want {
					t.Errorf("counted %d operations in %s; the corpus README says %d", n, s.path, want)
				}
				mu.Lock()
				ops[s.pkg] = n
				mu.Unlock()
			})
		}
	})
	lap("generate (twice per spec)")
	if t.Failed() {
		t.FailNow()
	}

	pkgs := make([]string, len(specs))
	for i, s := range specs {
		pkgs[i] = s.pkg
	}
	bins := m.Build(t, pkgs...)
	lap("go build")
	m.Go(t, "vet", "./...")
	lap("go vet")

	schemas := &corpusSchemaCache{seen: map[string]string{}}
	t.Run("serve", func(t *testing.T) {
		for _, s := range specs {
			t.Run(s.pkg, func(t *testing.T) {
				t.Parallel()
				srv := testkit.StartStdio(t, bins[s.pkg], []string{strings.ToUpper(s.pkg) + "_BASE_URL=http://127.0.0.1:1"})
				tools := corpusListTools(t, srv)
				if want := ops[s.pkg]; len(tools) != want {
					t.Errorf("server lists %d tools; the spec has %d operations", len(tools), want)
				}
				corpusCheckTools(t, schemas, tools)
			})
		}
	})
	lap("serve, list tools and compile schemas")
}

// corpusCheckFiles checks every generated file is gofmt-clean and carries the
// generated-code header.
func corpusCheckFiles(t *testing.T, files []render.File) {
	t.Helper()
	if len(files) == 0 {
		t.Fatal("no files generated")
	}
	for _, f := range files {
		if !bytes.HasPrefix(f.Content, []byte("// Code generated by tailor")) {
			t.Errorf("%s does not start with the generated-code header: %.80q", f.Path, f.Content)
		}
		formatted, err := format.Source(f.Content)
		if err != nil {
			t.Errorf("%s does not parse: %v", f.Path, err)
			continue
		}
		if !bytes.Equal(formatted, f.Content) {
			t.Errorf("%s is not gofmt-clean (%s)", f.Path, corpusFirstDiff(f.Content, formatted))
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
	doc, err := santhosh.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err.Error()
	}
	comp := santhosh.NewCompiler()
	comp.DefaultDraft(santhosh.Draft2020)
	comp.UseLoader(corpusNoLoader{})
	const url = "mem:///schema.json"
	if err := comp.AddResource(url, doc); err != nil {
		return err.Error()
	}
	if _, err := comp.Compile(url); err != nil {
		return "does not compile with santhosh-tekuri/jsonschema: " + err.Error()
	}
	return ""
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
