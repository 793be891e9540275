package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/testkit"
)

// inspectorWild is the sample of wild specs the Inspector checks: Swagger
// 2.0, multi-file, 3.1, and real specs' defect classes (no operationIds,
// a placeholder declared as a query parameter, an apiKey cookie).
var inspectorWild = []string{
	"prometheus-alertmanager-2.0", // Swagger 2.0, go-swagger
	"firecracker-2.0",             // Swagger 2.0, host localhost, PUT bodies
	"train-travel-3.1",            // multi-file 3.1 (webhooks, links, a $ref'd extension)
	"frigate-3.1",                 // 3.1 FastAPI: anyOf with null, apiKey in a cookie
	"sonarr-3.0",                  // no operationIds at all; a path parameter on /
	"intercom-3.0",                // {job_identifier} declared as a query parameter
}

// TestInspectorWild runs the official Inspector CLI on servers generated from
// real, unmodified specs: tools/list in --strict mode (every finding fixed
// or accepted by name in inspectorAcceptedWarnings, with the reason), and
// a tools/call of a read-only tool against a loopback backend that answers
// with a shape the spec does not describe, which the Inspector's client
// must accept.
func TestInspectorWild(t *testing.T) {
	inspector := inspectorBin(t)
	dir := testkit.CorpusDir()
	if dir == "" {
		t.Skip("corpus not found beside the repository (../shared/corpus)")
	}
	all, err := testkit.CorpusSpecs(dir)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]testkit.CorpusSpec{}
	for _, s := range all {
		byName[s.Name] = s
	}
	m := testkit.NewModule(t)
	results := map[string]*testkit.Generated{}
	var pkgs []string
	for _, name := range inspectorWild {
		s, ok := byName[name]
		if !ok {
			t.Fatalf("%s is not in the corpus", name)
		}
		results[name] = m.Generate(t, s.Path, s.Pkg())
		pkgs = append(pkgs, s.Pkg())
	}
	bins := m.Compile(t, pkgs...)

	backend := testkit.NewBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"1","unexpected":{"nested":[1,"two",null]},"count":"3"}`)
	})
	for _, name := range inspectorWild {
		s, res := byName[name], results[name]
		t.Run(name, func(t *testing.T) {
			env := []string{strings.ToUpper(s.Pkg()) + "_BASE_URL=" + backend.URL}
			for _, sc := range res.Curated.Security {
				env = append(env, sc.Env+"=insp-secret-"+strings.ToLower(sc.Name))
				if sc.EnvUser != "" {
					env = append(env, sc.EnvUser+"=insp-user")
				}
			}
			bin := bins[s.Pkg()]

			r := inspect(t, inspector, bin, env, "--method", "tools/list", "--strict")
			if r.code != 0 {
				t.Fatalf("tools/list --strict failed (exit 6 means an error-severity schema finding)\n%s", lastLines(r.String(), 40))
			}
			var list struct {
				Tools []struct{ Name string } `json:"tools"`
			}
			if err := json.Unmarshal(r.out.Result, &list); err != nil {
				t.Fatalf("tools/list result: %v", err)
			}
			if len(list.Tools) != s.Ops {
				t.Errorf("the Inspector lists %d tools; the spec has %d operations", len(list.Tools), s.Ops)
			}
			inspectorFindings(t, r)

			tool, args := readOnlyCall(res.Curated)
			if tool == nil {
				t.Fatalf("no read-only tool with arguments the test can fill")
			}
			raw, _ := json.Marshal(args)
			backend.Take()
			r = inspect(t, inspector, bin, env, "--method", "tools/call", "--tool-name", tool.Name, "--tool-args-json", string(raw))
			if r.code != 0 {
				t.Fatalf("tools/call %s %s: the Inspector did not accept the result\n%s", tool.Name, raw, lastLines(r.String(), 40))
			}
			cr := r.callResult(t)
			if cr.IsError {
				t.Fatalf("tools/call %s: isError\n%s", tool.Name, cr.text())
			}
			if tool.OutputSchema != nil && cr.StructuredContent == nil {
				t.Errorf("tools/call %s: no structuredContent though the tool has an outputSchema", tool.Name)
			}
			if !strings.Contains(cr.text(), `"unexpected"`) {
				t.Errorf("the model does not read the whole response:\n%s", cr.text())
			}
			reqs := backend.Take()
			if len(reqs) != 1 || reqs[0].Method != tool.Call.Method {
				t.Errorf("backend received %+v, want one %s", reqs, tool.Call.Method)
			}
			t.Logf("called %s %s → %s %s", tool.Name, raw, reqs[0].Method, reqs[0].RawPath)
		})
	}
}

// inspectorFindings fails on every --strict finding that is not a warning
// accepted by name in inspectorAcceptedWarnings.
func inspectorFindings(t *testing.T, r *inspectorRun) {
	t.Helper()
	accepted := map[string]int{}
	for _, tf := range r.out.SchemaFindings {
		for _, f := range tf.Findings {
			if _, ok := inspectorAcceptedWarnings[f.Rule]; ok && f.Severity == "warning" {
				accepted[f.Rule]++
				continue
			}
			t.Errorf("schema portability finding: tool %s: %s.%s: [%s %s] %s\nsuggestion: %s", tf.ToolName, f.Schema, f.Path, f.Severity, f.Rule, f.Issue, f.Suggestion)
		}
	}
	rules := make([]string, 0, len(accepted))
	for rule := range accepted {
		rules = append(rules, rule)
	}
	sort.Strings(rules)
	for _, rule := range rules {
		t.Logf("accepted %d %q warnings: %s", accepted[rule], rule, inspectorAcceptedWarnings[rule])
	}
}

// readOnlyCall picks the first read-only tool (by name) whose required
// arguments are scalars it can fill, and fills them.
func readOnlyCall(api *ir.API) (*ir.Tool, map[string]any) {
	tools := append([]*ir.Tool(nil), api.Tools...)
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	for _, tool := range tools {
		if !tool.Annotations.ReadOnly || tool.Call == nil || tool.Call.Method != http.MethodGet {
			continue
		}
		var in struct {
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		}
		if json.Unmarshal(tool.InputSchema, &in) != nil {
			continue
		}
		args := map[string]any{}
		ok := true
		for _, name := range in.Required {
			v, fits := sampleValue(in.Properties[name])
			if !fits {
				ok = false
				break
			}
			args[name] = v
		}
		if ok {
			return tool, args
		}
	}
	return nil, nil
}

// sampleValue is a value a simple scalar schema accepts.
func sampleValue(s map[string]any) (any, bool) {
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[0], true
	}
	t := fmt.Sprint(s["type"])
	switch {
	case t == "string":
		if _, patterned := s["pattern"]; patterned {
			return nil, false
		}
		// A client that checks formats (Gemini CLI does) refuses "1"
		// where the schema names one.
		switch s["format"] {
		case "uuid":
			return "00000000-0000-4000-8000-000000000001", true
		case "date":
			return "2026-01-02", true
		case "date-time":
			return "2026-01-02T03:04:05Z", true
		case "email":
			return "a@example.com", true
		case "uri", "url":
			return "https://example.com/1", true
		}
		return "1", true
	case t == "integer" || t == "number":
		return 1, true
	case t == "boolean":
		return true, true
	}
	return nil, false
}

// TestInspectorAcceptsDriftedShapes: the Inspector's own client validates
// structuredContent against the outputSchema it listed and rejects the
// whole call when it does not fit; every response shape of driftedShapes
// (extra and missing fields, null, an object for an array, a string for a
// number, no JSON at all: an error result) must come through.
func TestInspectorAcceptsDriftedShapes(t *testing.T) {
	inspector := inspectorBin(t)
	bin := goldenServers("output-schemas", "shapes")[0].bin(t)
	backend := testkit.NewBackend(t, nil)
	env := []string{"SHAPES_BASE_URL=" + backend.URL}
	for _, c := range driftedShapes {
		t.Run(c.name, func(t *testing.T) {
			backend.Handle(c.reply())
			args, _ := json.Marshal(c.args)
			if c.args == nil {
				args = []byte("{}")
			}
			r := inspect(t, inspector, bin, env, "--method", "tools/call", "--tool-name", c.tool, "--tool-args-json", string(args))
			// An isError result is printed whole and exits 5 (tool error);
			// a result the Inspector rejects exits otherwise.
			if want := map[bool]int{false: 0, true: 5}[c.refused != ""]; r.code != want {
				t.Fatalf("exit code %d, want %d: the Inspector rejected the result\n%s", r.code, want, lastLines(r.String(), 30))
			}
			res := r.callResult(t)
			if c.refused != "" {
				if !res.IsError || !strings.Contains(res.text(), c.refused) {
					t.Errorf("isError=%v text=%q; want an error saying %q", res.IsError, res.text(), c.refused)
				}
				return
			}
			if res.IsError || res.StructuredContent == nil || !strings.Contains(res.text(), c.inText) {
				t.Errorf("isError=%v structuredContent=%s text=%q", res.IsError, res.StructuredContent, res.text())
			}
		})
	}
}
