// Command demo runs tailor's bundled example end to end: it starts the
// shelter backend on loopback, starts the generated MCP server (a built
// binary, over stdio) against it, and prints what a model would be offered
// and what it would read back from a few tool calls.
//
//	make demo
//
// builds everything and runs it; by hand:
//
//	go generate ./examples/petstore
//	go build -o bin/petstore ./examples/petstore/mcpserver/cmd/petstore
//	go run ./examples/petstore/demo --server bin/petstore
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/tailormcp/tailor/examples/internal/demo"
	"github.com/tailormcp/tailor/examples/petstore/backend"
)

func main() { demo.Main("bin/petstore", run) }

func run(server string, out io.Writer) error {
	if _, err := os.Stat(server); err != nil {
		return fmt.Errorf("no server binary at %s: run `make demo`, or build it with `go build -o %s ./examples/petstore/mcpserver/cmd/petstore`", server, server)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go http.Serve(ln, backend.New().Handler())
	base := "http://" + ln.Addr().String() + "/v1"
	fmt.Fprintf(out, "backend: the shelter API on %s\n", base)

	s, err := demo.Start(out, server, "PETSTORE_BASE_URL="+base, "PETSTORE_SHELTER_KEY="+backend.Key)
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Fprintf(out, "server:  %s over stdio (MCP, go-sdk client)\n\n", server)
	if err := s.ListTools(true); err != nil {
		return err
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"list_pets", map[string]any{"species": "dog"}},
		{"adopt_pet", map[string]any{"petId": "p_17", "adopter": "Ann Lee"}},
		{"adopt_pet", map[string]any{"petId": "p_19", "adopter": "Ann Lee"}},
		{"get_pet", map[string]any{"petId": "p_404"}},
		{"list_pets", map[string]any{"limit": 500}},
	} {
		if _, err := s.Call(c.tool, c.args); err != nil {
			return err
		}
	}
	return nil
}
