package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tailormcp/tailor/internal/testkit"
)

// The tests in this file drive a generated server with the official MCP
// Inspector CLI (npm @modelcontextprotocol/inspector, `--cli` mode) instead
// of the go-sdk client the other e2e tests use: a second, independent client
// implementation, and the tool most people will point at a tailor server
// first. scripts/install-inspector.sh installs it (with the Node 22 it
// needs) into .tools/; without it the test skips, unless
// TAILOR_REQUIRE_INSPECTOR=1 (CI) makes that a failure.

// inspectorAcceptedWarnings are the schema-portability rules of the
// Inspector's --strict mode that tailor's schemas knowingly trip, with why.
// Any other finding, and any error-severity finding, fails the test.
var inspectorAcceptedWarnings = map[string]string{
	// OpenAPI `nullable: true` becomes `"type": [T, "null"]`, the JSON Schema
	// spelling of the same contract, and output schemas admit null in every
	// field (APIs return null where their spec forgot nullable); the
	// Inspector suggests anyOf branches for dialects with a single `type`,
	// which would double those schemas' size.
	"type-union": "nullable fields, and every field of an output schema, are rendered as a type array",
	// `{}` where the spec allows any value there (FastAPI's `schema: {}`,
	// a parameter or property without a schema), and the placeholder of
	// a component beyond a schema's $defs budget. The Inspector suggests
	// the bare `true`, which means the same but which fewer clients and
	// validators accept than an object schema.
	"untyped-schema": "the spec allows any value there, or the component lies beyond the schema's $defs budget",
}

const inspectorAPIKey = "insp-k3y-value"

// inspectorBin returns the Inspector wrapper, skipping (or, with
// TAILOR_REQUIRE_INSPECTOR=1, failing) the test when it is not installed.
func inspectorBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("TAILOR_INSPECTOR")
	if bin == "" {
		bin = filepath.Join(testkit.RepoRoot(), ".tools", "bin", "mcp-inspector")
	}
	st, err := os.Stat(bin)
	if err == nil && (st.IsDir() || st.Mode()&0o111 == 0) {
		err = errors.New("not an executable file")
	}
	if err != nil {
		msg := fmt.Sprintf("MCP Inspector CLI not available at %s (%v): run scripts/install-inspector.sh, or set TAILOR_INSPECTOR to an mcp-inspector executable", bin, err)
		if os.Getenv("TAILOR_REQUIRE_INSPECTOR") == "1" {
			t.Fatal(msg + "; TAILOR_REQUIRE_INSPECTOR=1 requires it")
		}
		t.Skip(msg)
	}
	return bin
}

// inspectorRun is one finished `mcp-inspector --cli ... --format json` run.
type inspectorRun struct {
	args   []string
	code   int
	stdout []byte
	stderr string
	out    struct {
		Result         json.RawMessage `json:"result"`
		SchemaFindings []struct {
			ToolName string `json:"toolName"`
			Findings []struct {
				Rule, Severity, Schema, Path, Issue, Suggestion string
			} `json:"findings"`
		} `json:"schemaFindings"`
	}
}

func (r *inspectorRun) String() string {
	return fmt.Sprintf("mcp-inspector %s\nexit code %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// errorEnvelope is the one-line JSON the CLI writes last on stderr when it
// exits non-zero.
func (r *inspectorRun) errorEnvelope(t *testing.T) (code, message string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	var env struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &env); err != nil {
		t.Fatalf("last stderr line is not the error envelope: %v\n%s", err, r)
	}
	return env.Error.Code, env.Error.Message
}

// inspect runs the Inspector CLI on the server binary over stdio. The
// server gets the environment only through -e: the CLI starts it with a
// minimal environment of its own. The Inspector's own state (catalog, OAuth
// store, client config) is pointed into a temporary directory so that a run
// never reads or writes the developer's ~/.mcp-inspector.
func inspect(t *testing.T, inspector, server string, env []string, args ...string) *inspectorRun {
	t.Helper()
	// "--" ends the target command (the server, run with no arguments);
	// everything after it is the CLI's own options.
	full := []string{"--cli", server, "--"}
	for _, e := range env {
		full = append(full, "-e", e)
	}
	full = append(full, args...)
	return runInspector(t, inspector, full)
}

// runInspector runs the Inspector CLI with the arguments full (their
// output options added).
func runInspector(t *testing.T, inspector string, full []string) *inspectorRun {
	t.Helper()
	full = append(full, "--format", "json", "--connect-timeout", "30000")

	state := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, inspector, full...)
	cmd.Env = append(os.Environ(),
		"MCP_STORAGE_DIR="+state,
		"MCP_INSPECTOR_OAUTH_STATE_PATH="+filepath.Join(state, "oauth.json"),
		"MCP_CATALOG_PATH="+filepath.Join(state, "mcp.json"),
		"MCP_CLIENT_CONFIG_PATH="+filepath.Join(state, "client.json"),
		"MCP_AUTO_OPEN_ENABLED=false",
	)
	cmd.Stdin = nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	r := &inspectorRun{args: full, stdout: stdout.Bytes(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && ctx.Err() == nil:
		r.code = exit.ExitCode()
	default:
		t.Fatalf("running the Inspector: %v\n%s", err, r)
	}
	if len(bytes.TrimSpace(r.stdout)) > 0 {
		if err := json.Unmarshal(r.stdout, &r.out); err != nil {
			t.Fatalf("Inspector stdout is not one JSON object: %v\n%s", err, r)
		}
	}
	return r
}

// inspectorCallResult is a tools/call result as the Inspector prints it.
type inspectorCallResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func (r *inspectorRun) callResult(t *testing.T) inspectorCallResult {
	t.Helper()
	var res inspectorCallResult
	if err := json.Unmarshal(r.out.Result, &res); err != nil || r.out.Result == nil {
		t.Fatalf("no tools/call result (%v)\n%s", err, r)
	}
	return res
}

func (c inspectorCallResult) text() string {
	var parts []string
	for _, x := range c.Content {
		if x.Type == "text" {
			parts = append(parts, x.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("not JSON: %v: %s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	return reflect.DeepEqual(x, y)
}

// TestInspectorCLI lists and calls the shop server's tools with the MCP
// Inspector CLI over stdio, with --strict schema checks on tools/list.
func TestInspectorCLI(t *testing.T) {
	inspector := inspectorBin(t)
	if out, err := exec.Command(inspector, "--version").CombinedOutput(); err != nil {
		t.Fatalf("%s --version: %v\n%s", inspector, err, out)
	} else {
		t.Logf("MCP Inspector %s (%s)", strings.TrimSpace(string(out)), inspector)
	}

	m := testkit.NewModule(t)
	m.Generate(t, filepath.Join(testkit.RepoRoot(), "testdata", "e2e", "shop", "openapi.yaml"), "shop")
	server := m.Compile(t, "shop")["shop"]

	const order = `{"order_id":"5531","status":"open","total":1430,"note":null,"items":[{"line_item_id":"li_1","price":1200}]}`
	backend := testkit.NewBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/api/orders/5531":
			io.WriteString(w, order)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"code":"not_found","message":"no order with that number"}`)
		}
	})
	env := []string{"SHOP_BASE_URL=" + backend.URL + "/api", "SHOP_API_KEY=" + inspectorAPIKey}

	t.Run("tools/list --strict", func(t *testing.T) {
		r := inspect(t, inspector, server, env, "--method", "tools/list", "--strict")
		if r.code != 0 {
			t.Fatalf("tools/list --strict failed (exit 6 means an error-severity schema finding)\n%s", r)
		}
		var list struct {
			Tools []struct {
				Name         string         `json:"name"`
				InputSchema  map[string]any `json:"inputSchema"`
				OutputSchema map[string]any `json:"outputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(r.out.Result, &list); err != nil {
			t.Fatalf("tools/list result: %v\n%s", err, r)
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
			if tool.InputSchema["type"] != "object" {
				t.Errorf("tool %s: inputSchema type is %v, want object", tool.Name, tool.InputSchema["type"])
			}
			if tool.OutputSchema != nil && tool.OutputSchema["type"] != "object" {
				t.Errorf("tool %s: outputSchema type is %v, want object", tool.Name, tool.OutputSchema["type"])
			}
		}
		slices.Sort(names)
		want := []string{"add_tags", "create_order", "create_refund", "delete_order", "get_health", "get_order", "list_orders", "put_notes", "upload"}
		if !slices.Equal(names, want) {
			t.Errorf("tools:\n got %v\nwant %v", names, want)
		}

		// --strict reports findings both on stderr and, with --format json,
		// in the envelope; exit 0 already means none is an error.
		for _, tf := range r.out.SchemaFindings {
			for _, f := range tf.Findings {
				where := fmt.Sprintf("tool %s: %s.%s: [%s %s] %s", tf.ToolName, f.Schema, f.Path, f.Severity, f.Rule, f.Issue)
				if why, ok := inspectorAcceptedWarnings[f.Rule]; ok && f.Severity == "warning" {
					t.Logf("accepted portability warning (%s): %s", why, where)
					continue
				}
				t.Errorf("schema portability finding: %s\nsuggestion: %s", where, f.Suggestion)
			}
		}
	})

	t.Run("tools/call get_order", func(t *testing.T) {
		backend.Take()
		r := inspect(t, inspector, server, env, "--method", "tools/call", "--tool-name", "get_order", "--tool-args-json", `{"order_id":"5531"}`)
		if r.code != 0 {
			t.Fatalf("tools/call failed\n%s", r)
		}
		res := r.callResult(t)
		if res.IsError {
			t.Fatalf("isError is true\n%s", r)
		}
		if len(res.Content) != 1 || res.Content[0].Type != "text" || res.Content[0].Text != order {
			t.Errorf("content is not the backend's JSON as one text item:\n%s", r.out.Result)
		}
		if res.StructuredContent == nil || !jsonEqual(t, res.StructuredContent, []byte(order)) {
			t.Errorf("structuredContent = %s, want %s", res.StructuredContent, order)
		}
		reqs := backend.Take()
		if len(reqs) != 1 {
			t.Fatalf("backend received %d requests, want 1: %+v", len(reqs), reqs)
		}
		got := reqs[0]
		if got.Method != http.MethodGet || got.RawPath != "/api/orders/5531" || got.Query != "" {
			t.Errorf("backend received %s %s?%s, want GET /api/orders/5531", got.Method, got.RawPath, got.Query)
		}
		if k := got.Header.Get("X-Api-Key"); k != inspectorAPIKey {
			t.Errorf("X-Api-Key = %q, want %q", k, inspectorAPIKey)
		}
	})

	// The documented --tool-arg key=value form JSON-parses the value: a
	// quoted value is a string, but order_id=5531 sends the number 5531,
	// which the string-typed argument must reject before anything reaches
	// the API (or, should a later Inspector coerce by the schema, send as
	// the string).
	t.Run("tools/call --tool-arg", func(t *testing.T) {
		backend.Take()
		r := inspect(t, inspector, server, env, "--method", "tools/call", "--tool-name", "get_order", "--tool-arg", `order_id="5531"`)
		if r.code != 0 || r.callResult(t).IsError {
			t.Fatalf("tools/call with a quoted --tool-arg failed\n%s", r)
		}
		if got := backend.Last(t); got.RawPath != "/api/orders/5531" {
			t.Errorf("backend path = %s, want /api/orders/5531", got.RawPath)
		}

		backend.Take()
		r = inspect(t, inspector, server, env, "--method", "tools/call", "--tool-name", "get_order", "--tool-arg", "order_id=5531")
		reqs := backend.Take()
		if r.code == 0 {
			t.Logf("the Inspector sent order_id=5531 as a string")
			if len(reqs) != 1 || reqs[0].RawPath != "/api/orders/5531" {
				t.Errorf("backend received %+v, want one GET /api/orders/5531", reqs)
			}
			return
		}
		res := r.callResult(t)
		t.Logf("order_id=5531 sent as a number: exit %d, %q", r.code, res.text())
		if r.code != 5 || !res.IsError || !strings.Contains(res.text(), "order_id") || !strings.Contains(res.text(), "want string") {
			t.Errorf("a number for the string order_id should be a tool error naming the argument and its type\n%s", r)
		}
		if len(reqs) != 0 {
			t.Errorf("a number for the string order_id reached the backend: %+v", reqs)
		}
	})

	t.Run("tools/call get_order not found", func(t *testing.T) {
		backend.Take()
		r := inspect(t, inspector, server, env, "--method", "tools/call", "--tool-name", "get_order", "--tool-args-json", `{"order_id":"9999"}`)
		// isError:true still prints the result, and exits 5.
		if r.code != 5 {
			t.Fatalf("exit code %d, want 5 (tool error)\n%s", r.code, r)
		}
		res := r.callResult(t)
		if !res.IsError {
			t.Fatalf("isError is false for a 404\n%s", r)
		}
		text := res.text()
		for _, want := range []string{"Not found", "404", "no order with that number"} {
			if !strings.Contains(text, want) {
				t.Errorf("error text lacks %q:\n%s", want, text)
			}
		}
		t.Logf("the model reads: %s", text)
		if code, _ := r.errorEnvelope(t); code == "" {
			t.Errorf("the error envelope has no code\n%s", r)
		}
		if got := backend.Last(t); got.RawPath != "/api/orders/9999" || got.Header.Get("X-Api-Key") != inspectorAPIKey {
			t.Errorf("backend received %s with X-Api-Key %q", got.RawPath, got.Header.Get("X-Api-Key"))
		}
	})
}
