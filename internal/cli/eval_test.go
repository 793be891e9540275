package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tailormcp/tailor/internal/review/eval/evaltest"
)

// backofficeAgent is a scripted model that does the back-office tasks the
// way models do: with the curated tools it quotes, asks, and carries the
// quote out (its first call has broken arguments, which it repairs from
// the error it reads); with the raw tools it computes the refund itself,
// spreading the coupon pro rata (NT$344). It reads the tool results it is
// sent: the quote id comes from the quote's text.
type backofficeAgent struct {
	sawBadArgs atomic.Int32 // error results about the broken arguments it read
	// personaAsked counts the requests in which it played the person.
	personaAsked atomic.Int32
}

var quoteID = regexp.MustCompile(`q_[a-z0-9]+`)

func (a *backofficeAgent) next(c *evaltest.Conversation) evaltest.Reply {
	if len(c.Tools) == 0 {
		// Playing the person (the tasks' persona): yes to the questions
		// the assistant asks, nothing to add to its final answer.
		a.personaAsked.Add(1)
		dialogue := c.LastUser()
		lastLine := dialogue[strings.LastIndex(dialogue, "Assistant: ")+1:]
		if strings.Contains(lastLine, "Shall I proceed?") || strings.Contains(lastLine, "Do you still want it?") {
			return evaltest.Reply{Text: "Yes, please."}
		}
		return evaltest.Reply{Text: "DONE"}
	}
	ask := c.Messages[0].Text
	called := c.Called()
	last := c.Messages[len(c.Messages)-1]
	lastTool := ""
	if len(called) > 0 {
		lastTool = called[len(called)-1]
	}
	result, isErr := c.LastResult()
	call := func(name, args string) evaltest.Reply {
		return evaltest.Reply{Calls: []evaltest.Call{{ID: fmt.Sprintf("call_%d", len(called)+1), Name: name, Args: args}}}
	}
	curated := c.HasTool("refund_items")
	if strings.Contains(ask, "exchanged") {
		switch {
		case curated && len(called) == 0:
			return call("quote_refund", `{"order_id":"5531","line_item_ids":["li_1"]}`)
		case !curated && len(called) == 0 || lastTool == "quote_refund" && isErr && strings.Contains(result, "create_return"):
			args := `{"order_id":"5531","line_item_ids":["li_1"],"kind":"exchange","reason":"left ear is silent"`
			if !curated {
				args += `,"X-Customer-Id":"cust_wang"`
			}
			return call("create_return", args+"}")
		}
		return evaltest.Reply{Text: "Your exchange is on its way: " + result}
	}
	order, item, amount, rawAmount := "5531", "li_2", "230", "344"
	if strings.Contains(ask, "5532") {
		order, item, amount, rawAmount = "5532", "li_3", "900", "900"
	}
	if !curated {
		switch lastTool {
		case "":
			return call("cancel_line_item", fmt.Sprintf(`{"order_id":%q,"line_item_id":%q,"X-Customer-Id":"cust_wang"}`, order, item))
		case "cancel_line_item":
			return call("create_refund", fmt.Sprintf(`{"order_id":%q,"amount":%s,"line_item_ids":[%q],"reason":"cancelled","X-Customer-Id":"cust_wang"}`, order, rawAmount, item))
		}
		return evaltest.Reply{Text: "Done: NT$" + rawAmount + " refunded."}
	}
	quote := fmt.Sprintf(`{"order_id":%q,"line_item_ids":[%q]}`, order, item)
	quoted := ""
	for _, r := range c.Results() {
		if id := quoteID.FindString(r.Text); id != "" && !r.IsError {
			quoted = id
		}
	}
	switch {
	case len(called) == 0 && order == "5531":
		return call("quote_refund", `{"order_id": "5531", "line_item_ids": [`)
	case len(called) == 0:
		return call("quote_refund", quote)
	case lastTool == "quote_refund" && isErr:
		if strings.Contains(result, "not valid JSON") || strings.Contains(result, "JSON object") {
			a.sawBadArgs.Add(1)
		}
		return call("quote_refund", quote)
	case lastTool == "quote_refund" && len(last.Results) > 0:
		return evaltest.Reply{Text: "The refund comes to NT$" + amount + ". Shall I proceed?"}
	case len(last.Results) == 0 && quoted != "":
		// The person answered: carry the quote out.
		return call("refund_items", fmt.Sprintf(`{"quote_id":%q}`, quoted))
	case lastTool == "refund_items" && isErr:
		return evaltest.Reply{Text: "You declined the refund, so nothing changed. Do you still want it?"}
	}
	return evaltest.Reply{Text: "Done: NT$" + amount + " refunded to card ending 4242."}
}

// shopAPIOnPath builds the example backend's program where the task
// file's backend.start finds it.
func shopAPIOnPath(t *testing.T) {
	dir := t.TempDir()
	abs, _ := filepath.Abs(repoRoot)
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "shop-api"), "./examples/backoffice/backend/cmd/shop-api")
	cmd.Dir = abs
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building shop-api: %v\n%s", err, out)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

type usage struct {
	Input  int64 `json:"input_tokens"`
	Output int64 `json:"output_tokens"`
}

type evalReport struct {
	Spent         int64    `json:"tokens_spent"`
	Unanswered    int64    `json:"tokens_unanswered"`
	BudgetReached bool     `json:"budget_reached"`
	Stopped       []string `json:"stopped_by_budget"`
	NotRun        []string `json:"not_run"`
	Targets       []struct {
		Name         string    `json:"name"`
		Counted      int       `json:"trials"`
		Succeeded    int       `json:"succeeded"`
		ErrorResults int       `json:"error_results"`
		TurnLimits   int       `json:"turn_limits"`
		Errors       int       `json:"errors"`
		Timeouts     int       `json:"timeouts"`
		Stopped      int       `json:"stopped_by_budget"`
		PassHat      []float64 `json:"pass_hat_k"`
		Usage        usage     `json:"usage"`
		PersonaUsage usage     `json:"persona_usage"`
		Tasks        []struct {
			Task      string `json:"task"`
			Succeeded int    `json:"succeeded"`
			Counted   int    `json:"trials"`
			Failures  []struct {
				What string `json:"what"`
			} `json:"failures"`
		} `json:"tasks"`
		Trials []struct {
			Task      string `json:"task"`
			Trial     int    `json:"trial"`
			Outcome   string `json:"outcome"`
			Error     string `json:"error"`
			Approvals []struct {
				Answer string `json:"answer"`
			} `json:"approvals"`
		} `json:"trial_results"`
		Report struct {
			Findings []struct {
				Tool, Signal string
			} `json:"findings"`
		} `json:"report"`
	} `json:"targets"`
}

func parseEvalReport(t *testing.T, stdout string) evalReport {
	t.Helper()
	var r evalReport
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("the JSON report does not parse: %v\n%s", err, stdout)
	}
	return r
}

// The whole loop against a scripted model speaking Anthropic's Messages
// API, through the official SDK: the back-office tasks on the raw and the
// curated tool set side by side, a fresh example backend per trial.
func TestEvalBackofficeRawBesideCurated(t *testing.T) {
	shopAPIOnPath(t)
	agent := &backofficeAgent{}
	model := evaltest.New(t, agent.next)
	// The first requests are refused: the SDK retries them.
	model.FailNext(429, 500)
	t.Setenv("EVAL_TEST_KEY", "scripted")
	out := t.TempDir()
	t.Chdir(filepath.Join(repoRoot, "examples", "backoffice"))
	code, stdout, stderr := run(t, "eval", "tasks.yaml", "--spec", "openapi.yaml", "--overlay", "overlay.yaml", "--compare",
		"--provider", "anthropic", "--model", "scripted-model", "--base-url", model.URL, "--api-key-env", "EVAL_TEST_KEY",
		"--trials", "2", "--format", "json", "--out", out, "--min-success", "0.7")
	// The raw tool set refunds NT$344: below --min-success.
	if code != ExitFailed || !strings.Contains(stderr, "raw succeeded in 67% of its trials, below --min-success 70%") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	r := parseEvalReport(t, stdout)
	if len(r.Targets) != 2 || r.Targets[0].Name != "raw" || r.Targets[1].Name != "curated" {
		t.Fatalf("targets: %+v", r.Targets)
	}
	raw, curated := r.Targets[0], r.Targets[1]
	if curated.Counted != 6 || curated.Succeeded != 6 || curated.PassHat[1] != 1 {
		t.Errorf("curated: %d of %d succeeded, pass^k %v\n%s", curated.Succeeded, curated.Counted, curated.PassHat, stderr)
	}
	if raw.Counted != 6 || raw.Succeeded != 4 {
		t.Errorf("raw: %d of %d succeeded\n%s", raw.Succeeded, raw.Counted, stderr)
	}
	rawWhy := raw.Tasks[0].Failures
	if raw.Tasks[0].Succeeded != 0 || len(rawWhy) == 0 || !strings.Contains(rawWhy[0].What, "POST /orders/5531/refunds") {
		t.Errorf("raw's refund task: %+v", raw.Tasks[0])
	}
	// The broken arguments came back to the model as an error, once per
	// trial of the 5531 refund, and it read them.
	if got := agent.sawBadArgs.Load(); got != 2 {
		t.Errorf("the model read %d error results about its arguments, want 2", got)
	}
	if curated.ErrorResults < 2+2+2 {
		t.Errorf("curated error results %d: want the broken arguments, the delivered item and the declined approval of each trial", curated.ErrorResults)
	}
	// The customer declined the first approval of the third task, then accepted.
	for _, tr := range curated.Trials {
		if tr.Task != "the customer changes their mind at the approval" {
			continue
		}
		if len(tr.Approvals) != 2 || tr.Approvals[0].Answer != "decline" || tr.Approvals[1].Answer != "accept" {
			t.Errorf("approvals: %+v", tr.Approvals)
		}
	}
	// The findings of tailor report over each target's audit logs: the
	// declined approvals and the call made again after them on the
	// curated set; the tools the model never used on the raw one.
	has := func(findings []struct{ Tool, Signal string }, tool, signal string) bool {
		for _, f := range findings {
			if f.Tool == tool && strings.Contains(f.Signal, signal) {
				return true
			}
		}
		return false
	}
	if !has(curated.Report.Findings, "refund_items", "declined") || !has(curated.Report.Findings, "refund_items", "retries") {
		t.Errorf("the findings over the audit logs miss the declined approvals and the retried refund: %+v", curated.Report.Findings)
	}
	if !has(raw.Report.Findings, "list_refunds", "never called") || has(raw.Report.Findings, "create_refund", "never called") {
		t.Errorf("the raw set's findings: %+v", raw.Report.Findings)
	}
	// Usage is the providers' usage fields, summed; the refused requests
	// were retried and cost nothing.
	// The final answers matched no scripted reply: the persona model was
	// asked, and said the person had nothing to add.
	in, outTokens := model.Usage()
	var sum usage
	for _, u := range []usage{raw.Usage, curated.Usage, raw.PersonaUsage, curated.PersonaUsage} {
		sum.Input += u.Input
		sum.Output += u.Output
	}
	if sum.Input != in || sum.Output != outTokens || r.Spent != in+outTokens || curated.PersonaUsage.Input == 0 || agent.personaAsked.Load() == 0 {
		t.Errorf("usage: report %+v (persona %+v, %+v), %d spent; the model server reported %d in, %d out", sum, raw.PersonaUsage, curated.PersonaUsage, r.Spent, in, outTokens)
	}
	if model.Requests() != model.Answered()+2 {
		t.Errorf("%d requests for %d answers: the 429 and the 500 were not retried once each", model.Requests(), model.Answered())
	}
	for _, f := range []string{"report.md", "report.json", "transcripts/curated/refund-the-unshipped-item-1.jsonl", "audit/raw/a-delivered-item-must-become-a-return-2.log"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	transcript := read(t, filepath.Join(out, "transcripts/curated/the-customer-changes-their-mind-at-the-approval-1.jsonl"))
	for _, want := range []string{`"type":"approval"`, `"answer":"decline"`, `"Sorry, I pressed the wrong button. Yes, please refund the scarf."`, `"success":true`} {
		if !strings.Contains(transcript, want) {
			t.Errorf("the transcript lacks %s:\n%s", want, transcript)
		}
	}
	md := read(t, filepath.Join(out, "report.md"))
	for _, want := range []string{"| | raw | curated |", "| success rate | 67% (4 of 6) | 100% (6 of 6) |", "| refund the unshipped item | 0 of 2 | 2 of 2 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}

// The same loop through OpenAI's SDK, on the Chat Completions and the
// Responses wire formats; then the turn limit and the budget.
func TestEvalOpenAILimits(t *testing.T) {
	shopAPIOnPath(t)
	agent := &backofficeAgent{}
	model := evaltest.New(t, agent.next)
	model.FailNext(500)
	t.Setenv("EVAL_TEST_KEY", "scripted")
	t.Chdir(filepath.Join(repoRoot, "examples", "backoffice"))
	base := []string{"eval", "tasks.yaml", "--spec", "openapi.yaml", "--overlay", "overlay.yaml",
		"--provider", "openai", "--model", "scripted-model", "--base-url", model.URL + "/v1", "--api-key-env", "EVAL_TEST_KEY", "--format", "json"}
	code, stdout, stderr := run(t, append(base, "--trials", "1", "--min-success", "1")...)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	r := parseEvalReport(t, stdout)
	if c := r.Targets[0]; c.Name != "curated" || c.Succeeded != 3 || c.Counted != 3 {
		t.Fatalf("curated: %+v", c)
	}

	// The Responses API, through the same SDK, on the tasks without their
	// scripted replies: the persona model answers the follow-up questions.
	noReplies := regexp.MustCompile(`(?m)^    replies:\n(?:      .*\n)+`).ReplaceAllString(read(t, "tasks.yaml"), "")
	tasks := filepath.Join(t.TempDir(), "tasks.yaml")
	if err := os.WriteFile(tasks, []byte(noReplies), 0o644); err != nil {
		t.Fatal(err)
	}
	responsesArgs := append([]string(nil), base...)
	responsesArgs[slices.Index(responsesArgs, "openai")] = "openai-responses"
	responsesArgs[slices.Index(responsesArgs, "tasks.yaml")] = tasks
	asked := agent.personaAsked.Load()
	code, stdout, stderr = run(t, append(responsesArgs, "--trials", "1", "--min-success", "1")...)
	if r := parseEvalReport(t, stdout); code != ExitOK || r.Targets[0].Succeeded != 3 || r.Targets[0].PersonaUsage.Input == 0 || agent.personaAsked.Load()-asked < 6 {
		t.Fatalf("responses: exit %d, %+v, persona asked %d times\n%s", code, r.Targets, agent.personaAsked.Load()-asked, stderr)
	}

	// Without retries, a refused request ends the trial as an error.
	model.FailNext(500)
	code, stdout, stderr = run(t, append(base, "--trials", "1", "--retries", "0", "--concurrency", "1")...)
	if r := parseEvalReport(t, stdout); r.Targets[0].Errors != 1 || r.Targets[0].Succeeded != 2 {
		t.Fatalf("exit %d: %+v\n%s", code, r.Targets[0], stderr)
	}

	// Two turns are not enough for any task.
	code, stdout, stderr = run(t, append(base, "--trials", "1", "--max-turns", "2", "--min-success", "0.1")...)
	r = parseEvalReport(t, stdout)
	if code != ExitFailed || r.Targets[0].TurnLimits != 3 || r.Targets[0].Succeeded != 0 {
		t.Fatalf("exit %d, %+v\n%s", code, r.Targets[0], stderr)
	}

	// A budget of a few requests: the run stops before spending more.
	before := model.Answered()
	code, stdout, stderr = run(t, append(base, "--trials", "5", "--concurrency", "1", "--max-tokens", "1000", "--budget", "6000")...)
	r = parseEvalReport(t, stdout)
	if !r.BudgetReached || len(r.NotRun) == 0 || r.Spent > 6000 || model.Answered() == before {
		t.Fatalf("exit %d: budget reached %v, %q not run, %d spent, %d requests\n%s", code, r.BudgetReached, r.NotRun, r.Spent, model.Answered()-before, stderr)
	}
}

// Named builds before and after a change side by side (the raw tool set
// served by tailor serve, then the generated curated server), each on a
// backend of its own that the task file's reset command prepares before
// every trial.
func TestEvalBeforeAfterOnResetBackends(t *testing.T) {
	dir := t.TempDir()
	abs, _ := filepath.Abs(repoRoot)
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "backoffice"), "./examples/backoffice/mcpserver/cmd/backoffice")
	cmd.Dir = abs
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the generated server: %v\n%s", err, out)
	}
	resets := filepath.Join(dir, "resets.log")
	tasks := strings.Replace(read(t, filepath.Join(abs, "examples", "backoffice", "tasks.yaml")),
		"  start: shop-api --addr {addr}", `  reset: echo "$TAILOR_BACKEND" >> `+resets, 1)
	if err := os.WriteFile(filepath.Join(dir, "tasks.yaml"), []byte(tasks), 0o644); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	agent := &backofficeAgent{}
	model := evaltest.New(t, agent.next)
	t.Setenv("EVAL_TEST_KEY", "scripted")
	before, after := shopBackend(t), shopBackend(t)
	code, stdout, stderr := run(t, "eval", filepath.Join(dir, "tasks.yaml"),
		"--server", "before="+self+" serve --spec "+filepath.Join(abs, "examples", "backoffice", "openapi.yaml")+" --no-validate --",
		"--server", "after="+filepath.Join(dir, "backoffice"), "--env", "TAILOR_CLI_TEST_SELF=1",
		"--backend", before, "--backend", after,
		"--provider", "anthropic", "--model", "scripted-model", "--base-url", model.URL, "--api-key-env", "EVAL_TEST_KEY", "--trials", "1")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"| | before | after |", "| success rate | 67% (2 of 3) | 100% (3 of 3) |", "- before, *refund the unshipped item*, 1×: POST /orders/5531/refunds: the backend received no request matching it (closest: POST /orders/5531/refunds"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, stdout)
		}
	}
	lines := strings.Fields(read(t, resets))
	if len(lines) != 6 || strings.Count(strings.Join(lines, "\n"), before) != 3 || strings.Count(strings.Join(lines, "\n"), after) != 3 {
		t.Errorf("the reset command ran for %q, want three times for each backend", lines)
	}
}
