package mcpkit

import (
	"io"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// transport=stdio: BenchmarkCall's call through the stdio connection a
// generated server serves (stdioTransport), over in-process pipes: what
// reading, checking and decoding each frame costs besides the call.
func init() {
	callVariants = append(callVariants, struct {
		name string
		run  func(b *testing.B)
	}{"transport=stdio", func(b *testing.B) { benchmarkCallOver(b, Config{}, overStdio) }})
}

// overStdio connects the client to the server's stdio connection by pipes.
func overStdio(k *Runtime) (server, client mcp.Transport) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	return stdioTransport(inR, outW, k), &mcp.IOTransport{Reader: outR, Writer: inW}
}
