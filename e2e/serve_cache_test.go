package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/testkit"
)

// TestServeFromCache: tailor serve on a spec split over files, started
// twice with the same inputs. The second start is served from the
// tool-set cache (the entry is read, not rewritten),
// and it is the same server: the same tools/list, the same warnings on
// stderr, the same requests to the backend and the same results. An edit
// of a file a $ref reads is served at the next start.
func TestServeFromCache(t *testing.T) {
	bin := tailorBinary(t)
	dir := t.TempDir()
	src := filepath.Join(testkit.RepoRoot(), "testdata", "e2e", "multifile")
	for _, f := range []string{"openapi.yaml", "overlay.yaml", "paths/pet.yaml", "schemas/pet.yaml"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	backend := testkit.NewBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/pets/p1":
			w.Write([]byte(`{"id":"p1","name":"Rex","size":3,"kind":"dog"}`))
		case "/pets":
			w.Write([]byte(`[{"id":"p1","name":"Rex"},{"id":"p2","name":"Tom"}]`))
		default:
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"code":"gone"}`))
		}
	})
	cacheDir := t.TempDir()
	env := []string{"TAILOR_CACHE=" + cacheDir, "SHELTER_BASE_URL=" + backend.URL}

	type run struct {
		list, results, requests string
		warnings                []string
	}
	start := func() run {
		t.Helper()
		srv := testkit.StartStdio(t, bin, env, "serve", "--spec", filepath.Join(dir, "openapi.yaml"), "--overlay", filepath.Join(dir, "overlay.yaml"))
		tools, err := srv.Session.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		list, _ := json.Marshal(tools)
		var results []string
		for _, call := range []struct {
			tool string
			args map[string]any
		}{
			{"find_pet", map[string]any{"id": "p1"}},
			{"find_pet", map[string]any{"id": "p2"}},
			{"list_pets", map[string]any{"limit": 2}},
		} {
			res := srv.Call(t, call.tool, call.args)
			b, _ := json.Marshal(map[string]any{"error": res.IsError, "text": testkit.Text(res), "structured": testkit.Structured(res)})
			results = append(results, string(b))
		}
		var requests []string
		for _, r := range backend.Take() {
			requests = append(requests, r.Method+" "+r.RawPath+"?"+r.Query+" "+r.Body)
		}
		stderr := srv.WaitStderr(t, "the warnings", func(s string) bool { return strings.Contains(s, "warning:") })
		var warnings []string
		for _, line := range strings.Split(stderr, "\n") {
			if strings.Contains(line, ": warning: ") {
				warnings = append(warnings, line)
			}
		}
		srv.Session.Close()
		return run{string(list), strings.Join(results, "\n"), strings.Join(requests, "\n"), warnings}
	}
	entry := func() os.FileInfo {
		t.Helper()
		files, _ := filepath.Glob(filepath.Join(cacheDir, "serve", "*.entry"))
		if len(files) != 1 {
			t.Fatalf("tool-set cache entries: %v, want one", files)
		}
		st, err := os.Stat(files[0])
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	cold := start()
	if !strings.Contains(cold.results, "Rex (p1).") || !strings.Contains(cold.results, "Pet p2 has left the shelter.") || !strings.Contains(cold.requests, "GET /pets?limit=2") {
		t.Fatalf("the cold start's calls:\n%s\n%s", cold.results, cold.requests)
	}
	if len(cold.warnings) < 2 || !strings.Contains(strings.Join(cold.warnings, "\n"), filepath.Join("paths", "pet.yaml")+":") {
		t.Fatalf("the cold start's warnings (want some in paths/pet.yaml): %q", cold.warnings)
	}
	written := entry()

	cached := start()
	if read := entry(); !os.SameFile(read, written) {
		t.Error("the second start rewrote the entry: it was a miss")
	}
	eq(t, "tools/list, cached start", cached.list, cold.list)
	eq(t, "results, cached start", cached.results, cold.results)
	eq(t, "backend requests, cached start", cached.requests, cold.requests)
	eq(t, "warnings, cached start", strings.Join(cached.warnings, "\n"), strings.Join(cold.warnings, "\n"))

	// An edit two $refs deep is served at the next start.
	pet := filepath.Join(dir, "schemas", "pet.yaml")
	data, _ := os.ReadFile(pet)
	os.WriteFile(pet, []byte(strings.Replace(string(data), "    size:", "    age:\n      type: integer\n    size:", 1)), 0o644)
	edited := start()
	if rewritten := !os.SameFile(entry(), written); !rewritten || !strings.Contains(edited.list, `"age":`) {
		t.Errorf("after editing schemas/pet.yaml: entry rewritten %v, tools/list:\n%s", rewritten, edited.list)
	}
}
