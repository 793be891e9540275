package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/testkit"
	"github.com/tailormcp/tailor/internal/yamlwalk"
	"github.com/tailormcp/tailor/scenarios"
)

const repoRoot = "../../.."

func compileSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(scenarios.Schema))
	if err != nil {
		t.Fatalf("scenario.schema.json is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(scenarios.SchemaID, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(scenarios.SchemaID)
	if err != nil {
		t.Fatalf("scenario.schema.json does not compile: %v", err)
	}
	return s
}

func validate(s *jsonschema.Schema, data []byte) error {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return err
	}
	return s.Validate(yamlwalk.JSONable(v))
}

// scenarioFiles are the repository's scenario files, and whether each is
// valid (the testdata/cases/test-* cases whose stderr is about the file's
// shape are not).
func scenarioFiles(t *testing.T) map[string]bool {
	t.Helper()
	files := map[string]bool{
		filepath.Join(repoRoot, "examples", "backoffice", "scenarios.yaml"): true,
		filepath.Join("testdata", "every-key.yaml"):                         true,
	}
	cases, err := filepath.Glob(filepath.Join(repoRoot, "testdata", "cases", "test-*", "scenarios.yaml"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no scenario cases: %v", err)
	}
	for _, c := range cases {
		stderr, _ := os.ReadFile(filepath.Join(filepath.Dir(c), "stderr"))
		// Problems of the file are reported at its lines; unknown tools are
		// found when the servers run, not in the file.
		files[c] = !bytes.Contains(stderr, []byte("scenarios.yaml:")) || bytes.Contains(stderr, []byte("unknown tool"))
	}
	return files
}

// The schema and the parser agree on every file in the repository: both
// accept the valid ones and both refuse the others.
func TestSchemaAgreesWithParse(t *testing.T) {
	s := compileSchema(t)
	for path, valid := range scenarioFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, perr := Parse(path, data)
		serr := validate(s, data)
		if valid && (perr != nil || serr != nil) {
			t.Errorf("%s should be valid:\nparser: %v\nschema: %v", path, perr, serr)
		}
		if !valid && (perr == nil || serr == nil) {
			t.Errorf("%s should be refused by both:\nparser: %v\nschema: %v", path, perr, serr)
		}
	}
}

// Every key the parser knows is in the schema and every key in the schema
// is used by every-key.yaml, which the parser reads without error: neither
// knows a key the other does not.
func TestSchemaKnowsEveryKey(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "every-key.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	if _, err := parse("every-key.yaml", data, keys); err != nil {
		t.Fatal(err)
	}
	inSchema := testkit.SchemaKeys(t, scenarios.Schema)
	var missing, unused []string
	for k := range keys {
		if !inSchema[k] {
			missing = append(missing, k)
		}
	}
	var doc yaml.Node
	yaml.Unmarshal(data, &doc)
	used := map[string]bool{}
	var keysOf func(n *yaml.Node)
	keysOf = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i < len(n.Content); i += 2 {
				used[n.Content[i].Value] = true
			}
		}
		for _, c := range n.Content {
			keysOf(c)
		}
	}
	keysOf(&doc)
	for k := range inSchema {
		if !used[k] {
			unused = append(unused, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(unused)
	if len(missing) > 0 {
		t.Errorf("the parser knows keys the schema does not describe: %v", missing)
	}
	if len(unused) > 0 {
		t.Errorf("every-key.yaml does not use these keys of the schema: %v", unused)
	}
}

// Positions point at the value at fault, and every problem of a file is
// reported in one run.
func TestParsePositions(t *testing.T) {
	src := "tailor-test: 1\nscenarios:\n  - name: a\n    calls:\n      - call: t\n        expect: {is_error: maybe}\n      - {call: u, args: {x: \"{{.nope}}\"}}\n"
	_, err := Parse("s.yaml", []byte(src))
	var de *diag.Errors
	if !errors.As(err, &de) || len(de.List) != 2 {
		t.Fatalf("want 2 errors, got %v", err)
	}
	for i, want := range []string{"s.yaml:6:28: error: is_error must be true or false", "s.yaml:7:29: error: `{{.nope}}` refers to a value no earlier call saves"} {
		if got := de.List[i].String(); !strings.HasPrefix(got, want) {
			t.Errorf("error %d: %s, want %s…", i, got, want)
		}
	}
}

// A saved value keeps its JSON type where a string is exactly one
// reference, and becomes text elsewhere.
func TestSubstitute(t *testing.T) {
	saved := map[string]any{"n": 230.0, "ids": []any{"a"}, "q": "q_1"}
	got := substitute(map[string]any{"amount": "{{.n}}", "ids": "{{ .ids }}", "note": "quote {{.q}} of {{.n}}", "list": []any{"{{.q}}"}}, saved)
	b, _ := json.Marshal(got)
	if want := `{"amount":230,"ids":["a"],"list":["q_1"],"note":"quote q_1 of 230"}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// FuzzParse: whatever a file holds, Parse returns a file or positioned
// errors, never panics.
func FuzzParse(f *testing.F) {
	for _, p := range []string{filepath.Join("testdata", "every-key.yaml"), filepath.Join(repoRoot, "testdata", "cases", "test-many-problems", "scenarios.yaml"), filepath.Join(repoRoot, "testdata", "cases", "test-wrong-type", "scenarios.yaml")} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("tailor-test: 1\nscenarios: [{name: x, calls: [{call: t, save: {a: {match: \"(\"}}}]}]\n"))
	f.Add([]byte("&a [*a]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("f.yaml", data)
		if err != nil {
			var de *diag.Errors
			if errors.As(err, &de) {
				for _, d := range de.List {
					if d.Pos.File != "f.yaml" {
						t.Fatalf("an error without the file: %s", d)
					}
				}
			}
			return
		}
		for _, sc := range file.Scenarios {
			for _, c := range sc.Calls {
				if c.Tool == "" {
					t.Fatalf("a call without a tool was accepted: %s", data)
				}
			}
		}
	})
}

// A request shown in a failure hides credentials; a scenario can still
// check them.
func TestFailuresHideSecrets(t *testing.T) {
	h := http.Header{}
	h.Set("Authorization", "Bearer sekrit-token")
	h.Set("X-Api-Key", "sekrit-key")
	h.Set("Idempotency-Key", "q_1")
	got := describeRequest(Request{Method: "POST", Path: "/x", Header: h, Body: []byte(`{"client_secret":"sekrit-s","items":[{"api_token":"sekrit-t","n":1}]}`)})
	if strings.Contains(got, "sekrit") || !strings.Contains(got, `"n":1`) || !strings.Contains(got, "Idempotency-Key: q_1") || !strings.Contains(got, "Authorization: (hidden)") {
		t.Errorf("shown: %s", got)
	}
	var failures []string
	k := &checker{fail: func(_ diag.Pos, what string, got ...string) { failures = append(failures, what) }}
	m := &RequestMatch{Headers: []NamedCond{{Name: "Authorization", Cond: Cond{Equals: "Bearer other", HasEquals: true}}, {Name: "X-Api-Key", Cond: Cond{Matches: &Str{S: "^x"}}}}}
	k.request(m, Request{Method: "GET", Path: "/x", Header: h}, 1, nil)
	if len(failures) != 2 || strings.Contains(strings.Join(failures, "\n"), "sekrit") || !strings.Contains(failures[0], `want "Bearer other"`) {
		t.Errorf("failures: %q", failures)
	}
}
