package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// run executes argv in dir with env added and returns its combined output;
// the error quotes the output's tail.
func run(ctx context.Context, dir string, env []string, argv ...string) (string, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = procAttr()
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s (in %s): %v\n%s", strings.Join(argv, " "), dir, err, tail(string(out), 3000))
	}
	return string(out), nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// goEnv is the environment of every go command the benchmark runs in its
// throwaway module (as internal/testkit does).
var goEnv = []string{"GOFLAGS=-mod=mod", "GOWORK=off"}

// tailorSide is tailor, built, and the servers it generated, built.
type tailorSide struct {
	cli     string            // the tailor binary
	mod     string            // the throwaway module
	servers map[string]string // spec name → server binary
	floor   string            // go-sdk server with no tools
	rusage  string            // runs a command and reports its rusage (see rusageMain)
	backend string            // the loopback API (see backendMain)
	// buildTime is the one go build of every server and the floor.
	buildTime time.Duration
	goSDK     string // go-sdk version the servers link
}

// floorMain is a go-sdk server with no tools: the floor of a Go MCP
// server's cold start.
//
// With TAILORBENCH_FLOOR_TOOL set it has one tool, noop, which answers at
// once without any HTTP request: the floor of a go-sdk tools/call.
//
// With TAILORBENCH_FLOOR_URL set it has one tool, request, whose handler
// makes the benchmark's HTTP request itself (method, URL, headers from the
// environment) and returns the answer's body as text: the physical floor
// of a tool call that calls an API, what a hand-written go-sdk server
// pays, beside which tailor's call overhead is set.
const floorMain = `package main

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "0"}, &mcp.ServerOptions{HasTools: true})
	if os.Getenv("TAILORBENCH_FLOOR_TOOL") != "" {
		s.AddTool(&mcp.Tool{Name: "noop", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "` + backendMarker + `"}}}, nil
			})
	}
	if url := os.Getenv("TAILORBENCH_FLOOR_URL"); url != "" {
		method := os.Getenv("TAILORBENCH_FLOOR_METHOD")
		var header map[string]string
		if err := json.Unmarshal([]byte(os.Getenv("TAILORBENCH_FLOOR_HEADER")), &header); err != nil {
			log.Fatal(err)
		}
		client := &http.Client{}
		s.AddTool(&mcp.Tool{Name: "request", InputSchema: map[string]any{"type": "object"}},
			func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				req, err := http.NewRequestWithContext(ctx, method, url, nil)
				if err != nil {
					return nil, err
				}
				req.Header.Set("Accept", "application/json")
				for k, v := range header {
					req.Header.Set(k, v)
				}
				resp, err := client.Do(req)
				if err != nil {
					return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
				}
				defer resp.Body.Close()
				body, err := io.ReadAll(resp.Body)
				if err != nil || resp.StatusCode != http.StatusOK {
					return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: resp.Status}}}, nil
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}, nil
			})
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
`

// rusageMain runs a command and writes its wall time, peak RSS and CPU
// time to a file. The benchmark starts generators through it because a
// process's ru_maxrss starts at the peak RSS of the address space it was
// spawned from (Linux records the old mm's high-water mark at exec, and Go
// spawns with vfork): started by the harness directly, after it has held a
// large tools/list, a 20 MiB generator would report the harness's 200 MiB.
// This helper's own address space is small and fresh, so what it reports is
// the generator's own.
const rusageMain = `package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	out, argv := os.Args[1], os.Args[2:]
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	code := 0
	if err != nil {
		code = 1
		if cmd.ProcessState == nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		code = cmd.ProcessState.ExitCode()
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var maxrss int64
	if ru != nil {
		maxrss = int64(ru.Maxrss)
	}
	cpu := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	if err := os.WriteFile(out, []byte(fmt.Sprintf("%d %d %f\n", wall.Nanoseconds(), maxrss, cpu)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(code)
}
`

// setupTailor builds tailor, creates a throwaway module requiring this
// checkout (through a replace, as internal/testkit does), generates every
// spec's server into it and builds them all, with the floor, in one go build.
func (b *runner) setupTailor(ctx context.Context) (*tailorSide, error) {
	t := &tailorSide{servers: map[string]string{}}
	bin := filepath.Join(b.work, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return nil, err
	}
	t.cli = filepath.Join(bin, "tailor")
	b.logf("building tailor")
	if _, err := run(ctx, b.root, []string{"GOWORK=off"}, "go", "build", "-o", t.cli, "./cmd/tailor"); err != nil {
		return nil, err
	}
	t.mod = filepath.Join(b.work, "mod")
	if err := os.MkdirAll(filepath.Join(t.mod, "floor"), 0o755); err != nil {
		return nil, err
	}
	gomod := fmt.Sprintf("module %s\n\ngo 1.26\n\nrequire github.com/tailormcp/tailor v0.0.0\n\nreplace github.com/tailormcp/tailor => %s\n", modPath, b.root)
	if err := os.WriteFile(filepath.Join(t.mod, "go.mod"), []byte(gomod), 0o644); err != nil {
		return nil, err
	}
	sum, err := os.ReadFile(filepath.Join(b.root, "go.sum"))
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(t.mod, "go.sum"), sum, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(t.mod, "floor", "main.go"), []byte(floorMain), 0o644); err != nil {
		return nil, err
	}
	for dir, src := range map[string]string{"rusage": rusageMain, "backend": backendMain} {
		if err := os.MkdirAll(filepath.Join(t.mod, dir), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(t.mod, dir, "main.go"), []byte(src), 0o644); err != nil {
			return nil, err
		}
	}
	pkgs := []string{"./floor", "./rusage", "./backend"}
	for _, s := range b.specs {
		b.logf("tailor: generating %s", s.Name)
		// Untimed, with the cache folder off.
		if _, err := run(ctx, t.mod, []string{"TAILOR_CACHE=off"}, tailorGenArgs(t.cli, s, filepath.Join(t.mod, s.Name), false)...); err != nil {
			return nil, err
		}
		pkgs = append(pkgs, "./"+s.Name+"/cmd/"+s.Name)
		t.servers[s.Name] = filepath.Join(bin, s.Name)
	}
	t.floor = filepath.Join(bin, "floor")
	t.rusage = filepath.Join(bin, "rusage")
	t.backend = filepath.Join(bin, "backend")
	b.logf("tailor: building %d servers and the go-sdk floor", len(b.specs))
	start := time.Now()
	if _, err := run(ctx, t.mod, goEnv, append([]string{"go", "build", "-o", bin + string(filepath.Separator)}, pkgs...)...); err != nil {
		return nil, err
	}
	t.buildTime = time.Since(start)
	out, err := run(ctx, t.mod, goEnv, "go", "list", "-m", "-f", "{{.Version}}", "github.com/modelcontextprotocol/go-sdk")
	if err == nil {
		t.goSDK = strings.TrimSpace(out)
	}
	return t, nil
}

const modPath = "example.com/bench"

// tailorGenArgs is the generate command for spec s into out.
func tailorGenArgs(cli string, s Spec, out string, noValidate bool) []string {
	args := []string{cli, "generate", "--spec", s.Path, "--out", out, "--package", s.Name, "--name", s.Name,
		"--main", "--import-path", modPath + "/" + s.Name, "-q"}
	if noValidate {
		args = append(args, "--no-validate")
	}
	return args
}

// floorRequestEnv makes the go-sdk floor server's one tool make spec s's
// benchmark request to the backend (see floorMain).
func floorRequestEnv(s Spec, backendURL string) []string {
	header, _ := json.Marshal(s.Header)
	if s.Header == nil {
		header = []byte("{}")
	}
	return []string{"TAILORBENCH_FLOOR_URL=" + backendURL + s.BackendPath, "TAILORBENCH_FLOOR_METHOD=" + s.Method, "TAILORBENCH_FLOOR_HEADER=" + string(header)}
}

// tailorEnv is the environment of spec s's tailor server.
func tailorEnv(s Spec, backendURL string) []string {
	return append([]string{strings.ToUpper(s.Name) + "_BASE_URL=" + backendURL}, s.TailorEnv...)
}

// altSide is openapi-mcp-generator, installed, and the servers it generated,
// built as its README says.
type altSide struct {
	node      string // Node 22
	npmPath   string // PATH prefix so that npm runs on that Node
	generator string // the generator's bin script
	version   string
	// stdio and http are each spec's generated project, built, for the
	// stdio and the streamable-http transport.
	stdio, http map[string]string
	buildTime   map[string]time.Duration // npm install + npm run build, both projects
	floor       string                   // node SDK server with no tools
	shim        string                   // loopback-only preload for the HTTP servers
	deps        map[string]string        // transport → resolved versions of the projects' dependencies
	nodeVersion string
	npmVersion  string
}

// altHTTPPort is the port baked into the alternative's HTTP servers; the
// loopback shim replaces it with a free port at run time.
const altHTTPPort = "3999"

// nodeFloor is a server on the official TypeScript SDK with no tools, the
// floor of a Node MCP server's cold start. It lives in a generated project
// to use the SDK version that project resolved. With TAILORBENCH_FLOOR_TOOL
// set it has one tool, noop, answered at once (the floor of a tools/call).
const nodeFloor = `import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const tool = !!process.env.TAILORBENCH_FLOOR_TOOL;
const server = new Server({ name: "floor", version: "0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: tool ? [{ name: "noop", inputSchema: { type: "object" } }] : [],
}));
if (tool) {
  server.setRequestHandler(CallToolRequestSchema, async () => ({
    content: [{ type: "text", text: "` + backendMarker + `" }],
  }));
}
await server.connect(new StdioServerTransport());
`

// loopbackShim is preloaded (node --import) into the alternative's HTTP
// servers. Its generated code listens on every interface at the port given
// at generation; the benchmark keeps every server on loopback, so this
// makes net.Server.listen bind 127.0.0.1, at the port in TAILORBENCH_PORT.
// It changes nothing else.
const loopbackShim = `import net from "node:net";
const port = Number(process.env.TAILORBENCH_PORT);
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || typeof args[0] === "string") {
    args[0] = port || args[0];
    if (typeof args[1] === "string" || args[1] === undefined || args[1] === null) args[1] = "127.0.0.1";
    else args.splice(1, 0, "127.0.0.1");
  } else if (args[0] && typeof args[0] === "object" && "port" in args[0]) {
    args[0] = { ...args[0], port: port || args[0].port, host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};
`

// setupAlt installs openapi-mcp-generator (bench/install-alt.sh), generates
// each spec's server for stdio and for streamable HTTP, and builds them as
// the generator's README says: npm install, npm run build.
func (b *runner) setupAlt(ctx context.Context) (*altSide, error) {
	b.logf("openapi-mcp-generator: installing (bench/install-alt.sh)")
	out, err := run(ctx, b.root, nil, "bash", filepath.Join(b.root, "bench", "install-alt.sh"))
	if err != nil {
		return nil, err
	}
	a := &altSide{stdio: map[string]string{}, http: map[string]string{}, buildTime: map[string]time.Duration{}, deps: map[string]string{}}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		switch k {
		case "node":
			a.node = v
		case "npm_path":
			a.npmPath = v
		case "generator":
			a.generator = v
		case "version":
			a.version = v
		}
	}
	if a.node == "" || a.generator == "" {
		return nil, fmt.Errorf("bench/install-alt.sh did not say where node and the generator are:\n%s", out)
	}
	npmEnv := []string{"PATH=" + a.npmPath + string(os.PathListSeparator) + os.Getenv("PATH")}
	if v, err := run(ctx, b.root, nil, a.node, "--version"); err == nil {
		a.nodeVersion = strings.TrimSpace(v)
	}
	if v, err := run(ctx, b.root, npmEnv, "npm", "--version"); err == nil {
		a.npmVersion = strings.TrimSpace(v)
	}
	dir := filepath.Join(b.work, "alt")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	a.shim = filepath.Join(dir, "loopback.mjs")
	if err := os.WriteFile(a.shim, []byte(loopbackShim), 0o644); err != nil {
		return nil, err
	}
	for i, s := range b.specs {
		for _, transport := range []string{"stdio", "streamable-http"} {
			proj := filepath.Join(dir, s.Name)
			if transport != "stdio" {
				proj += "-http"
			}
			b.logf("openapi-mcp-generator: generating and building %s (%s)", s.Name, transport)
			if _, err := run(ctx, dir, nil, altGenArgs(a, s, proj, transport)...); err != nil {
				return nil, err
			}
			start := time.Now()
			if _, err := run(ctx, proj, npmEnv, "npm", "install", "--no-audit", "--no-fund", "--loglevel=error"); err != nil {
				return nil, err
			}
			if _, err := run(ctx, proj, npmEnv, "npm", "run", "build"); err != nil {
				return nil, err
			}
			a.buildTime[s.Name] += time.Since(start)
			if transport == "stdio" {
				a.stdio[s.Name] = proj
			} else {
				a.http[s.Name] = proj
				if err := b.fixAltHTTP(ctx, a, s, proj, npmEnv); err != nil {
					return nil, err
				}
			}
			if i == 0 {
				a.deps[transport] = depVersions(proj)
			}
			if i == 0 && transport == "stdio" {
				a.floor = filepath.Join(proj, "tailorbench-floor.mjs")
				if err := os.WriteFile(a.floor, []byte(nodeFloor), 0o644); err != nil {
					return nil, err
				}
			}
		}
	}
	return a, nil
}

// altHTTPSDK is the @modelcontextprotocol/sdk the alternative's
// streamable-http servers are run with when the version npm install
// resolves does not work with them: 1.24.3, the last release before the
// SDK's Node transport became a wrapper over @hono/node-server (1.25.0).
// The generated server parses the request body with Hono and hands the
// same request to that wrapper, which reads the body again and crashes the
// process ("ReadableStream is locked") after the first answer.
const altHTTPSDK = "1.24.3"

// fixAltHTTP checks the alternative's streamable-http build of s serves;
// if it does not, it installs altHTTPSDK into the project (npm install
// --no-save; the build is not redone, the SDK is only loaded at run time)
// and says so in the report.
func (b *runner) fixAltHTTP(ctx context.Context, a *altSide, s Spec, proj string, npmEnv []string) error {
	t := b.altHTTPTarget(s, a)
	err := b.probeHTTP(ctx, s, t)
	if err == nil {
		return nil
	}
	resolved := npmVersion(filepath.Join(proj, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	b.logf("openapi-mcp-generator: the streamable-http server of %s fails as built (%v); retrying with @modelcontextprotocol/sdk@%s", s.Name, firstLine(err.Error()), altHTTPSDK)
	if _, err := run(ctx, proj, npmEnv, "npm", "install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error", "@modelcontextprotocol/sdk@"+altHTTPSDK); err != nil {
		return err
	}
	if err2 := b.probeHTTP(ctx, s, t); err2 != nil {
		return fmt.Errorf("openapi-mcp-generator's streamable-http server of %s fails as built (%v) and with @modelcontextprotocol/sdk@%s (%v)", s.Name, err, altHTTPSDK, err2)
	}
	b.report.note(fmt.Sprintf("openapi-mcp-generator's streamable-http server, built as its README says (npm install resolved @modelcontextprotocol/sdk %s), fails: %s. Its HTTP figures were measured with @modelcontextprotocol/sdk %s instead (npm install --no-save), the last release before the SDK's Node transport moved onto @hono/node-server; the generated code is unchanged.", resolved, crashSummary(err), altHTTPSDK))
	return nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// crashSummary picks the telling line of a crashed Node server's stderr.
func crashSummary(err error) string {
	msg := err.Error()
	for _, line := range strings.Split(msg, "\n") {
		if strings.Contains(line, "Error") && !strings.HasPrefix(strings.TrimSpace(line), "at ") {
			return "after its first answer the process dies with `" + strings.TrimSpace(line) + "`"
		}
	}
	return firstLine(msg)
}

// depVersions lists the resolved versions of a generated project's
// runtime dependencies.
func depVersions(proj string) string {
	var out []string
	for _, dep := range []string{"@modelcontextprotocol/sdk", "zod", "json-schema-to-zod", "axios", "hono", "@hono/node-server", "fetch-to-node", "typescript"} {
		if v := npmVersion(filepath.Join(proj, "node_modules", dep, "package.json")); v != "" {
			out = append(out, dep+" "+v)
		}
	}
	return strings.Join(out, ", ")
}

func npmVersion(pkgJSON string) string {
	b, err := os.ReadFile(pkgJSON)
	if err != nil {
		return ""
	}
	var p struct {
		Version string `json:"version"`
	}
	json.Unmarshal(b, &p)
	return p.Version
}

// altGenArgs is the alternative's generate command for spec s into out.
func altGenArgs(a *altSide, s Spec, out, transport string) []string {
	args := []string{a.node, a.generator, "--input", s.Path, "--output", out, "--force"}
	if transport != "stdio" {
		args = append(args, "--transport="+transport, "--port="+altHTTPPort)
	}
	return args
}

// altEnv is the environment of spec s's alternative server.
func altEnv(s Spec, backendURL string) []string {
	return append([]string{"API_BASE_URL=" + backendURL}, s.AltEnv...)
}

// freePort returns a loopback port nothing listens on (at the moment).
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitListening waits until something accepts connections on port.
func waitListening(ctx context.Context, port int, within time.Duration) error {
	deadline := time.Now().Add(within)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing listens on %s after %s", addr, within)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// buildTokens builds bench/tokens, the o200k_base token counter (a module
// of its own, so the tokenizer is not a dependency of tailor).
func (b *runner) buildTokens(ctx context.Context) (string, error) {
	bin := filepath.Join(b.work, "bin", "tokens")
	b.logf("building the token counter (bench/tokens)")
	_, err := run(ctx, filepath.Join(b.root, "bench", "tokens"), []string{"GOWORK=off", "GOFLAGS=-mod=readonly"}, "go", "build", "-o", bin, ".")
	return bin, err
}

// settle drops the executables at paths, or in the folders at paths, from
// the page cache once they are built (dropCached says why), so that every
// program measured, tailor's and the alternative's, is read as it would be
// from disk. The untimed warm-up runs read them back.
func (b *runner) settle(paths ...string) {
	for _, p := range paths {
		files := []string{p}
		if entries, err := os.ReadDir(p); err == nil {
			files = files[:0]
			for _, e := range entries {
				if e.Type().IsRegular() {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
		}
		for _, f := range files {
			if err := dropCached(f); err != nil {
				b.logf("settle %s: %v", f, err)
			}
		}
	}
}
