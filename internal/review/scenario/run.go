package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/review/cost"
)

// Options tune a run.
type Options struct {
	// Timeout bounds each call (default 60s) and each server's start.
	Timeout time.Duration
}

// Result is a run of scenario files on one or more targets.
type Result struct {
	Files   []string
	Targets []*TargetResult
}

// Failed reports whether a scenario failed on some target.
func (r *Result) Failed() bool {
	for _, t := range r.Targets {
		if t.Failed > 0 {
			return true
		}
	}
	return false
}

// TargetResult is what the scenarios did on one target.
type TargetResult struct {
	Target    Target
	Scenarios []*ScenarioResult
	Passed    int
	Failed    int
	Skipped   int
	Calls     int
	Errors    int // results with isError
	// ToolsTokens is the size of tools/list, ResultTokens of every result's
	// text, in o200k_base tokens: what the model read.
	ToolsTokens  int
	ResultTokens int
}

// ScenarioResult is one scenario on one target.
type ScenarioResult struct {
	Name    string
	Pos     diag.Pos
	Skipped bool
	Calls   int
	// Failures are the expectations that did not hold; the scenario stops
	// at the first call with one.
	Failures []Failure
}

// Failure is an expectation that did not hold, at its place in the file.
type Failure struct {
	Pos  diag.Pos
	Call int // 1-based; 0: the scenario as a whole
	Tool string
	What string
	// Got is what was observed instead, one item per line.
	Got []string
}

// Run runs every scenario of files on every target (each scenario on a
// server of its own). Problems of the input — a tool a target does not
// have, a target that does not start — are returned as the error, before
// any scenario runs; failed expectations are in the result.
func Run(ctx context.Context, files []*File, targets []Target, opts Options) (*Result, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	res := &Result{}
	for _, f := range files {
		res.Files = append(res.Files, f.Path)
	}
	tools := make([]map[string]bool, len(targets))
	for i, t := range targets {
		tr := &TargetResult{Target: t}
		res.Targets = append(res.Targets, tr)
		sctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		s, err := start(sctx, t, nil, nil, nil)
		if err != nil {
			cancel()
			return nil, err
		}
		list, err := s.tools(sctx)
		s.close()
		cancel()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.display(), err)
		}
		b, _ := json.Marshal(map[string]any{"tools": list})
		tr.ToolsTokens = cost.Tokens(b)
		tools[i] = map[string]bool{}
		for _, tl := range list {
			tools[i][tl.Name] = true
		}
	}
	if err := checkTools(files, targets, tools); err != nil {
		return nil, err
	}
	proxies := make([]*Proxy, len(targets))
	defer func() {
		for _, px := range proxies {
			px.Close()
		}
	}()
	for i, t := range targets {
		px, err := proxyFor(t)
		if err != nil {
			return nil, err
		}
		proxies[i] = px
	}
	for i, t := range targets {
		tr, px := res.Targets[i], proxies[i]
		for _, f := range files {
			for _, sc := range f.Scenarios {
				sr := &ScenarioResult{Name: sc.Name, Pos: sc.Pos}
				tr.Scenarios = append(tr.Scenarios, sr)
				calls, runs := sc.CallsFor(t.Name)
				if !runs {
					sr.Skipped = true
					tr.Skipped++
					continue
				}
				(&scenarioRun{target: t, file: f, sc: sc, calls: calls, proxy: px, opts: opts, result: sr, totals: tr}).run(ctx)
				if len(sr.Failures) > 0 {
					tr.Failed++
				} else {
					tr.Passed++
				}
			}
		}
	}
	return res, nil
}

func proxyFor(t Target) (*Proxy, error) {
	if t.Backend == "" {
		return nil, nil
	}
	return StartProxy(t.Backend)
}

// checkTools reports every call of a tool its target does not list, and,
// when targets are compared, variants and skips that name none of them.
func checkTools(files []*File, targets []Target, tools []map[string]bool) error {
	var l diag.List
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.Name
	}
	for _, f := range files {
		for _, sc := range f.Scenarios {
			if len(targets) > 1 {
				for _, name := range append(append([]string(nil), sc.Skip...), sortedKeys(sc.Variants)...) {
					if !slices.Contains(names, name) {
						l.Errorf(sc.Pos, "", "scenario %q names target `%s`, which is not one of this run's (%s)%s", sc.Name, name, strings.Join(names, ", "), diag.DidYouMean(name, names))
					}
				}
			}
			for i, t := range targets {
				calls, _ := sc.CallsFor(t.Name)
				for _, c := range calls {
					if tools[i][c.Tool] {
						continue
					}
					known := make([]string, 0, len(tools[i]))
					for name := range tools[i] {
						known = append(known, name)
					}
					sort.Strings(known)
					on := ""
					if len(targets) > 1 {
						on = " on target " + t.Name
					}
					l.Errorf(c.ToolPos, "", "unknown tool `%s`%s%s", c.Tool, on, diag.Suggest(c.Tool, known))
				}
			}
		}
	}
	return l.Err()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// scenarioRun is one scenario on one target.
type scenarioRun struct {
	target Target
	file   *File
	sc     *Scenario
	calls  []*Call
	proxy  *Proxy
	opts   Options
	result *ScenarioResult
	totals *TargetResult

	saved map[string]any
	// The approval answer of the call in progress, and the questions asked.
	mu        sync.Mutex
	approval  *Approval
	questions []string
}

func (r *scenarioRun) fail(f Failure) { r.result.Failures = append(r.result.Failures, f) }

func (r *scenarioRun) run(ctx context.Context) {
	var env []string
	for _, e := range append(append([]EnvVar(nil), r.file.Env...), r.sc.Env...) {
		env = append(env, e.Name+"="+e.Value)
	}
	var args []string
	if r.proxy != nil {
		args = []string{"--base-url", r.proxy.URL}
	}
	sctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	s, err := start(sctx, r.target, env, args, &mcp.ClientOptions{ElicitationHandler: r.answer})
	cancel()
	if err != nil {
		r.fail(Failure{Pos: r.sc.Pos, What: "the server did not start", Got: strings.Split(err.Error(), "\n")})
		return
	}
	defer s.close()
	r.saved = map[string]any{}
	for i, c := range r.calls {
		if !r.call(ctx, s, i+1, c) {
			if rest := len(r.calls) - i - 1; rest > 0 {
				r.result.Failures[len(r.result.Failures)-1].Got = append(r.result.Failures[len(r.result.Failures)-1].Got,
					fmt.Sprintf("(the scenario stopped here: %s not made)", plural(rest, "more call")))
			}
			return
		}
	}
}

// answer is the simulated person: it answers approval questions as the
// call in progress says.
func (r *scenarioRun) answer(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.questions = append(r.questions, req.Params.Message)
	if r.approval == nil {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	return &mcp.ElicitResult{Action: r.approval.Answer}, nil
}

// call makes one call and checks it; false when an expectation failed.
func (r *scenarioRun) call(ctx context.Context, s *server, n int, c *Call) bool {
	before := len(r.result.Failures)
	failAt := func(pos diag.Pos, what string, got ...string) {
		r.fail(Failure{Pos: pos, Call: n, Tool: c.Tool, What: what, Got: got})
	}
	args, _ := substitute(c.Args, r.saved).(map[string]any)
	r.mu.Lock()
	r.approval, r.questions = c.Approval, nil
	r.mu.Unlock()
	mark := r.proxy.Mark()
	cctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	res, err := s.session.CallTool(cctx, &mcp.CallToolParams{Name: c.Tool, Arguments: args})
	cancel()
	r.result.Calls++
	r.totals.Calls++
	if err != nil {
		what := "the call failed: " + err.Error()
		if errors.Is(err, context.DeadlineExceeded) {
			what = fmt.Sprintf("no answer within %s", r.opts.Timeout)
		}
		failAt(c.Pos, what, strings.Split(strings.TrimPrefix(s.stderr.tail("the server's stderr ends with:\n"), "\n"), "\n")...)
		return false
	}
	text := resultText(res)
	r.totals.ResultTokens += cost.Tokens([]byte(text))
	if res.IsError {
		r.totals.Errors++
	}
	r.mu.Lock()
	questions := r.questions
	r.mu.Unlock()
	ck := &checker{saved: r.saved, fail: failAt}
	ck.approval(c, questions)
	ck.expect(c, res, text, r.proxy.Since(mark), r.proxy != nil)
	if len(r.result.Failures) > before {
		return false
	}
	for _, sv := range c.Save {
		v, ok := ck.save(sv, res, text)
		if !ok {
			return false
		}
		r.saved[sv.Name] = v
	}
	return len(r.result.Failures) == before
}

// resultText is what the model reads of a result: its text contents.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// substitute replaces references ({{.name}}) in the strings of v by saved
// values: a string that is one reference becomes the value itself, with
// its JSON type; other strings get the value's text.
func substitute(v any, saved map[string]any) any {
	switch x := v.(type) {
	case string:
		return substituteString(x, saved)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = substitute(e, saved)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = substitute(e, saved)
		}
		return out
	}
	return v
}

func substituteString(s string, saved map[string]any) any {
	if !strings.Contains(s, "{{") {
		return s
	}
	if m := refPattern.FindStringSubmatchIndex(s); m != nil && m[0] == 0 && m[1] == len(s) {
		if name := refName.FindStringSubmatch(s[m[2]:m[3]]); name != nil {
			return saved[name[1]]
		}
	}
	return textOf(s, saved)
}

// textOf is s with each reference replaced by its value's text.
func textOf(s string, saved map[string]any) string {
	return refPattern.ReplaceAllStringFunc(s, func(ref string) string {
		name := refName.FindStringSubmatch(ref[2 : len(ref)-2])
		if name == nil {
			return ref
		}
		return valueText(saved[name[1]])
	})
}

// valueText is a value as text: a string as it is, anything else as JSON.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
