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
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/examples/petstore/backend"
)

func main() {
	server := flag.String("server", "bin/petstore", "the generated server binary")
	flag.Parse()
	if err := run(*server, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

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

	cmd := exec.Command(server)
	cmd.Env = append(os.Environ(), "PETSTORE_BASE_URL="+base, "PETSTORE_SHELTER_KEY="+backend.Key)
	cmd.Stderr = io.Discard // structured logs; see them with the binary alone
	client := mcp.NewClient(&mcp.Implementation{Name: "tailor-demo", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return fmt.Errorf("starting %s: %w", server, err)
	}
	defer sess.Close()
	fmt.Fprintf(out, "server:  %s over stdio (MCP, go-sdk client)\n\n", server)

	tools, err := sess.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "== tools/list: what the model is offered ==")
	for _, t := range tools.Tools {
		fmt.Fprintf(out, "- %s(%s): %s\n", t.Name, args(t), firstLine(t.Description))
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
		a, _ := json.Marshal(c.args)
		fmt.Fprintf(out, "\n== tools/call %s %s ==\n", c.tool, a)
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "isError: %v\n", res.IsError)
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				fmt.Fprintf(out, "text:    %s\n", tc.Text)
			}
		}
	}
	return nil
}

// args lists a tool's arguments, required ones marked with *.
func args(t *mcp.Tool) string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	b, _ := json.Marshal(t.InputSchema)
	json.Unmarshal(b, &s)
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	var names []string
	for n := range s.Properties {
		if req[n] {
			n += "*"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
