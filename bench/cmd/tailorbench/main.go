// Command tailorbench is tailor's benchmark beside openapi-mcp-generator
// (see package bench and BENCHMARKS.md). `make bench` runs it:
//
//	go run ./bench/cmd/tailorbench --out .tools/bench-results.md
//
// It prints a Markdown report on stdout (and to --out), progress on stderr.
// --quick runs every figure once or twice on the bundled example only.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tailormcp/tailor/bench"
)

func main() {
	os.Exit(run())
}

func run() int {
	full, q := bench.FullConfig(), bench.QuickConfig()
	var (
		quick    = flag.Bool("quick", false, "the bundled example only, each figure measured once or twice (what CI runs)")
		alt      = flag.String("alt", "auto", "measure openapi-mcp-generator too: on, off, or auto (on when npm is on PATH)")
		specs    = flag.String("specs", "", "comma-separated spec names to run (petstore, stripe, kubernetes, discourse, with wild added, the wild corpus too; default all)")
		corpus   = flag.String("corpus", "", "directory of the real-world specs (default ../shared/corpus beside the checkout)")
		work     = flag.String("work", "", "work directory, emptied first (default .tools/bench)")
		out      = flag.String("out", "", "also write the report to this file")
		runs     = flag.Int("runs", 0, fmt.Sprintf("interleaved runs of generation and of cold start (default %d, --quick %d)", full.Runs, q.Runs))
		rounds   = flag.Int("rounds", 0, fmt.Sprintf("rounds of tools/call and of HTTP load (default %d, --quick %d)", full.Rounds, q.Rounds))
		calls    = flag.Int("calls", 0, fmt.Sprintf("tools/call per server per round (default %d, --quick %d)", full.Calls, q.Calls))
		clients  = flag.Int("clients", 0, fmt.Sprintf("concurrent HTTP clients (default %d)", full.Clients))
		duration = flag.Duration("duration", 0, fmt.Sprintf("HTTP load per round, after the warm-up (default %s, --quick %s)", full.Duration, q.Duration))
		warmup   = flag.Duration("warmup", 0, fmt.Sprintf("HTTP warm-up per round (default %s, --quick %s)", full.Warmup, q.Warmup))
		profile  = flag.String("profile", "", "also write CPU and allocation profiles of tailor's side (and their go tool pprof -top) into this directory")
		wild     = flag.Bool("wild", true, "also time generation of every spec of the wild corpus (../shared/corpus/wild; not with --quick)")
		wildRuns = flag.Int("wild-runs", 0, fmt.Sprintf("interleaved runs of generation per wild spec (default %d)", full.WildRuns))
		tokens   = flag.Bool("tokens", true, "count tools/list tokens (builds bench/tokens, which needs the Go module proxy)")
		scale    = flag.String("scale", "", fmt.Sprintf("comma-separated sizes, in operations, of the synthetic specs of the scale rows, or none (default %s, --quick %s)", ints(full.Scale), ints(q.Scale)))
		build    = flag.Int("scale-build", -1, fmt.Sprintf("largest scale size whose generated server is built and started (default %d, --quick %d)", full.ScaleBuild, q.ScaleBuild))
		dynamic  = flag.Bool("dynamic-only", false, "measure dynamic mode only (--dynamic: tools/list tokens at start, cold start, round trips of a task) on stripe, kubernetes and the largest wild spec")
	)
	flag.Parse()
	cfg := full
	if *quick {
		cfg = q
	}
	if *runs > 0 {
		cfg.Runs = *runs
	}
	if *rounds > 0 {
		cfg.Rounds = *rounds
	}
	if *calls > 0 {
		cfg.Calls = *calls
	}
	if *clients > 0 {
		cfg.Clients = *clients
	}
	if *duration > 0 {
		cfg.Duration = *duration
	}
	if *warmup > 0 {
		cfg.Warmup = *warmup
	}
	cfg.Tokens = *tokens
	if *scale != "" {
		sizes, err := parseInts(*scale)
		if err != nil {
			fmt.Fprintf(os.Stderr, "tailorbench: --scale: %v\n", err)
			return 2
		}
		cfg.Scale = sizes
	}
	if *build >= 0 {
		cfg.ScaleBuild = *build
	}
	cfg.DynamicOnly = *dynamic
	if *profile != "" {
		abs, err := filepath.Abs(*profile)
		if err != nil {
			fmt.Fprintf(os.Stderr, "tailorbench: %v\n", err)
			return 2
		}
		cfg.Profile = abs
	}
	cfg.Work = *work
	cfg.Command = strings.Join(append([]string{"tailorbench"}, os.Args[1:]...), " ")
	switch *alt {
	case "on":
		cfg.Alt = true
	case "off":
		cfg.Alt = false
	case "auto":
		_, err := exec.LookPath("npm")
		cfg.Alt = err == nil
	default:
		fmt.Fprintf(os.Stderr, "tailorbench: --alt must be on, off or auto\n")
		return 2
	}
	root := bench.RepoRoot()
	cfg.Root = root
	dir := *corpus
	if dir == "" {
		dir = bench.FindCorpus(root)
	}
	all := bench.DefaultSpecs(root, dir)
	if *quick {
		all = []bench.Spec{bench.PetstoreSpec(root)}
	}
	cfg.Specs = bench.SelectSpecs(all, *specs)
	if *wild && !*quick && (*specs == "" || slices.Contains(strings.Split(*specs, ","), "wild")) {
		cfg.Wild = bench.WildSpecs(dir)
		cfg.WildRuns = full.WildRuns
		if *wildRuns > 0 {
			cfg.WildRuns = *wildRuns
		}
	}
	if len(cfg.Specs) == 0 {
		fmt.Fprintf(os.Stderr, "tailorbench: no spec selected (corpus: %q)\n", dir)
		return 2
	}
	if !*quick && dir == "" {
		fmt.Fprintf(os.Stderr, "tailorbench: no ../shared/corpus beside the checkout and no --corpus: only the bundled example is measured\n")
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Everything is bounded; this bounds the whole.
	ctx, cancel := context.WithTimeout(ctx, 3*time.Hour)
	defer cancel()
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tailorbench: %v\n", err)
		return 1
	}
	md := rep.Markdown()
	fmt.Print(md)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "tailorbench: %v\n", err)
			return 1
		}
	}
	return 0
}

// ints prints sizes as --scale takes them.
func ints(sizes []int) string {
	var parts []string
	for _, n := range sizes {
		parts = append(parts, strconv.Itoa(n))
	}
	return strings.Join(parts, ",")
}

// parseInts reads --scale: "none", or sizes separated by commas.
func parseInts(s string) ([]int, error) {
	if s == "none" {
		return nil, nil
	}
	var sizes []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a number of operations", part)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}
