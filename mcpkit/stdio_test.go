package mcpkit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// filterLines runs the stdio filter over input and returns the frames it
// accepts and the error responses it writes.
func filterLines(input []byte) (forwarded, replies []string) {
	var out bytes.Buffer
	w := &frameWriter{w: &out}
	f := &frameFilter{reply: w.reply, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	return runFilter(f, bytes.NewReader(input)), nonEmptyLines(out.String())
}

// runFilter reads every frame f accepts from in, checking that each comes
// with its messages.
func runFilter(f *frameFilter, in io.Reader) (accepted []string) {
	r := bufio.NewReader(in)
	for {
		fr, err := f.next(r)
		if err != nil {
			return accepted
		}
		if len(fr.msgs) == 0 || fr.batch != (fr.raw[0] == '[') {
			panic(fmt.Sprintf("frame %q accepted with %d messages", fr.raw, len(fr.msgs)))
		}
		accepted = append(accepted, string(fr.raw))
	}
}

func nonEmptyLines(s string) []string {
	var l []string
	for _, x := range strings.Split(s, "\n") {
		if x != "" {
			l = append(l, x)
		}
	}
	return l
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
	var out bytes.Buffer
	w := &frameWriter{w: &out}
	f := &frameFilter{reply: w.reply, log: k.log, kit: k}
	runFilter(f, strings.NewReader("garbage\n[]\n"))
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

// TestStdioConnection drives a server over the stdio connection line by
// line: a batch (protocol 2025-03-26) is answered with one array holding
// each request's response, a batch that uses an id twice is refused
// without ending the session, and the end of stdin ends it.
func TestStdioConnection(t *testing.T) {
	s, k := auditServer(t, io.Discard)
	inW, exchange, done := runStdio(t, s, k, nil)
	if a := exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`); !strings.Contains(a, `"protocolVersion":"2025-03-26"`) {
		t.Fatalf("initialize: %s", a)
	}
	var batch []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	a := exchange(`[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":8,"method":"tools/list"}]`)
	if err := json.Unmarshal([]byte(a), &batch); err != nil || len(batch) != 2 || batch[0].ID != 7 || batch[1].ID != 8 || !strings.Contains(string(batch[1].Result), `"get_thing"`) {
		t.Fatalf("batch answer: %s", a)
	}
	if a := exchange(`[{"jsonrpc":"2.0","id":9,"method":"ping"},{"jsonrpc":"2.0","id":9,"method":"ping"}]`); !strings.Contains(a, `"code":-32600`) || !strings.Contains(a, "used twice") {
		t.Fatalf("batch with a repeated id: %s", a)
	}
	if a := exchange(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"get_thing","arguments":{"id":"ok"}}}`); !strings.Contains(a, `"id":10`) || strings.Contains(a, `"isError":true`) {
		t.Fatalf("call after the refused batch: %s", a)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatalf("Run after stdin ended: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end with stdin")
	}
}

// runStdio serves s over a stdio connection of pipes, its output through
// wrap when given; exchange writes a line and reads the answer's line,
// stdin ends the session when closed, and done receives Run's result.
func runStdio(t *testing.T, s *mcp.Server, k *Runtime, wrap func(io.Writer) io.Writer) (stdin io.WriteCloser, exchange func(string) string, done <-chan error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var w io.Writer = outW
	if wrap != nil {
		w = wrap(outW)
	}
	ended := make(chan error, 1)
	go func() { ended <- s.Run(context.Background(), stdioTransport(inR, w, k)) }()
	out := bufio.NewReader(outR)
	return inW, func(line string) string {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		answer, err := out.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return answer
	}, ended
}

// TestStdioInitializeAfterDiscover: the Vercel AI SDK's stdio client sends
// server/discover, waits one second, then initialize. When the server reads
// the discover late, with the initialize already behind it, the discover is
// answered as unknown and the initialize accepted (go-sdk counts a discover
// as the session's initialization and would refuse the initialize as a
// duplicate). A discover read on its own goes to go-sdk, which answers it.
// A server of zero tools still advertises the tools capability.
func TestStdioInitializeAfterDiscover(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"ai-sdk-mcp-client","version":"1.0.0"}}`
	discover := `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{` + meta + `}}`
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

	s, k := auditServer(t, io.Discard)
	_, exchange, _ := runStdio(t, s, k, nil)
	// Both lines in one write: the server reads them together.
	if a := exchange(discover + "\n" + initialize); !strings.Contains(a, `"id":0`) || !strings.Contains(a, `"code":-32601`) {
		t.Fatalf("server/discover with an initialize behind it: %s", a)
	}
	if a := exchange(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); !strings.Contains(a, `"id":1`) || !strings.Contains(a, `"protocolVersion"`) || strings.Contains(a, `"error"`) {
		t.Fatalf("initialize after server/discover: %s", a)
	}

	s, k = auditServer(t, io.Discard)
	_, exchange, _ = runStdio(t, s, k, nil)
	if a := exchange(discover); strings.Contains(a, `"error"`) || !strings.Contains(a, `"result"`) {
		t.Fatalf("server/discover on its own is go-sdk's to answer: %s", a)
	}

	empty, ek, err := NewServer(API{Name: "empty", EnvPrefix: "EMPTY"}, Config{}, func(*mcp.Server, *Runtime) {})
	if err != nil {
		t.Fatal(err)
	}
	_, exchange, _ = runStdio(t, empty, ek, nil)
	if a := exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`); !strings.Contains(a, `"tools":{`) {
		t.Fatalf("a server of zero tools does not advertise tools: %s", a)
	}
}
