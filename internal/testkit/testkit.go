// Package testkit is the end-to-end harness of tailor's tests: it generates a
// server into a throwaway Go module, builds it with the real toolchain, runs
// it, and connects the go-sdk MCP client to it over stdio or streamable
// HTTP, with a recording HTTP backend on loopback behind it.
package testkit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/generator"
)

// RepoRoot is the root of the tailor module.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// CorpusDir is ../shared/corpus beside the repository, or "" when absent.
func CorpusDir() string {
	d := filepath.Join(RepoRoot(), "..", "shared", "corpus")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d
	}
	return ""
}

// Module is a throwaway Go module that requires tailor (replaced by this
// checkout) and holds generated packages.
type Module struct {
	Dir  string
	Path string
}

// NewModule creates a module in a temporary directory.
func NewModule(t testing.TB) *Module {
	t.Helper()
	dir := t.TempDir()
	m := &Module{Dir: dir, Path: "example.com/gen"}
	gomod := fmt.Sprintf("module %s\n\ngo 1.26\n\nrequire github.com/tailormcp/tailor v0.0.0\n\nreplace github.com/tailormcp/tailor => %s\n", m.Path, RepoRoot())
	must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	sum, err := os.ReadFile(filepath.Join(RepoRoot(), "go.sum"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	return m
}

// Generated is a run of the pipeline and the files rendered from it.
type Generated struct {
	*generator.Output
	Files []generator.File
}

// Generate runs the pipeline and renders its files, as tailor generate
// does (without writing them).
func Generate(opts generator.Options) (*Generated, error) {
	out, err := generator.Run(opts)
	if err != nil {
		return nil, err
	}
	files, err := out.Render()
	if err != nil {
		return nil, err
	}
	return &Generated{Output: out, Files: files}, nil
}

// Generate runs tailor's pipeline on spec into package pkg of the module,
// with a main in cmd/pkg, and returns the result.
func (m *Module) Generate(t testing.TB, spec, pkg string, tweak ...func(*generator.Options)) *Generated {
	t.Helper()
	out := filepath.Join(m.Dir, pkg)
	opts := generator.Options{SpecPath: spec, OutDir: out, Package: pkg, Main: true, ImportPath: m.Path + "/" + pkg, Name: pkg}
	for _, f := range tweak {
		f(&opts)
	}
	res, err := Generate(opts)
	if err != nil {
		t.Fatalf("generate %s: %v", spec, err)
	}
	if _, err := generator.Write(out, res.Files); err != nil {
		t.Fatal(err)
	}
	return res
}

// Compile compiles the module's cmd/<pkg> binaries into the module's bin/
// directory in one go invocation, and vets them when vet is set.
func (m *Module) Compile(t testing.TB, pkgs ...string) map[string]string {
	t.Helper()
	bins := map[string]string{}
	binDir := filepath.Join(m.Dir, "bin")
	must(t, os.MkdirAll(binDir, 0o755))
	args := []string{"build", "-o", binDir + string(filepath.Separator)}
	for _, p := range pkgs {
		// The command is named after the server, which an overlay may rename.
		cmds, _ := filepath.Glob(filepath.Join(m.Dir, p, "cmd", "*"))
		if len(cmds) != 1 {
			t.Fatalf("want one command under %s/cmd, found %v", p, cmds)
		}
		name := filepath.Base(cmds[0])
		args = append(args, "./"+p+"/cmd/"+name)
		bins[p] = filepath.Join(binDir, name)
	}
	m.Go(t, args...)
	return bins
}

// Go runs the go command in the module and fails the test on error.
func (m *Module) Go(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = m.Dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Server is a running generated server and a client session on it.
type Server struct {
	Session *mcp.ClientSession
	// Endpoint is the MCP endpoint URL of an HTTP server ("" for stdio).
	Endpoint string
	// Process is the server's process (its memory, in soak tests).
	Process *os.Process
	stderr  *syncBuffer
	// exited yields the exit code of an HTTP server's process (and is
	// refilled, so every reader sees it).
	exited chan int
}

// Stderr returns what the server has logged so far.
func (s *Server) Stderr() string {
	if s.stderr == nil {
		return "(a session through a proxy: see the servers' own stderr)"
	}
	return s.stderr.String()
}

// WaitStderr waits up to 5 s for the server's stderr to satisfy ok, and
// returns it; the test fails, saying what it waited for, when it does not.
// stderr arrives on a pipe of its own, read concurrently with the
// protocol: a line the server wrote before it answered a call can still be
// on its way when the answer has been read.
func (s *Server) WaitStderr(t testing.TB, what string, ok func(stderr string) bool) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		out := s.Stderr()
		if ok(out) {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("stderr never showed %s:\n%s", what, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// StartStdio runs bin over stdio with env added to the environment and
// connects the go-sdk client.
func StartStdio(t testing.TB, bin string, env []string, args ...string) *Server {
	t.Helper()
	return StartStdioClient(t, bin, env, nil, args...)
}

// StartStdioClient is StartStdio with the MCP client's options (for
// example an elicitation handler).
func StartStdioClient(t testing.TB, bin string, env []string, opts *mcp.ClientOptions, args ...string) *Server {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	return startStdio(t, cmd, opts)
}

// StartStdioEnv is StartStdio with exactly env as the server's whole
// environment (nil: no environment at all, as a registry or a client
// that passes nothing starts it).
func StartStdioEnv(t testing.TB, bin string, env []string, args ...string) *Server {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append([]string{}, env...)
	return startStdio(t, cmd, nil)
}

func startStdio(t testing.TB, cmd *exec.Cmd, opts *mcp.ClientOptions) *Server {
	t.Helper()
	buf := &syncBuffer{}
	cmd.Stderr = buf
	client := mcp.NewClient(&mcp.Implementation{Name: "tailor-test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v\nstderr:\n%s", err, buf.String())
	}
	t.Cleanup(func() { sess.Close() })
	return &Server{Session: sess, Process: cmd.Process, stderr: buf}
}

var listening = regexp.MustCompile(`"url":"(http://[^"]+)"`)

// StartHTTP runs bin with --http on a free loopback port and connects the
// go-sdk client over streamable HTTP.
func StartHTTP(t testing.TB, bin string, env []string, args ...string) *Server {
	t.Helper()
	return StartHTTPClient(t, bin, env, nil, args...)
}

// StartHTTPClient is StartHTTP with the HTTP client the MCP client uses
// (to send headers of the caller, such as Authorization).
func StartHTTPClient(t testing.TB, bin string, env []string, hc *http.Client, args ...string) *Server {
	t.Helper()
	return StartHTTPOptions(t, bin, env, hc, nil, args...)
}

// StartHTTPOptions is StartHTTPClient with the MCP client's options.
func StartHTTPOptions(t testing.TB, bin string, env []string, hc *http.Client, opts *mcp.ClientOptions, args ...string) *Server {
	t.Helper()
	s := RunHTTP(t, bin, env, args...)
	s.Session = ConnectHTTP(t, s.Endpoint, hc, opts)
	return s
}

// RunHTTP runs bin with --http on a free loopback port and waits until it
// listens; it connects no client (Session is nil).
func RunHTTP(t testing.TB, bin string, env []string, args ...string) *Server {
	t.Helper()
	cmd := exec.Command(bin, append(append([]string(nil), args...), "--http", "127.0.0.1:0")...)
	cmd.Env = append(os.Environ(), env...)
	pr, pw := io.Pipe()
	buf := &syncBuffer{}
	cmd.Stderr = io.MultiWriter(buf, pw)
	must(t, cmd.Start())
	exited := make(chan int, 1)
	go func() {
		cmd.Wait()
		exited <- cmd.ProcessState.ExitCode()
		pw.Close()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		code := <-exited
		exited <- code
	})
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- m[1]
				break
			}
		}
		io.Copy(io.Discard, pr)
	}()
	var endpoint string
	select {
	case endpoint = <-urlc:
	case <-time.After(20 * time.Second):
		t.Fatalf("server did not start listening\nstderr:\n%s", buf.String())
	}
	return &Server{Endpoint: endpoint, Process: cmd.Process, stderr: buf, exited: exited}
}

// ConnectHTTP opens a go-sdk client session on an MCP endpoint URL (a
// server's, or a proxy's in front of several).
func ConnectHTTP(t testing.TB, endpoint string, hc *http.Client, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "tailor-test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("connect over HTTP to %s: %v", endpoint, err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

// Wait waits up to d for an HTTP server's process to exit and returns its
// exit code (-1 if it did not).
func (s *Server) Wait(d time.Duration) int {
	select {
	case code := <-s.exited:
		s.exited <- code
		return code
	case <-time.After(d):
		return -1
	}
}

// Connect opens another client session on an HTTP server, as a different
// caller (hc may add that caller's headers).
func (s *Server) Connect(t testing.TB, hc *http.Client, opts *mcp.ClientOptions) *Server {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "tailor-test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.Endpoint, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("connect over HTTP: %v", err)
	}
	t.Cleanup(func() { sess.Close() })
	return &Server{Session: sess, Endpoint: s.Endpoint, Process: s.Process, stderr: s.stderr}
}

// Call calls a tool and returns the result.
func (s *Server) Call(t testing.TB, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.Session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v\nserver stderr:\n%s", name, err, s.Stderr())
	}
	return res
}

// Text joins the text content of a result: what the model reads.
func Text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Structured re-encodes a result's structuredContent as compact JSON.
func Structured(res *mcp.CallToolResult) string {
	if res.StructuredContent == nil {
		return ""
	}
	b, _ := json.Marshal(res.StructuredContent)
	return string(b)
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
