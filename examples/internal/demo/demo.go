// Package demo is what the examples' demo programs share: run as a
// command with --server, start the generated server (a built binary) over
// stdio with a go-sdk client, and print what the model is offered and
// what it reads back from each call.
package demo

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Main runs run with the server binary --server names (default: def) and
// stdout, and exits 1 with its error.
func Main(def string, run func(server string, out io.Writer) error) {
	server := flag.String("server", def, "the generated server binary")
	flag.Parse()
	if err := run(*server, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// Session is a generated server running over stdio with a client
// connected, printing to out.
type Session struct {
	ctx    context.Context
	cancel context.CancelFunc
	sess   *mcp.ClientSession
	out    io.Writer
}

// Start starts server with env added to the environment (its logs are
// dropped: run the binary alone to see them); a person asked to approve
// accepts, which is printed. Close the session when done.
func Start(out io.Writer, server string, env ...string) (*Session, error) {
	cmd := exec.Command(server)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = io.Discard
	client := mcp.NewClient(&mcp.Implementation{Name: "tailor-demo", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Fprintf(out, "approval: the person is asked %q and accepts\n", req.Params.Message)
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("starting %s: %w", server, err)
	}
	return &Session{ctx: ctx, cancel: cancel, sess: sess, out: out}, nil
}

// Close stops the server.
func (s *Session) Close() error {
	defer s.cancel()
	return s.sess.Close()
}

// ListTools prints tools/list as the model is offered it: each tool with
// its arguments, required ones marked with *, and with describe the first
// line of its description.
func (s *Session) ListTools(describe bool) error {
	tools, err := s.sess.ListTools(s.ctx, nil)
	if err != nil {
		return err
	}
	fmt.Fprintln(s.out, "== tools/list: what the model is offered ==")
	for _, t := range tools.Tools {
		line := fmt.Sprintf("- %s(%s)", t.Name, args(t))
		if describe {
			first, _, _ := strings.Cut(t.Description, "\n")
			line += ": " + first
		}
		fmt.Fprintln(s.out, line)
	}
	return nil
}

// Call calls a tool and prints what the model reads.
func (s *Session) Call(tool string, a map[string]any) (*mcp.CallToolResult, error) {
	b, _ := json.Marshal(a)
	fmt.Fprintf(s.out, "\n== tools/call %s %s ==\n", tool, b)
	res, err := s.sess.CallTool(s.ctx, &mcp.CallToolParams{Name: tool, Arguments: a})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(s.out, "isError: %v\n", res.IsError)
	for i, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text := tc.Text
			if i > 0 && len(text) > 300 {
				text = text[:300] + "…" // the JSON beside the text
			}
			fmt.Fprintf(s.out, "text:    %s\n", text)
		}
	}
	return res, nil
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
