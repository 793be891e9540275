// Package bench is tailor's benchmark beside openapi-mcp-generator (npm,
// the TypeScript alternative): on one machine, in one run, it measures
// both generators on the same specs and both generated servers against the
// same loopback backend, and prints a Markdown table of medians, spreads
// and tailor ÷ alternative ratios against the targets of issues 6, 30 and
// 31.
//
// Figures: generation wall time and peak RSS; cold start over stdio
// (spawn → initialize answered → tools/list answered), beside a go-sdk
// server with no tools; the overhead of one tools/call over stdio minus the
// same HTTP request made directly; sustained calls/s over streamable HTTP
// with 32 concurrent clients; resident memory; bytes and o200k_base tokens
// of tools/list; quote + confirm pairs per second with the Redis quote
// store beside the memory store (quotes.go).
//
// `make bench` runs it (bench/cmd/tailorbench); --quick runs it once on the
// bundled example, which is what CI does (bench_test.go) so that the
// harness cannot rot. Every server listens on loopback only, every loop is
// bounded, and every process it starts is killed when it returns.
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Config is one benchmark run.
type Config struct {
	// Root is the tailor checkout (default: the one this package is in).
	Root string
	// Work is where generated and built things go (default .tools/bench,
	// which is emptied first).
	Work string
	// Specs to run (default DefaultSpecs).
	Specs []Spec
	// Alt measures openapi-mcp-generator too; it needs npm.
	Alt bool
	// Runs is the number of interleaved runs of generation and cold start.
	Runs int
	// Rounds is the number of rounds of tools/call and of HTTP load.
	Rounds int
	// Calls is the number of tools/call per server per round.
	Calls int
	// Clients, Warmup and Duration shape the HTTP load.
	Clients          int
	Warmup, Duration time.Duration
	// Tokens counts tools/list tokens (builds bench/tokens).
	Tokens bool
	// Dynamic measures dynamic mode (dynamic.go) on the large specs (or,
	// with only one spec, on it) and the largest spec of the corpus's
	// wild/ folder.
	Dynamic bool
	// DynamicOnly measures dynamic mode and nothing else.
	DynamicOnly bool
	// Wild are the wild corpus's specs, whose generation is timed
	// WildRuns times each (wild.go); none without the corpus.
	Wild     []Spec
	WildRuns int
	// Scale are the sizes, in operations, of the synthetic specs the scale
	// rows measure (scale.go); ScaleBuild is the largest whose generated
	// server is built and started.
	Scale      []int
	ScaleBuild int
	// Profile, when set, is a directory to write CPU and allocation
	// profiles of tailor's side into (see profile.go).
	Profile string
	// Command is the command line, for the report.
	Command string
	// Log receives progress (default stderr).
	Log io.Writer
}

// FullConfig is `make bench`.
func FullConfig() Config {
	return Config{Alt: true, Runs: 7, Rounds: 3, Calls: 2000, Clients: 32, Warmup: time.Second, Duration: 5 * time.Second, Tokens: true, Dynamic: true, WildRuns: 3,
		Scale: []int{5000, 25000, 50000}, ScaleBuild: 5000}
}

// QuickConfig is --quick: the bundled example only, every figure measured
// once or twice, a few seconds of load.
func QuickConfig() Config {
	return Config{Alt: true, Runs: 2, Rounds: 1, Calls: 40, Clients: 32, Warmup: 200 * time.Millisecond, Duration: time.Second, Tokens: true, Dynamic: true}
}

// RepoRoot is the root of the checkout this package is in.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), ".."))
}

type runner struct {
	cfg     Config
	root    string
	work    string
	specs   []Spec
	log     io.Writer
	backend *backend
	tailor  *tailorSide
	alt     *altSide
	report  *Report
}

func (b *runner) logf(format string, args ...any) {
	fmt.Fprintf(b.log, "tailorbench: "+format+"\n", args...)
}

// Run runs the benchmark and returns its report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	b := &runner{cfg: cfg, root: cfg.Root, work: cfg.Work, specs: cfg.Specs, log: cfg.Log}
	if b.root == "" {
		b.root = RepoRoot()
	}
	if b.work == "" {
		b.work = filepath.Join(b.root, ".tools", "bench")
	}
	if b.log == nil {
		b.log = os.Stderr
	}
	if b.specs == nil {
		b.specs = DefaultSpecs(b.root, FindCorpus(b.root))
	}
	if len(b.specs) == 0 {
		return nil, fmt.Errorf("no specs to run")
	}
	for _, s := range b.specs {
		if _, err := os.Stat(s.Path); err != nil {
			return nil, fmt.Errorf("spec %s: %w", s.Name, err)
		}
	}
	if b.cfg.Runs < 1 || b.cfg.Rounds < 1 || b.cfg.Calls < 1 || b.cfg.Clients < 1 || b.cfg.Duration <= 0 {
		return nil, fmt.Errorf("runs, rounds, calls, clients and duration must be positive")
	}
	if err := os.RemoveAll(b.work); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(b.work, "logs"), 0o755); err != nil {
		return nil, err
	}
	b.report = &Report{Started: time.Now(), Command: cfg.Command, cfg: cfg}
	b.phase("start")

	var err error
	if b.tailor, err = b.setupTailor(ctx); err != nil {
		return nil, err
	}
	if b.backend, err = startBackend(b.tailor.backend); err != nil {
		return nil, err
	}
	defer b.backend.Close()
	if cfg.Alt {
		if b.alt, err = b.setupAlt(ctx); err != nil {
			return nil, err
		}
	} else {
		b.report.note("openapi-mcp-generator was not measured (--alt=false, or no npm): its columns are empty.")
	}
	b.settle(filepath.Join(b.work, "bin"))
	if b.alt != nil {
		b.settle(b.alt.node)
	}
	b.phase("setup done")
	b.machine(ctx)

	var tokens string
	if cfg.Tokens {
		if tokens, err = b.buildTokens(ctx); err != nil {
			return nil, err
		}
	}
	for _, s := range b.specs {
		if cfg.DynamicOnly {
			break
		}
		if err := b.runSpec(ctx, s, tokens); err != nil {
			return nil, err
		}
		b.phase(s.Name + " done")
	}
	if len(cfg.Wild) > 0 {
		if cfg.WildRuns < 1 {
			return nil, fmt.Errorf("wild runs must be positive")
		}
		if err := b.measureWild(ctx); err != nil {
			return nil, err
		}
		b.phase("wild corpus done")
	}
	if len(cfg.Scale) > 0 && !cfg.DynamicOnly {
		if err := b.measureScale(ctx); err != nil {
			return nil, err
		}
		b.phase("scale done")
	}
	if cfg.Dynamic || cfg.DynamicOnly {
		var specs []Spec
		for _, s := range b.specs {
			if big(s) || len(b.specs) == 1 {
				specs = append(specs, s)
			}
		}
		if corpus := FindCorpus(b.root); corpus != "" && len(specs) > 1 {
			if w, ok := WildLargest(corpus); ok {
				specs = append(specs, w)
			}
		}
		if err := b.measureDynamic(ctx, specs, tokens); err != nil {
			return nil, err
		}
		b.phase("dynamic mode done")
	}
	if cfg.DynamicOnly {
		b.report.Duration = time.Since(b.report.Started)
		return b.report, nil
	}
	if err := b.measureQuotes(ctx); err != nil {
		return nil, err
	}
	b.phase("quote store done")
	if cfg.Profile != "" {
		if err := b.profile(ctx, cfg.Profile); err != nil {
			return nil, err
		}
		b.phase("profiles done")
	}
	b.report.Duration = time.Since(b.report.Started)
	return b.report, nil
}

// phase records the load average at a point of the run: how busy the
// machine was besides the benchmark.
func (b *runner) phase(name string) {
	p := Phase{Name: name, At: time.Now(), Load: loadAvg()}
	p.MachineCPU, p.OurCPU, _ = cpuSeconds()
	b.report.Phases = append(b.report.Phases, p)
}

func (b *runner) runSpec(ctx context.Context, s Spec, tokens string) error {
	rep := b.report
	alt := b.alt != nil

	// Generation.
	b.logf("%s: generation, %d interleaved runs", s.Name, b.cfg.Runs)
	tailorGen := func(out string) []string { return tailorGenArgs(b.tailor.cli, s, out, false) }
	gens := []generator{{labelTailor, tailorGen, coldCache}}
	if alt {
		gens = append(gens, generator{labelAlt, func(out string) []string { return altGenArgs(b.alt, s, out, "stdio") }, noCache})
	}
	gens = append(gens,
		generator{labelTailorNoValidate, func(out string) []string { return tailorGenArgs(b.tailor.cli, s, out, true) }, coldCache})
	g, err := b.measureGeneration(ctx, s, gens)
	if err != nil {
		return err
	}
	rep.addGeneration(s, g)

	// Cold start, memory, tools/list.
	b.logf("%s: cold start, %d interleaved runs", s.Name, b.cfg.Runs)
	servers := []server{{labelTailor, []string{b.tailor.servers[s.Name]}, b.work, tailorEnv(s, b.backend.URL)}}
	if alt {
		servers = append(servers, server{labelAlt, []string{b.alt.node, "build/index.js"}, b.alt.stdio[s.Name], altEnv(s, b.backend.URL)})
	}
	servers = append(servers, server{labelGoFloor, []string{b.tailor.floor}, b.work, nil})
	// tailor serve's cache is the one its warm-up start filled, as on a
	// developer's machine after the first start: it serves the tool set
	// that start built.
	serveCache := filepath.Join(b.work, "serve-cache-"+s.Name)
	servers = append(servers, server{labelServe, []string{b.tailor.cli, "serve", "--spec", s.Path, "--name", s.Name}, b.work, append(tailorEnv(s, b.backend.URL), "TAILOR_CACHE="+serveCache)})
	if alt {
		servers = append(servers, server{labelNodeFloor, []string{b.alt.node, b.alt.floor}, filepath.Dir(b.alt.floor), nil})
	}
	c, err := b.measureColdStarts(ctx, servers)
	if err != nil {
		return err
	}
	if err := b.checkTools(s, c); err != nil {
		return err
	}
	if err := rep.addColdStart(s, c, b.work, tokens); err != nil {
		return err
	}

	// tools/call over stdio.
	b.logf("%s: tools/call over stdio, %d rounds of %d calls", s.Name, b.cfg.Rounds, b.cfg.Calls)
	floorTool := []string{"TAILORBENCH_FLOOR_TOOL=1"}
	targets := []callTarget{{servers[0], s.TailorTool, ""}}
	if alt {
		targets = append(targets, callTarget{servers[1], s.AltTool, ""})
	}
	targets = append(targets, callTarget{server{labelGoFloor, []string{b.tailor.floor}, b.work, floorTool}, "noop", "{}"})
	targets = append(targets, callTarget{server{labelGoRequestFloor, []string{b.tailor.floor}, b.work, floorRequestEnv(s, b.backend.URL)}, "request", ""})
	if alt {
		targets = append(targets, callTarget{server{labelNodeFloor, []string{b.alt.node, b.alt.floor}, filepath.Dir(b.alt.floor), floorTool}, "noop", "{}"})
	}
	calls, mem, err := b.measureCalls(ctx, s, targets)
	if err != nil {
		return err
	}
	rep.addCalls(s, calls, mem)

	// Streamable HTTP.
	b.logf("%s: streamable HTTP, %d clients, %d rounds of %s", s.Name, b.cfg.Clients, b.cfg.Rounds, b.cfg.Duration)
	hts := []httpTarget{b.tailorHTTPTarget(s)}
	if alt {
		hts = append(hts, b.altHTTPTarget(s, b.alt))
	}
	h, err := b.measureHTTP(ctx, s, hts)
	if err != nil {
		return err
	}
	rep.addHTTP(s, h, b.cfg)
	return nil
}

func (b *runner) tailorHTTPTarget(s Spec) httpTarget {
	return httpTarget{
		label: labelTailor, tool: s.TailorTool, sessions32: true, dir: b.work,
		argvFor: func(port int) []string {
			return []string{b.tailor.servers[s.Name], "--http", fmt.Sprintf("127.0.0.1:%d", port)}
		},
		env: func(int) []string { return tailorEnv(s, b.backend.URL) },
	}
}

// altHTTPTarget runs the alternative's streamable-http build with the
// loopback shim preloaded (see loopbackShim).
func (b *runner) altHTTPTarget(s Spec, a *altSide) httpTarget {
	return httpTarget{
		label: labelAlt, tool: s.AltTool, sessions32: true, dir: a.http[s.Name],
		argvFor: func(int) []string {
			return []string{a.node, "--import", "file://" + a.shim, "build/index.js"}
		},
		env: func(port int) []string {
			return append(altEnv(s, b.backend.URL), fmt.Sprintf("TAILORBENCH_PORT=%d", port))
		},
	}
}

// checkTools checks both servers list one tool per operation, including
// the tool the benchmark calls.
func (b *runner) checkTools(s Spec, c map[string][]coldRun) error {
	for label, tool := range map[string]string{labelTailor: s.TailorTool, labelAlt: s.AltTool} {
		runs := c[label]
		if len(runs) == 0 {
			continue
		}
		names := toolNames(runs[0].tools)
		if s.Ops > 0 && len(names) != s.Ops {
			b.report.note(fmt.Sprintf("%s lists %d tools for %s, which has %d operations.", label, len(names), s.Name, s.Ops))
		}
		if !names[tool] {
			return fmt.Errorf("%s: %s lists no tool %q", s.Name, label, tool)
		}
	}
	return nil
}

// machine records what the figures were measured on.
func (b *runner) machine(ctx context.Context) {
	rep := b.report
	add := func(k, v string) {
		if strings.TrimSpace(v) != "" {
			rep.Machine = append(rep.Machine, [2]string{k, strings.TrimSpace(v)})
		}
	}
	add("date", rep.Started.UTC().Format("2006-01-02 15:04 MST"))
	if cpuinfo, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(cpuinfo), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				add("CPU", v)
				break
			}
		}
	}
	add("CPUs (runtime.NumCPU)", fmt.Sprint(runtime.NumCPU()))
	if mem, err := os.ReadFile("/proc/meminfo"); err == nil {
		line, _, _ := strings.Cut(string(mem), "\n")
		add("memory", strings.TrimSpace(strings.TrimPrefix(line, "MemTotal:")))
	}
	if v, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		add("kernel", runtime.GOOS+" "+string(v))
	}
	if out, err := run(ctx, b.root, nil, "go", "version"); err == nil {
		add("Go", out)
	}
	if out, err := exec.Command("git", "-C", b.root, "rev-parse", "HEAD").Output(); err == nil {
		rev := strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "-C", b.root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
			rev += " (with uncommitted changes)"
		}
		add("tailor", rev)
	}
	add("go-sdk", b.tailor.goSDK)
	if b.alt != nil {
		add("openapi-mcp-generator", b.alt.version)
		add("Node (generator and its servers)", b.alt.nodeVersion)
		add("npm", b.alt.npmVersion)
		add("its stdio servers' dependencies (as npm install resolved them)", b.alt.deps["stdio"])
		add("its streamable-http servers' dependencies (see the notes)", depVersions(b.alt.http[b.specs[0].Name]))
	}
	add("build (one-off, not compared)", b.buildSummary())
}

func (b *runner) buildSummary() string {
	s := fmt.Sprintf("tailor: go build of all %d servers and the floor %.1f s", len(b.specs), b.tailor.buildTime.Seconds())
	if b.alt != nil {
		var parts []string
		for _, sp := range b.specs {
			parts = append(parts, fmt.Sprintf("%s %.1f s", sp.Name, b.alt.buildTime[sp.Name].Seconds()))
		}
		s += "; openapi-mcp-generator: npm install + npm run build of the stdio and HTTP projects: " + strings.Join(parts, ", ")
	}
	return s
}

const (
	labelTailor           = "tailor"
	labelTailorNoValidate = "tailor --no-validate"
	labelAlt              = "openapi-mcp-generator"
	labelGoFloor          = "go-sdk server, no tools"
	labelNodeFloor        = "TypeScript SDK server, no tools"
	labelGoRequestFloor   = "go-sdk server whose handler makes the request"
	labelServe            = "tailor serve"
)
