package e2e

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailormcp/tailor/internal/testkit"
)

// dotSpec has paths with dot segments, as written and percent-encoded,
// beside one that is fine.
const dotSpec = `openapi: 3.0.3
info: {title: Dots, version: "1"}
servers: [{url: "https://api.example.com/base"}]
paths:
  /items/{id}:
    get:
      operationId: getItem
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /public/../admin/{id}:
    delete:
      operationId: deleteAdmin
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"204": {description: ok}}
  /files/%2e%2E/secret:
    get:
      operationId: getSecret
      responses: {"200": {description: ok}}
`

// TestSpecDotSegments: a spec path with a dot segment would send a call
// outside the resource it names (servers and proxies resolve
// /base/public/../admin to /base/admin, %2e%2E too). tailor serve refuses
// to start on it, saying where each such path is in the spec, and sends
// nothing; tailor lint fails on it the same way. An overlay that leaves
// those operations out serves the rest, and a call reaches the backend
// under its base path as the spec names it.
func TestSpecDotSegments(t *testing.T) {
	bin := tailorBinary(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "openapi.yaml")
	if err := os.WriteFile(spec, []byte(dotSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	backend := testkit.NewBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"7"}`))
	})
	env := []string{"DOTS_BASE_URL=" + backend.URL + "/base", "TAILOR_CACHE=off"}
	wantErrors := []string{
		`openapi.yaml:10:3: error: spec path "/public/../admin/{id}" has the dot segment ".." (tool delete_admin)`,
		`openapi.yaml:15:3: error: spec path "/files/%2e%2E/secret" has the dot segment "%2e%2E" (tool get_secret)`,
	}
	run := func(args ...string) (string, int) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("tailor %s: %v", strings.Join(args, " "), err)
		}
		return string(out), cmd.ProcessState.ExitCode()
	}
	for _, args := range [][]string{{"serve", "--spec", "openapi.yaml", "--name", "dots"}, {"lint", "--spec", "openapi.yaml"}} {
		out, code := run(args...)
		if code != 1 {
			t.Errorf("tailor %s: exit %d, want 1:\n%s", args[0], code, out)
		}
		for _, want := range wantErrors {
			if !strings.Contains(out, want) {
				t.Errorf("tailor %s does not say %q:\n%s", args[0], want, out)
			}
		}
	}
	if got := backend.Take(); len(got) != 0 {
		t.Errorf("the backend received %d requests from a refused server", len(got))
	}

	overlay := filepath.Join(dir, "overlay.yaml")
	if err := os.WriteFile(overlay, []byte("tailor: 1\ninclude: all\nexclude:\n  - operation: deleteAdmin\n  - operation: \"GET /files/%2e%2E/secret\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := testkit.StartStdio(t, bin, env, "serve", "--spec", spec, "--overlay", overlay, "--name", "dots")
	tools, err := srv.Session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != "get_item" {
		t.Fatalf("tools %+v, want get_item alone", tools.Tools)
	}
	if res := srv.Call(t, "get_item", map[string]any{"id": "7"}); res.IsError {
		t.Fatalf("get_item: %s", testkit.Text(res))
	}
	got := backend.Take()
	if len(got) != 1 || got[0].Method != "GET" || got[0].RawPath != "/base/items/7" {
		t.Errorf("the backend received %+v, want GET /base/items/7", got)
	}
}
