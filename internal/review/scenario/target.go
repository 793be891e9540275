package scenario

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Target is a tool set to run scenarios on: a server started as a command
// that speaks MCP over stdio (a generated server, or tailor serve ... --),
// to which the scenario adds --base-url when a backend is given.
type Target struct {
	// Name tells targets apart in results and in a scenario's `skip` and `variants`.
	Name string
	// Command is the program and its arguments.
	Command []string
	// Display is how results name the command (default: Command).
	Display string
	// Env is added to the server's environment.
	Env []string
	// Backend is the base URL of the API the server calls, through a
	// recording proxy; "" leaves the server's own configuration (and
	// requests unrecorded).
	Backend string
	// Stderr, when set, receives a copy of the server's stderr (its audit
	// log).
	Stderr io.Writer
}

func (t Target) display() string {
	if t.Display != "" {
		return t.Display
	}
	return strings.Join(t.Command, " ")
}

// SplitCommand splits a command line on spaces (no quoting).
func SplitCommand(s string) []string { return strings.Fields(s) }

// server is a running server and the client session on it.
type server struct {
	session *mcp.ClientSession
	stderr  *tailBuffer
}

// start runs the target's command with env and args added, and connects
// the go-sdk client to it over stdio.
func start(ctx context.Context, t Target, env, args []string, opts *mcp.ClientOptions) (*server, error) {
	if len(t.Command) == 0 {
		return nil, fmt.Errorf("target %s has no command", t.Name)
	}
	cmd := exec.Command(t.Command[0], append(append([]string(nil), t.Command[1:]...), args...)...)
	cmd.Env = append(append(os.Environ(), t.Env...), env...)
	buf := &tailBuffer{max: 64 << 10}
	cmd.Stderr = buf
	if t.Stderr != nil {
		cmd.Stderr = io.MultiWriter(buf, t.Stderr)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "tailor-test", Version: "1"}, opts)
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w%s", t.display(), err, buf.tail("\nits stderr ends with:\n"))
	}
	return &server{session: sess, stderr: buf}, nil
}

func (s *server) close() { s.session.Close() }

// Connect starts the target with env and args added, and returns the
// go-sdk client session on it over stdio; closing the session stops the
// server (and ends its stderr).
func Connect(ctx context.Context, t Target, env, args []string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	s, err := start(ctx, t, env, args, opts)
	if err != nil {
		return nil, err
	}
	return s.session, nil
}

// ListTools starts the target and returns its tools/list.
func ListTools(ctx context.Context, t Target) ([]*mcp.Tool, error) {
	s, err := start(ctx, t, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	defer s.close()
	return s.tools(ctx)
}

func (s *server) tools(ctx context.Context) ([]*mcp.Tool, error) {
	var out []*mcp.Tool
	params := &mcp.ListToolsParams{}
	for {
		res, err := s.session.ListTools(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w%s", err, s.stderr.tail("\nthe server's stderr ends with:\n"))
		}
		out = append(out, res.Tools...)
		if res.NextCursor == "" {
			return out, nil
		}
		params.Cursor = res.NextCursor
	}
}

// tailBuffer keeps the last max bytes written: a server's stderr, shown
// when it fails.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

// tail returns the last lines written, after intro, or "".
func (t *tailBuffer) tail(intro string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return intro + "  " + strings.Join(lines, "\n  ")
}
