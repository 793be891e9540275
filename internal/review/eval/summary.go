package eval

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/tailormcp/tailor/internal/review/report"
)

// Result is a run of a task file on one or more targets.
type Result struct {
	File   string `json:"file"`
	Model  string `json:"model"`
	Trials int    `json:"trials_per_task"`
	// Budget is the token limit (0: none); Spent what the providers
	// reported the run spent; Unanswered what requests that got no answer
	// (timed out) had reserved, which the budget counts as spent too.
	Budget     int64 `json:"budget,omitempty"`
	Spent      int64 `json:"tokens_spent"`
	Unanswered int64 `json:"tokens_unanswered,omitempty"`
	// BudgetReached says whether the limit stopped trials (Stopped: each
	// as target: task #n) or kept trials from starting (NotRun).
	BudgetReached bool            `json:"budget_reached"`
	Stopped       []string        `json:"stopped_by_budget"`
	NotRun        []string        `json:"not_run"`
	Targets       []*TargetResult `json:"targets"`
}

// TargetResult is what the trials did on one target.
type TargetResult struct {
	Name    string `json:"name"`
	Command string `json:"command"`
	Tools   int    `json:"tools"`
	Stats
	// PassHat[k-1] is pass^k: the chance that k trials of a task all
	// succeed, averaged over the tasks (from c successes in n trials,
	// C(c,k)/C(n,k)); up to the fewest trials a task got.
	PassHat []float64     `json:"pass_hat_k"`
	Tasks   []*TaskResult `json:"tasks"`
	// Report is `tailor report` over the trials' audit logs.
	Report *report.Report `json:"report"`
	Trials []*TrialResult `json:"trial_results"`

	toolNames []string
	places    *report.Places
}

// TaskResult is one task's trials on one target.
type TaskResult struct {
	Task string `json:"task"`
	Stats
	// Failures counts the reasons trials failed, most frequent first.
	Failures []Count `json:"failures,omitempty"`
}

// Count is a reason and how many trials it was.
type Count struct {
	What string `json:"what"`
	N    int    `json:"n"`
}

// Stats sum up trials. Trials the budget stopped are not counted.
type Stats struct {
	Counted      int     `json:"trials"`
	Succeeded    int     `json:"succeeded"`
	SuccessRate  float64 `json:"success_rate"`
	TurnLimits   int     `json:"turn_limits"`
	Errors       int     `json:"errors"`
	Timeouts     int     `json:"timeouts"`
	Stopped      int     `json:"stopped_by_budget"`
	ToolCalls    int     `json:"tool_calls"`
	ErrorResults int     `json:"error_results"`
	Turns        int     `json:"turns"`
	Approvals    int     `json:"approvals_asked"`
	Usage        Usage   `json:"usage"`
	PersonaUsage Usage   `json:"persona_usage"`
	Wall         Millis  `json:"wall_ms"`
}

func (s *Stats) add(t *TrialResult) {
	if t.Outcome == OutOfBudget {
		s.Stopped++
		return
	}
	s.Counted++
	if t.Success {
		s.Succeeded++
	}
	switch t.Outcome {
	case TurnLimit:
		s.TurnLimits++
	case Failed:
		s.Errors++
	case TimedOut:
		s.Timeouts++
	}
	s.ToolCalls += t.ToolCalls
	s.ErrorResults += t.ErrorResults
	s.Turns += t.Turns
	s.Approvals += len(t.Approvals)
	s.Usage.Add(t.Usage)
	s.PersonaUsage.Add(t.PersonaUsage)
	s.Wall += t.Wall
	s.SuccessRate = float64(s.Succeeded) / float64(s.Counted)
}

// per is a figure per counted trial.
func (s *Stats) per(n int) float64 {
	if s.Counted == 0 {
		return 0
	}
	return float64(n) / float64(s.Counted)
}

func (r *Result) summarize(f *File) {
	r.Stopped = []string{}
	if r.NotRun == nil {
		r.NotRun = []string{}
	}
	for _, tr := range r.Targets {
		sort.Slice(tr.Trials, func(i, j int) bool {
			a, b := tr.Trials[i], tr.Trials[j]
			if a.Task != b.Task {
				return taskIndex(f, a.Task) < taskIndex(f, b.Task)
			}
			return a.Trial < b.Trial
		})
		byTask := map[string]*TaskResult{}
		reasons := map[string]map[string]int{}
		var log report.Log
		for _, t := range tr.Trials {
			tk := byTask[t.Task]
			if tk == nil {
				tk = &TaskResult{Task: t.Task}
				byTask[t.Task] = tk
				tr.Tasks = append(tr.Tasks, tk)
				reasons[t.Task] = map[string]int{}
			}
			tk.add(t)
			tr.Stats.add(t)
			if t.Outcome == OutOfBudget {
				r.Stopped = append(r.Stopped, trialName(t.Target, t.Task, t.Trial))
			}
			if t.Outcome != OutOfBudget && !t.Success {
				why := t.Outcome
				if len(t.Failures) > 0 {
					why = t.Failures[0]
				} else if t.Error != "" {
					why = t.Error
				}
				reasons[t.Task][why]++
			}
			log.Read(fmt.Sprintf("%s#%d", t.Task, t.Trial), bytes.NewReader(t.Audit))
		}
		for _, tk := range tr.Tasks {
			for what, n := range reasons[tk.Task] {
				tk.Failures = append(tk.Failures, Count{What: what, N: n})
			}
			sort.Slice(tk.Failures, func(i, j int) bool {
				if tk.Failures[i].N != tk.Failures[j].N {
					return tk.Failures[i].N > tk.Failures[j].N
				}
				return tk.Failures[i].What < tk.Failures[j].What
			})
		}
		tr.PassHat = passHat(tr.Tasks)
		names := tr.toolNames
		if names == nil {
			names = []string{}
		}
		tr.Report = report.Analyze(&log, report.Options{Tools: names, Places: tr.places})
	}
}

func taskIndex(f *File, name string) int {
	for i, t := range f.Tasks {
		if t.Name == name {
			return i
		}
	}
	return len(f.Tasks)
}

// passHat is pass^k for k from 1 to the fewest trials a task got.
func passHat(tasks []*TaskResult) []float64 {
	kmax := 0
	for i, t := range tasks {
		if i == 0 || t.Counted < kmax {
			kmax = t.Counted
		}
	}
	out := make([]float64, kmax)
	for k := 1; k <= kmax; k++ {
		sum := 0.0
		for _, t := range tasks {
			sum += choose(t.Succeeded, k) / choose(t.Counted, k)
		}
		out[k-1] = sum / float64(len(tasks))
	}
	return out
}

// choose is the binomial coefficient C(n, k) (0 when k > n).
func choose(n, k int) float64 {
	if k > n {
		return 0
	}
	c := 1.0
	for i := 0; i < k; i++ {
		c = c * float64(n-i) / float64(i+1)
	}
	return c
}
