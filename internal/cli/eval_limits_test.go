package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailormcp/tailor/internal/review/eval/evaltest"
)

// evalCurated is the command line of a run of the back-office tasks on
// the curated tool set, through OpenAI's SDK, against model.
func evalCurated(t *testing.T, model *evaltest.Server) []string {
	shopAPIOnPath(t)
	t.Setenv("EVAL_TEST_KEY", "scripted")
	t.Chdir(filepath.Join(repoRoot, "examples", "backoffice"))
	return []string{"eval", "tasks.yaml", "--spec", "openapi.yaml", "--overlay", "overlay.yaml",
		"--provider", "openai", "--model", "scripted-model", "--base-url", model.URL + "/v1", "--api-key-env", "EVAL_TEST_KEY", "--format", "json"}
}

// The budget is a hard bound even with trials in flight at once: a model
// that writes at length (each reply takes all its max_tokens) cannot take
// the run past it by a request per concurrent trial. The report says what
// was spent and which trials the budget stopped.
func TestEvalBudgetIsAHardBound(t *testing.T) {
	agent := &backofficeAgent{}
	model := evaltest.New(t, func(c *evaltest.Conversation) evaltest.Reply {
		r := agent.next(c)
		r.OutputTokens = 1 << 20 // capped at the request's max tokens
		return r
	})
	args := evalCurated(t, model)
	const budget = 60000
	code, stdout, stderr := run(t, append(args, "--trials", "5", "--concurrency", "4", "--max-tokens", "3000", "--budget", "60000")...)
	r := parseEvalReport(t, stdout)
	in, out := model.Usage()
	if in+out != r.Spent || r.Spent > budget {
		t.Fatalf("exit %d: the providers reported %d tokens, the report %d; the budget is %d\n%s", code, in+out, r.Spent, budget, stderr)
	}
	if !r.BudgetReached || len(r.Stopped) == 0 || len(r.NotRun) == 0 || r.Targets[0].Stopped != len(r.Stopped) {
		t.Fatalf("budget reached %v, stopped %q, not run %q\n%s", r.BudgetReached, r.Stopped, r.NotRun, stderr)
	}
	// Four trials in flight could each have spent a request more; the
	// run still stopped within a reply or two of the limit.
	if r.Spent < budget/2 {
		t.Errorf("%d of %d spent: the reservations are far too cautious", r.Spent, budget)
	}
	for _, tr := range r.Targets[0].Trials {
		if tr.Outcome == "budget" && !strings.Contains(tr.Error, "could cost") {
			t.Errorf("a stopped trial's reason: %q", tr.Error)
		}
	}
	code, stdout, _ = run(t, append(args, "--trials", "5", "--concurrency", "4", "--max-tokens", "3000", "--budget", "60000", "--format", "markdown")...)
	if !strings.Contains(stdout, "**The budget stopped the run**") || !strings.Contains(stdout, "curated: ") {
		t.Errorf("exit %d; the markdown report does not name the stopped trials:\n%s", code, stdout)
	}
}

// A model server that hangs ends the trial waiting for it, with the
// reason in the report, and the run goes on: by the request timeout, and
// by the trial's own time limit when there is no request timeout.
func TestEvalHangingModelEndsItsTrial(t *testing.T) {
	agent := &backofficeAgent{}
	model := evaltest.New(t, agent.next)
	args := append(evalCurated(t, model), "--trials", "1", "--concurrency", "1")

	model.HangNext(1)
	began := time.Now()
	code, stdout, stderr := run(t, append(args, "--request-timeout", "500ms")...)
	r := parseEvalReport(t, stdout)
	c := r.Targets[0]
	if c.Timeouts != 1 || c.Succeeded != 2 || time.Since(began) > time.Minute {
		t.Fatalf("exit %d after %s: %d timeouts, %d succeeded\n%s", code, time.Since(began), c.Timeouts, c.Succeeded, stderr)
	}
	if tr := c.Trials[0]; tr.Outcome != "timeout" || tr.Error != "timed out: model scripted-model did not answer within 500ms (the request timeout)" {
		t.Errorf("the hung trial: %s, %q", tr.Outcome, tr.Error)
	}
	if r.Unanswered == 0 {
		t.Error("the request that got no answer reserved nothing")
	}

	model.HangNext(1)
	code, stdout, stderr = run(t, append(args, "--trial-timeout", "2s", "--request-timeout", "0", "--format", "markdown")...)
	for _, want := range []string{
		"| timed out (model request or trial) | 1 |",
		"the trial took longer than 2s (the trial timeout), while waiting for the model's reply 1",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("exit %d; the report lacks %q:\n%s\n%s", code, want, stdout, stderr)
		}
	}
}
