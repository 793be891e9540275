package bench

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
	"time"
)

// Profiles (Config.Profile) answer "where does tailor's time go": a
// program written into the throwaway module runs each stage in-process
// under runtime/pprof, and `go tool pprof -top` renders each profile as
// text beside it.
//
//   - <spec>-generate: generator.Run, Render and Write, as the CLI does, n times
//     with the validation cache off, so each validates (CPU and allocation
//     profiles);
//   - <spec>-start: mcpkit.NewServer (registration), the initialize
//     handshake and tools/list over newline-delimited JSON on in-process
//     pipes, as over stdio, n times; it also prints how long each phase took;
//   - <spec>-call: tools/call of the benchmark's tool against the loopback
//     backend, n times;
//   - <spec>-http: the generated server's own mcpkit.Main serving streamable
//     HTTP while the benchmark loads it as in the calls/s figure.

var profMain = template.Must(template.New("prof").Parse(`// Written by tailor's benchmark (bench/profile.go): profiles tailor's
// generator and generated servers in-process.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/mcpkit"
{{range .}}
	{{.Name}} "example.com/bench/{{.Name}}"{{end}}
)

var servers = map[string]struct {
	api      mcpkit.API
	register mcpkit.Register
}{ {{range .}}
	"{{.Name}}": { {{.Name}}.API, {{.Name}}.Register },{{end}}
}

func main() {
	mode := flag.String("mode", "", "generate, start or call")
	name := flag.String("name", "", "spec / package name")
	spec := flag.String("spec", "", "generate: the spec")
	out := flag.String("out", "", "generate: output directory")
	n := flag.Int("n", 10, "iterations")
	cpu := flag.String("cpu", "", "CPU profile")
	mem := flag.String("mem", "", "allocation profile")
	base := flag.String("base", "", "call: backend base URL")
	tool := flag.String("tool", "", "call: tool")
	args := flag.String("args", "{}", "call: arguments")
	addr := flag.String("addr", "", "http: address to serve on")
	flag.Parse()

	if *mode == "http" {
		// The server exactly as the generated main runs it; the profile
		// covers from start until stdin closes.
		f, err := os.Create(*cpu)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		sv := servers[*name]
		go func() {
			os.Exit(mcpkit.Main(sv.api, sv.register, []string{"--http", *addr, "--base-url", *base}))
		}()
		io.Copy(io.Discard, os.Stdin)
		pprof.StopCPUProfile()
		f.Close()
		return
	}

	var body func(i int)
	report := func() {}
	switch *mode {
	case "generate":
		body = func(int) {
			res, err := generator.Run(generator.Options{SpecPath: *spec, OutDir: *out, Package: *name, Name: *name, Main: true, ImportPath: "example.com/prof/" + *name})
			if err != nil {
				log.Fatal(err)
			}
			files, err := res.Render()
			if err != nil {
				log.Fatal(err)
			}
			_ = res.Warnings() // the CLI waits for validation's warnings
			if _, err := generator.Write(*out, files); err != nil {
				log.Fatal(err)
			}
			os.RemoveAll(*out)
		}
	case "start":
		sv := servers[*name]
		var reg, ini, list []time.Duration
		body = func(int) {
			t0 := time.Now()
			s, _, err := mcpkit.NewServer(sv.api, mcpkit.Config{BaseURL: "http://127.0.0.1:1", Log: io.Discard}, sv.register)
			if err != nil {
				log.Fatal(err)
			}
			t1 := time.Now()
			c := connect(s)
			c.request("initialize", ` + "`" + `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"prof","version":"1"}}` + "`" + `)
			c.notify("notifications/initialized")
			t2 := time.Now()
			c.request("tools/list", "")
			t3 := time.Now()
			c.close()
			reg, ini, list = append(reg, t1.Sub(t0)), append(ini, t2.Sub(t1)), append(list, t3.Sub(t2))
		}
		report = func() {
			fmt.Printf("median over %d starts: mcpkit.NewServer (registration) %s, initialize %s, tools/list %s\n", len(reg), median(reg), median(ini), median(list))
		}
	case "call":
		sv := servers[*name]
		s, _, err := mcpkit.NewServer(sv.api, mcpkit.Config{BaseURL: *base, Log: io.Discard, Getenv: os.Getenv}, sv.register)
		if err != nil {
			log.Fatal(err)
		}
		c := connect(s)
		c.request("initialize", ` + "`" + `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"prof","version":"1"}}` + "`" + `)
		c.notify("notifications/initialized")
		params := ` + "`" + `{"name":"` + "`" + ` + *tool + ` + "`" + `","arguments":` + "`" + ` + *args + "}"
		for i := 0; i < 200; i++ {
			c.request("tools/call", params)
		}
		var took []time.Duration
		body = func(int) {
			t0 := time.Now()
			c.request("tools/call", params)
			took = append(took, time.Since(t0))
		}
		report = func() { fmt.Printf("median tools/call over in-process pipes: %s (n=%d)\n", median(took), len(took)) }
	default:
		log.Fatalf("unknown -mode %q", *mode)
	}
	if *cpu != "" {
		f, err := os.Create(*cpu)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
	}
	for i := 0; i < *n; i++ {
		body(i)
	}
	if *cpu != "" {
		pprof.StopCPUProfile()
	}
	if *mem != "" {
		runtime.GC()
		f, err := os.Create(*mem)
		if err != nil {
			log.Fatal(err)
		}
		pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
	report()
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

// conn is a raw JSON-RPC client on in-process pipes: the server side is the
// IOTransport a generated server uses over stdio.
type conn struct {
	w      *io.PipeWriter
	r      *bufio.Reader
	cancel context.CancelFunc
	id     int
}

func connect(s *mcp.Server) *conn {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	go s.Run(ctx, &mcp.IOTransport{Reader: inR, Writer: outW})
	return &conn{w: inW, r: bufio.NewReaderSize(outR, 1<<20), cancel: cancel}
}

func (c *conn) request(method, params string) {
	c.id++
	msg := ` + "`" + `{"jsonrpc":"2.0","id":` + "`" + ` + strconv.Itoa(c.id) + ` + "`" + `,"method":"` + "`" + ` + method + ` + "`" + `"` + "`" + `
	if params != "" {
		msg += ` + "`" + `,"params":` + "`" + ` + params
	}
	if _, err := io.WriteString(c.w, msg+"}\n"); err != nil {
		log.Fatal(err)
	}
	if _, err := c.r.ReadBytes('\n'); err != nil {
		log.Fatal(err)
	}
}

func (c *conn) notify(method string) {
	io.WriteString(c.w, ` + "`" + `{"jsonrpc":"2.0","method":"` + "`" + ` + method + ` + "`" + `"}` + "`" + ` + "\n")
}

func (c *conn) close() {
	c.w.Close()
	c.cancel()
}
`))

// profile builds the profiling program and runs it for every spec, writing
// profiles and their `go tool pprof -top` text into dir.
func (b *runner) profile(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	src := filepath.Join(b.tailor.mod, "prof")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := profMain.Execute(&buf, b.specs); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), buf.Bytes(), 0o644); err != nil {
		return err
	}
	bin := filepath.Join(b.work, "bin", "prof")
	b.logf("profiles: building the profiling program")
	if _, err := run(ctx, b.tailor.mod, goEnv, "go", "build", "-o", bin, "./prof"); err != nil {
		return err
	}
	var summary strings.Builder
	for _, s := range b.specs {
		n := func(big, small int) string {
			if s.Ops > 100 {
				return strconv.Itoa(big)
			}
			return strconv.Itoa(small)
		}
		type job struct {
			what string
			args []string
			mem  bool
		}
		jobs := []job{
			{"generate", []string{"-mode", "generate", "-spec", s.Path, "-out", filepath.Join(b.work, "prof-gen-"+s.Name), "-n", n(5, 50)}, true},
			{"start", []string{"-mode", "start", "-n", n(20, 500)}, false},
			{"call", []string{"-mode", "call", "-base", b.backend.URL, "-tool", s.TailorTool, "-args", s.Args, "-n", "5000"}, false},
			{"http", nil, false},
		}
		for _, j := range jobs {
			b.logf("profiles: %s %s", s.Name, j.what)
			base := filepath.Join(dir, s.Name+"-"+j.what)
			args := append([]string{bin, "-name", s.Name, "-cpu", base + ".cpu.pprof"}, j.args...)
			if j.mem {
				args = append(args, "-mem", base+".alloc.pprof")
			}
			var out string
			var err error
			if j.what == "http" {
				out, err = b.profileHTTP(ctx, s, bin, base+".cpu.pprof")
			} else {
				jctx, cancel := context.WithTimeout(ctx, 20*time.Minute)
				// The validation cache off: every generation validates.
				env := append(tailorEnv(s, b.backend.URL), "TAILOR_CACHE=off")
				out, err = run(jctx, b.work, env, args...)
				cancel()
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(&summary, "%s %s: %s", s.Name, j.what, out)
			top, err := run(ctx, b.work, nil, "go", "tool", "pprof", "-top", "-nodecount=60", bin, base+".cpu.pprof")
			if err != nil {
				return err
			}
			if err := os.WriteFile(base+".cpu.top.txt", []byte(top), 0o644); err != nil {
				return err
			}
			cum, err := run(ctx, b.work, nil, "go", "tool", "pprof", "-top", "-cum", "-nodecount=60", bin, base+".cpu.pprof")
			if err != nil {
				return err
			}
			if err := os.WriteFile(base+".cpu.cum.txt", []byte(cum), 0o644); err != nil {
				return err
			}
			if j.mem {
				top, err := run(ctx, b.work, nil, "go", "tool", "pprof", "-top", "-sample_index=alloc_space", "-nodecount=40", bin, base+".alloc.pprof")
				if err != nil {
					return err
				}
				if err := os.WriteFile(base+".alloc.top.txt", []byte(top), 0o644); err != nil {
					return err
				}
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.txt"), []byte(summary.String()), 0o644); err != nil {
		return err
	}
	b.report.note(fmt.Sprintf("Profiles of tailor's side are in %s (summary.txt, *.top.txt).", dir))
	return nil
}

// profileHTTP runs the profiling program's http mode (the generated
// server's mcpkit.Main over streamable HTTP, under the CPU profiler) and
// loads it as the calls/s figure does, with one shared session.
func (b *runner) profileHTTP(ctx context.Context, s Spec, bin, cpu string) (string, error) {
	port, err := freePort()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-mode", "http", "-name", s.Name, "-cpu", cpu, "-addr", fmt.Sprintf("127.0.0.1:%d", port), "-base", b.backend.URL)
	cmd.Dir = b.work
	cmd.Env = append(os.Environ(), tailorEnv(s, b.backend.URL)...)
	cmd.SysProcAttr = procAttr()
	cmd.WaitDelay = 5 * time.Second
	var logs limitedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	defer cmd.Wait()
	defer stdin.Close()
	if err := waitListening(ctx, port, time.Minute); err != nil {
		return "", err
	}
	t := b.tailorHTTPTarget(s)
	tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	h, err := openHTTPSession(ctx, client, fmt.Sprintf("http://127.0.0.1:%d/mcp", port))
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, logs.String())
	}
	r := b.load(ctx, []*httpSession{h}, t.params(s))
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		return "", fmt.Errorf("profiling server: %v: %s", err, logs.String())
	}
	return fmt.Sprintf("%.0f calls/s under the profiler, %d clients on one session, %d failed\n", r.perSecond, b.cfg.Clients, r.failed), nil
}
