package mcpkit

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// filterLines runs the stdio filter over input and returns the frames it
// forwards and the error responses it writes.
func filterLines(input []byte) (forwarded, replies []string) {
	var fwd, out bytes.Buffer
	w := &frameWriter{w: &out}
	f := &frameFilter{reply: w.reply, forward: &fwd, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	f.run(bytes.NewReader(input))
	split := func(s string) []string {
		var l []string
		for _, x := range strings.Split(s, "\n") {
			if x != "" {
				l = append(l, x)
			}
		}
		return l
	}
	return split(fwd.String()), split(out.String())
}

var hostileFrames = []struct {
	name, line string
	code       int64
	id         string
}{
	{"garbage", `this is not json`, jsonrpc.CodeParseError, "null"},
	{"truncated", `{"jsonrpc":"2.0","id":1,"method":"tools/list"`, jsonrpc.CodeParseError, "null"},
	{"wrong version", `{"jsonrpc":"1.0","id":7,"method":"tools/list"}`, jsonrpc.CodeInvalidRequest, "7"},
	{"no version", `{"id":"a","method":"tools/list"}`, jsonrpc.CodeInvalidRequest, `"a"`},
	{"deep", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}}}`, jsonrpc.CodeInvalidRequest, "3"},
	{"deep garbage", strings.Repeat("[", 5000), jsonrpc.CodeParseError, "null"},
	{"not an object", `42`, jsonrpc.CodeInvalidRequest, "null"},
	{"empty batch", `[]`, jsonrpc.CodeInvalidRequest, "null"},
	{"object id", `{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
}

func TestStdioFilterAnswersMalformedFrames(t *testing.T) {
	for _, c := range hostileFrames {
		t.Run(c.name, func(t *testing.T) {
			fwd, replies := filterLines([]byte(c.line + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"))
			if len(fwd) != 1 || !strings.Contains(fwd[0], `"ping"`) {
				t.Fatalf("forwarded %q, want only the ping after it", fwd)
			}
			if len(replies) != 1 {
				t.Fatalf("replies %q", replies)
			}
			var r struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   jsonrpc.Error   `json:"error"`
			}
			if err := json.Unmarshal([]byte(replies[0]), &r); err != nil {
				t.Fatal(err)
			}
			if r.JSONRPC != "2.0" || r.Error.Code != c.code || string(r.ID) != c.id {
				t.Fatalf("reply %s, want code %d and id %s", replies[0], c.code, c.id)
			}
		})
	}
}

func TestStdioFilterLongLineAndBatches(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", maxFrameBytes) + `"}}`
	fwd, replies := filterLines([]byte(long + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"))
	if len(fwd) != 1 || len(replies) != 1 || !strings.Contains(replies[0], "at most") {
		t.Fatalf("long line: forwarded %d, replies %q", len(fwd), replies)
	}
	// Batches pass before a 2025-06-18 initialize, not after.
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`
	if fwd, _ := filterLines([]byte(batch + "\n")); len(fwd) != 1 {
		t.Fatalf("batch before initialize: %q", fwd)
	}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	fwd, replies = filterLines([]byte(init + "\n" + batch + "\n"))
	if len(fwd) != 1 || len(replies) != 1 || !strings.Contains(replies[0], "batches are not part") {
		t.Fatalf("batch after 2025-06-18: forwarded %q, replies %q", fwd, replies)
	}
}

// The filter's replies are built-in messages: the overlay can reword them.
func TestStdioFilterRepliesAreMessages(t *testing.T) {
	k := testKit(t, nil)
	k.api.Messages = map[string]string{"frame_not_json": "Not JSON; send one JSON-RPC message per line."}
	var fwd, out bytes.Buffer
	w := &frameWriter{w: &out}
	f := &frameFilter{reply: w.reply, forward: &fwd, log: k.log, kit: k}
	f.run(strings.NewReader("garbage\n[]\n"))
	if !strings.Contains(out.String(), `"message":"Not JSON; send one JSON-RPC message per line."`) || !strings.Contains(out.String(), `"message":"Invalid Request: an empty batch."`) {
		t.Fatalf("replies:\n%s", out.String())
	}
}

// FuzzStdioFilter: whatever arrives on stdin, every non-blank line is
// either forwarded as a frame go-sdk's decoder accepts or answered with a
// JSON-RPC error, and nothing panics. `make fuzz` runs it for longer.
func FuzzStdioFilter(f *testing.F) {
	for _, c := range hostileFrames {
		f.Add([]byte(c.line))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":"\"]}"}}}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\n  \n"))
	f.Fuzz(func(t *testing.T, input []byte) {
		fwd, replies := filterLines(input)
		lines := 0
		for _, l := range strings.Split(string(input), "\n") {
			if strings.TrimSpace(l) != "" {
				lines++
			}
		}
		if len(fwd)+len(replies) != lines {
			t.Fatalf("%d lines in, %d forwarded and %d answered", lines, len(fwd), len(replies))
		}
		for _, l := range fwd {
			if l[0] == '[' {
				continue
			}
			if _, err := jsonrpc.DecodeMessage([]byte(l)); err != nil {
				t.Fatalf("forwarded a frame go-sdk refuses: %v", err)
			}
		}
		for _, r := range replies {
			var m map[string]any
			if err := json.Unmarshal([]byte(r), &m); err != nil || m["jsonrpc"] != "2.0" || m["error"] == nil {
				t.Fatalf("bad reply %s", r)
			}
		}
	})
}
