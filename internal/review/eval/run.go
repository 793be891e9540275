package eval

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/review/report"
	"github.com/tailormcp/tailor/internal/review/scenario"
)

// Options tune a run.
type Options struct {
	Model Model
	// Persona plays the person of tasks with a persona (default: Model).
	Persona Model
	// Trials per task and target (default: the file's, else 5); MaxTurns
	// the model's replies per trial (default: the task's, the file's, else 20).
	Trials   int
	MaxTurns int
	// Concurrency bounds the trials running at once (default 4). Trials
	// on a target's own --backend run one at a time whatever it says.
	Concurrency int
	// Budget is the most tokens (input and output, the model's and the
	// persona's) the run may spend; 0 for no limit.
	Budget int64
	// Timeout bounds each tool call and each server's start (default 60s).
	Timeout time.Duration
	// TrialTimeout bounds each trial's wall time (0: no limit); a trial
	// that passes it ends as timed out, with what it was waiting for.
	TrialTimeout time.Duration
	// Client is how the model is shown the tools: one of Clients
	// (default plain).
	Client string
	// Progress, when set, is told each trial's end.
	Progress func(*TrialResult)
	// Places are the overlay lines of a target's tools (by target name),
	// for findings to point at.
	Places map[string]*report.Places
}

// Run runs every task of f on every target, Trials times each.
// Problems of the input (a target that does not start, success conditions
// on requests without a backend) are returned before any model is asked.
func Run(ctx context.Context, f *File, targets []scenario.Target, opts Options) (*Result, error) {
	if opts.Trials <= 0 {
		opts.Trials = f.Trials
	}
	if opts.Trials <= 0 {
		opts.Trials = 5
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	if opts.Persona == nil {
		opts.Persona = opts.Model
	}
	if err := check(f, targets); err != nil {
		return nil, err
	}
	res := &Result{File: f.Path, Model: opts.Model.Name(), Trials: opts.Trials, Budget: opts.Budget}
	for _, t := range targets {
		// With the file's environment: a server may need it to start.
		withEnv := t
		withEnv.Env = append([]string(nil), t.Env...)
		for _, e := range f.Env {
			withEnv.Env = append(withEnv.Env, e.Name+"="+e.Value)
		}
		sctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		list, err := scenario.ListTools(sctx, withEnv)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("target %s: %w", t.Name, err)
		}
		tr := &TargetResult{Name: t.Name, Command: display(t), Tools: len(list), places: opts.Places[t.Name]}
		for _, tl := range list {
			tr.toolNames = append(tr.toolNames, tl.Name)
		}
		res.Targets = append(res.Targets, tr)
	}
	b := &budget{limit: opts.Budget}
	sem := make(chan struct{}, opts.Concurrency)
	// A backend of the command line serves one trial at a time (trials
	// change its data), even when targets share it.
	shared := map[string]*sync.Mutex{}
	for _, t := range targets {
		if shared[t.Backend] == nil {
			shared[t.Backend] = &sync.Mutex{}
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	// Round after round, so that a budget that runs out leaves the targets
	// with comparable numbers of trials.
	for n := 1; n <= opts.Trials; n++ {
		for _, task := range f.Tasks {
			for i, t := range targets {
				if slices.Contains(task.Skip, t.Name) {
					continue
				}
				tr := &trial{file: f, task: task, target: t, model: opts.Model, persona: opts.Persona, budget: b, maxTurns: maxTurns(opts, f, task), timeout: opts.Timeout, trialTimeout: opts.TrialTimeout, client: opts.Client}
				sem <- struct{}{}
				if b.exhausted() || ctx.Err() != nil {
					<-sem
					mu.Lock()
					res.NotRun = append(res.NotRun, trialName(t.Name, task.Name, n))
					mu.Unlock()
					continue
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					if f.Backend.Start == "" && t.Backend != "" {
						shared[t.Backend].Lock()
						defer shared[t.Backend].Unlock()
					}
					r := tr.run(ctx, n)
					mu.Lock()
					res.Targets[i].Trials = append(res.Targets[i].Trials, r)
					mu.Unlock()
					if opts.Progress != nil {
						opts.Progress(r)
					}
				}()
			}
		}
	}
	wg.Wait()
	res.Spent, res.Unanswered = b.total()
	res.BudgetReached = b.exhausted()
	res.summarize(f)
	return res, nil
}

// trialName names a trial in the report: target: task #n.
func trialName(target, task string, n int) string {
	return fmt.Sprintf("%s: %s #%d", target, task, n)
}

func maxTurns(o Options, f *File, t *Task) int {
	switch {
	case o.MaxTurns > 0:
		return o.MaxTurns
	case t.MaxTurns > 0:
		return t.MaxTurns
	case f.MaxTurns > 0:
		return f.MaxTurns
	}
	return 20
}

// check reports, at their places in the file, the tasks that cannot be
// judged on these targets.
func check(f *File, targets []scenario.Target) error {
	var l diag.List
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.Name
	}
	for _, task := range f.Tasks {
		for _, s := range task.Skip {
			if !slices.Contains(names, s) {
				l.Errorf(task.Pos, "", "task %q skips target `%s`, which is not one of this run's (%s)%s", task.Name, s, strings.Join(names, ", "), diag.DidYouMean(s, names))
			}
		}
		if len(task.Success.Requests) == 0 || f.Backend.Start != "" {
			continue
		}
		for _, t := range targets {
			if t.Backend == "" && !slices.Contains(task.Skip, t.Name) {
				l.Errorf(task.Success.Requests[0].Pos, "", "task %q is judged on the requests the backend receives, and target %s has no backend: give --backend URL, or backend.start in the task file", task.Name, t.Name)
				break
			}
		}
	}
	return l.Err()
}

func display(t scenario.Target) string {
	if t.Display != "" {
		return t.Display
	}
	return strings.Join(t.Command, " ")
}
