package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Dynamic mode (--dynamic) on the large specs: what tools/list costs at
// start, how long a cold start to it takes beside the go-sdk floor, and
// how many round trips a task takes from the task to the answer (search
// for the tool, then call it through call_tool).

// dynamicTask is a task for dynamic mode on one spec: the search a model
// would make, the tool that does it, and the arguments of the call.
type dynamicTask struct {
	query, tool, args string
	// env holds the credentials the call needs.
	env []string
}

var dynamicTasks = map[string]dynamicTask{
	"petstore":   {"find a pet by its id", "get_pet", `{"petId":"p_17"}`, nil},
	"stripe":     {"list invoices of a customer", "get_invoices", `{"customer":"cus_bench"}`, []string{"STRIPE_BEARER_AUTH_TOKEN=sk_test_x9q"}},
	"kubernetes": {"list pods in a namespace", "list_core_v1_namespaced_pod", `{"namespace":"default"}`, []string{"KUBERNETES_BEARER_TOKEN=k8s-token-x9q"}},
	"rebilly":    {"list customers", "get_customer_collection", `{}`, []string{"REBILLY_SECRET_API_KEY=rb-key-x9q"}},
}

// WildLargest is the largest spec of the corpus's wild/ folder by
// operations (its MANIFEST.tsv), as a Spec for dynamic mode only.
func WildLargest(corpus string) (Spec, bool) {
	b, err := os.ReadFile(filepath.Join(corpus, "wild", "MANIFEST.tsv"))
	if err != nil {
		return Spec{}, false
	}
	best, bestOps := "", 0
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, "\t")
		if i == 0 || len(f) < 7 {
			continue
		}
		if n, _ := strconv.Atoi(f[6]); n > bestOps {
			best, bestOps = f[1], n
		}
	}
	if best == "" {
		return Spec{}, false
	}
	name := strings.SplitN(filepath.Base(filepath.Dir(filepath.Join("x", best))), "-", 2)[0]
	if name == "x" {
		name = strings.SplitN(filepath.Base(best), "-", 2)[0]
	}
	return Spec{Name: name, Path: filepath.Join(corpus, "wild", best), Ops: bestOps}, true
}

// measureDynamic measures dynamic mode on specs, building the servers it
// lacks (a spec only measured here).
func (b *runner) measureDynamic(ctx context.Context, specs []Spec, tokens string) error {
	var build []string
	for _, s := range specs {
		if _, ok := b.tailor.servers[s.Name]; ok {
			continue
		}
		b.logf("%s: generating (for dynamic mode)", s.Name)
		if _, err := run(ctx, b.tailor.mod, []string{"TAILOR_CACHE=off"}, tailorGenArgs(b.tailor.cli, s, filepath.Join(b.tailor.mod, s.Name), false)...); err != nil {
			return err
		}
		build = append(build, "./"+s.Name+"/cmd/"+s.Name)
		b.tailor.servers[s.Name] = filepath.Join(b.work, "bin", s.Name)
	}
	if len(build) > 0 {
		if _, err := run(ctx, b.tailor.mod, goEnv, append([]string{"go", "build", "-o", filepath.Join(b.work, "bin") + string(filepath.Separator)}, build...)...); err != nil {
			return err
		}
		b.settle(filepath.Join(b.work, "bin"))
	}
	for _, s := range specs {
		b.logf("%s: dynamic mode, %d interleaved cold starts", s.Name, b.cfg.Runs)
		env := tailorEnv(s, b.backend.URL)
		dyn := server{labelTailor + " --dynamic", []string{b.tailor.servers[s.Name], "--dynamic"}, b.work, env}
		floor := server{labelGoFloor, []string{b.tailor.floor}, b.work, nil}
		c, err := b.measureColdStarts(ctx, []server{dyn, floor})
		if err != nil {
			return err
		}
		var over, starts Sample
		for i, r := range c[dyn.label] {
			starts = append(starts, millis(r.list))
			over = append(over, millis(r.list)-millis(c[floor.label][i].list))
		}
		b.report.add(Row{Figure: "--dynamic: cold start over the go-sdk floor (spawn → tools/list answered)", Spec: s.Name, Unit: "ms", Tailor: over, NoRatio: true, Target: Target{MaxTailor, 15}})
		b.report.info(Row{Figure: "--dynamic: cold start over stdio, spawn → tools/list answered", Spec: s.Name, Unit: "ms", Tailor: starts, Other: sampleOf(c[floor.label]), OtherLabel: labelGoFloor, NoRatio: true})
		first := c[dyn.label][0]
		if n := len(first.tools); n != 5 {
			return fmt.Errorf("%s --dynamic lists %d tools at start, want the 5 meta-tools", s.Name, n)
		}
		if tokens != "" {
			// The tool definitions as listed, the text tailor diff and lint
			// count: the result's cache fields are for the client, not the
			// model.
			n, err := countTokens(tokens, filepath.Join(b.work, "lists", s.Name+"-dynamic.json"), toolsList(first.tools))
			if err != nil {
				return err
			}
			b.report.add(Row{Figure: "--dynamic: tools/list tokens at start (o200k_base)", Spec: s.Name, Unit: "tokens", Tailor: Sample{float64(n)}, NoRatio: true, Target: Target{MaxTailor, 2000}})
		}
		if task, ok := dynamicTasks[s.Name]; ok {
			withCreds := dyn
			withCreds.env = append(append([]string(nil), dyn.env...), task.env...)
			trips, rank, err := b.dynamicTask(ctx, withCreds, task)
			if err != nil {
				return fmt.Errorf("%s: dynamic task %q: %w", s.Name, task.query, err)
			}
			b.report.add(Row{Figure: fmt.Sprintf("--dynamic: round trips for %q (search → call)", task.query), Spec: s.Name, Unit: "calls", Tailor: Sample{float64(trips)}, NoRatio: true, Target: Target{MaxTailor, 3}})
			b.report.info(Row{Figure: fmt.Sprintf("--dynamic: rank of %s in the search", task.tool), Spec: s.Name, Unit: "", Tailor: Sample{float64(rank)}, NoRatio: true})
		}
	}
	return nil
}

func sampleOf(runs []coldRun) Sample {
	var out Sample
	for _, r := range runs {
		out = append(out, millis(r.list))
	}
	return out
}

// toolsList is {"tools":[...]} of tools as the server sent them.
func toolsList(tools []json.RawMessage) []byte {
	b := []byte(`{"tools":[`)
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t...)
	}
	return append(b, "]}"...)
}

// countTokens writes raw to path and counts its tokens with the tokens
// program.
func countTokens(tokens, path string, raw []byte) (int, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		return 0, err
	}
	out, err := exec.Command(tokens, path).Output()
	if err != nil {
		return 0, fmt.Errorf("counting tokens: %v", err)
	}
	n, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\t")
	return strconv.Atoi(n)
}

// dynamicTask runs a task as a model would in dynamic mode: search_tools
// with the task's words, then call_tool with the hit that does it. It
// returns the round trips (tool calls) to the answer and the tool's rank
// in the search (1 = first).
func (b *runner) dynamicTask(ctx context.Context, sv server, task dynamicTask) (trips, rank int, err error) {
	errPath := filepath.Join(b.work, "logs", sanitize(sv.label)+"-task.stderr")
	s, err := startStdio(ctx, sv.argv, sv.dir, sv.env, errPath, time.Minute)
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	if _, err := s.initialize(); err != nil {
		return 0, 0, err
	}
	q, _ := json.Marshal(map[string]any{"name": "search_tools", "arguments": map[string]any{"query": task.query, "limit": 5}})
	res, _, _, err := s.request("tools/call", string(q))
	if err != nil {
		return 0, 0, err
	}
	trips++
	text := resultText(res)
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "- ") {
			rank++
			if strings.HasPrefix(line, "- "+task.tool+" ") {
				break
			}
		}
		if i == len(strings.Split(text, "\n"))-1 {
			return trips, 0, fmt.Errorf("the search does not find %s:\n%s", task.tool, text)
		}
	}
	c, _ := json.Marshal(map[string]any{"name": "call_tool", "arguments": map[string]any{"name": task.tool, "arguments": json.RawMessage(task.args)}})
	res, _, _, err = s.request("tools/call", string(c))
	if err != nil {
		return trips, rank, err
	}
	trips++
	if err := checkCall(res); err != nil {
		return trips, rank, fmt.Errorf("call_tool %s: %w (stderr: %s)", task.tool, err, readTail(errPath))
	}
	return trips, rank, nil
}

// resultText joins a tools/call result's text content.
func resultText(raw json.RawMessage) string {
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(raw, &r)
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}
