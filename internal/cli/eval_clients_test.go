package cli

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tailormcp/tailor/internal/review/eval/evaltest"
)

// With --client, the model sees the tools as that client shows them, and
// its calls reach the server's tools: Claude Code's mcp__SERVER__TOOL
// names on the Messages API, the OpenAI Agents SDK's strict flag on
// Chat Completions.
func TestEvalPresentsToolsAsTheClient(t *testing.T) {
	agent := &backofficeAgent{}
	var mu sync.Mutex
	names := map[string]bool{}
	strict := 0
	// The scripted model plays the back-office agent on the names it is
	// shown, prefix and all.
	model := evaltest.New(t, func(c *evaltest.Conversation) evaltest.Reply {
		prefix := ""
		mu.Lock()
		for i, tool := range c.Tools {
			names[tool.Name] = true
			if tool.Strict {
				strict++
			}
			if rest, ok := strings.CutPrefix(tool.Name, "mcp__"); ok {
				prefix = "mcp__" + rest[:strings.Index(rest, "__")+2]
			}
			c.Tools[i].Name = strings.TrimPrefix(tool.Name, prefix)
		}
		mu.Unlock()
		for i := range c.Messages {
			for j := range c.Messages[i].Calls {
				c.Messages[i].Calls[j].Name = strings.TrimPrefix(c.Messages[i].Calls[j].Name, prefix)
			}
		}
		r := agent.next(c)
		for i := range r.Calls {
			r.Calls[i].Name = prefix + r.Calls[i].Name
		}
		return r
	})
	args := evalCurated(t, model)
	args[len(args)-1] = "json"
	code, stdout, stderr := run(t, append(args, "--trials", "1", "--provider", "anthropic", "--base-url", model.URL, "--client", "claude-code", "--min-success", "1")...)
	if code != ExitOK {
		t.Fatalf("claude-code: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for name := range names {
		if !strings.HasPrefix(name, "mcp__backoffice__") {
			t.Errorf("claude-code shows %q", name)
		}
	}
	if !names["mcp__backoffice__refund_items"] {
		t.Errorf("no mcp__backoffice__refund_items among %v", names)
	}

	clear(names)
	code, stdout, stderr = run(t, append(args, "--trials", "1", "--client", "openai-agents", "--min-success", "1")...)
	if code != ExitOK || strict == 0 || !names["refund_items"] {
		t.Fatalf("openai-agents: exit %d, %d strict tools of %v\n%s\n%s", code, strict, names, stdout, stderr)
	}
}

// Bad input exits 2 before any model is asked: no key in the environment
// (keys are never read from files), a task file with errors at their
// file:line:col, a task judged on requests with no backend to record them.
func TestEvalBadInput(t *testing.T) {
	t.Chdir(filepath.Join(repoRoot, "examples", "backoffice"))
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")
	base := []string{"eval", "tasks.yaml", "--spec", "openapi.yaml", "--model", "m"}
	code, _, stderr := run(t, base...)
	if code != ExitUsage || !strings.Contains(stderr, "no API key: set ANTHROPIC_API_KEY in the environment (keys are never read from files)") {
		t.Errorf("without a key: exit %d\n%s", code, stderr)
	}
	t.Setenv("ANTHROPIC_API_KEY", "scripted")
	dir := t.TempDir()
	bad := filepath.Join(dir, "tasks.yaml")
	write(t, bad, "tailor-eval: 1\napi_key: sk-123\ntasks:\n  - {name: a, ask: b, success: {requests: [{method: POST, path: /x}]}}\n")
	code, _, stderr = run(t, "eval", bad, "--spec", "openapi.yaml", "--model", "m")
	if code != ExitUsage || !strings.Contains(stderr, bad+":2:1: error: unknown key `api_key`") {
		t.Errorf("a key in the file: exit %d\n%s", code, stderr)
	}
	write(t, bad, "tailor-eval: 1\ntasks:\n  - {name: a, ask: b, success: {requests: [{method: POST, path: /x}]}}\n")
	code, _, stderr = run(t, "eval", bad, "--spec", "openapi.yaml", "--model", "m", "--client", "cursor")
	if code != ExitUsage || !strings.Contains(stderr, "--client") {
		t.Errorf("an unknown client: exit %d\n%s", code, stderr)
	}
	code, _, stderr = run(t, "eval", bad, "--spec", "openapi.yaml", "--model", "m")
	if code != ExitUsage || !strings.Contains(stderr, bad+":3:44: error: task \"a\" is judged on the requests the backend receives, and target raw has no backend") {
		t.Errorf("no backend: exit %d\n%s", code, stderr)
	}
}
