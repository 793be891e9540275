package mcpkit

import (
	"bufio"
	"io"
	"os"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The collector is held back while a stdio server starts and is set for
// serving once the first tools/list answer has been written.
func TestStartupCollectorGate(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: the gate leaves the collector alone")
	}
	startGate.once = sync.Once{} // as in a fresh process

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	api := API{Name: "gate", EnvPrefix: "GATE"}
	register := func(s *mcp.Server, k *Runtime) {
		k.AddTool(s, &Tool{Name: "noop", InputSchema: `{"type":"object","properties":{"x":{"type":"string","description":"anything"}}}`, OutputSchema: `{"type":"object"}`}, func(c *Call) *mcp.CallToolResult { return &mcp.CallToolResult{} })
	}
	done := make(chan int, 1)
	go func() {
		done <- Run(api, register, []string{"--base-url", "http://127.0.0.1:1"}, inR, outW, io.Discard)
	}()

	out := bufio.NewReader(outR)
	send := func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	read := func() string {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return line
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	read()
	if got := gcPercent(); got != -1 {
		t.Fatalf("GC percent during start-up = %d, want -1 (collector held back)", got)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	list := read()
	// The full schema is listed, not the stand-in used while registering.
	if !strings.Contains(list, `"description":"anything"`) {
		t.Fatalf("tools/list does not carry the generated input schema: %s", list)
	}
	deadline := time.Now().Add(5 * time.Second)
	for gcPercent() != servingPercent {
		if time.Now().After(deadline) {
			t.Fatalf("GC percent after the first tools/list = %d, want %d", gcPercent(), servingPercent)
		}
		time.Sleep(time.Millisecond)
	}
	inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("Run returned %d", code)
	}
}

// gcPercent reads the collector's setting without changing it (GOGC=off
// reads as -1, hence the conversion through int64).
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(int64(s[0].Value.Uint64()))
}
