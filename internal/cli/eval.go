package cli

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/review/eval"
	"github.com/tailormcp/tailor/internal/review/report"
)

func newEvalCmd() *cobra.Command {
	var spec, overlay, provider, client, model, personaModel, baseURL, keyEnv, format, out string
	var servers, backends, env []string
	var compare bool
	var trials, maxTurns, concurrency, retries int
	var budget, maxTokens int64
	var minSuccess float64
	var timeout, requestTimeout, trialTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "eval TASKS.yaml --model NAME (--server [NAME=]CMD... | --spec FILE [--overlay FILE] [--compare]) [--backend URL...]",
		Short: "Have a real model do the tasks of a task file with each tool set, and compare how often it succeeds",
		Long: `eval gives a real model the tools of each target and the tasks of a task file: the person's first
message, scripted replies to the model's follow-up questions (or a model playing the person from a
persona), answers to the server's approval questions, a turn limit, and what counts as success: the
requests the backend must (or must not) receive, through the recording proxy of tailor test, and
optionally the final answer. The file format is documented by scenarios/task.schema.json.

Targets are those of tailor test: --server commands (NAME=CMD; two builds before and after a change),
or tailor serve on --spec and --overlay, with --compare the raw tool set beside the curated one.
Each trial runs on a server of its own against a backend in a known state: a fresh one per trial
(backend.start in the file), or the target's --backend put back by backend.reset before each trial.

Models are reached through their providers' official SDKs: --provider anthropic (the Messages
API), openai (Chat Completions; with --base-url any compatible endpoint: vLLM, llama.cpp server,
Ollama, a gateway) or openai-responses (the Responses API). The tools go as MCP clients present
them (name, description, input schema as listed); --client claude-code uses Claude Code's
mcp__SERVER__TOOL names, --client openai-agents the OpenAI Agents SDK's strict flag. The key is read from the environment
only: ANTHROPIC_API_KEY, OPENAI_API_KEY, or the variable --api-key-env names. ANTHROPIC_BASE_URL and
OPENAI_BASE_URL are honoured. Requests answered 429 or 5xx are retried with backoff (--retries);
a request with no answer within --request-timeout ends its trial as timed out, and so does a trial
that runs longer than --trial-timeout. --budget is a hard bound on the tokens spent: before each
request tailor reserves what it can cost at most (its input, estimated, and --max-tokens of reply),
and a trial whose next request does not fit in what is left stops there; the report lists them.

The report shows, per target side by side: success rate and pass^k, turns, tool calls, error
results, approvals, input and output tokens (the providers' usage), wall time, and the findings of
tailor report over the trials' audit logs. --out DIR also keeps report.md, report.json and, per
trial, the transcript (JSONL) and the server's audit log.

Exit status: 0 when every target's success rate is at least --min-success (default 0); 1 when one
is below it, or when no trial of a target could be counted; 2 on bad input (a task file with errors, printed as file:line:col; no key; a server that
does not start; a wrong command line).`,
		Example: `  # The curated tool set beside the raw one, a fresh example backend per trial:
  export ANTHROPIC_API_KEY=...
  tailor eval tasks.yaml --spec openapi.yaml --overlay overlay.yaml --compare \
    --provider anthropic --model claude-sonnet-4-5 --out eval-out

  # Before and after an overlay change, as a CI gate:
  tailor eval tasks.yaml --server before=./bin/server-main --server after=./bin/server-pr \
    --provider openai --model gpt-4.1 --trials 10 --budget 2000000 --min-success 0.8

  # A local model behind an OpenAI-compatible server:
  tailor eval tasks.yaml --server ./bin/server --provider openai --base-url http://127.0.0.1:11434/v1 --model qwen3:8b`,
		RunE: func(cmd *cobra.Command, args []string) error {
			usage := func(format string, a ...any) error {
				return &exitError{code: ExitUsage, err: fmt.Errorf("tailor eval: "+format, a...)}
			}
			if len(args) != 1 {
				return usage("give one task file (see tailor eval --help)")
			}
			if err := oneOf("eval", "--format", format, eval.Formats); err != nil {
				return err
			}
			if err := oneOf("eval", "--provider", provider, eval.Providers); err != nil {
				return err
			}
			if err := oneOf("eval", "--client", client, eval.Clients); err != nil {
				return err
			}
			if minSuccess < 0 || minSuccess > 1 {
				return usage("--min-success is a fraction between 0 and 1, not %g", minSuccess)
			}
			targets, err := targetsOf("eval", servers, spec, overlay, compare, backends, env)
			if err != nil {
				return err
			}
			data, err := os.ReadFile(args[0])
			if err != nil {
				return usage("cannot read the task file: %v", err)
			}
			file, err := eval.Parse(args[0], data)
			var de *diag.Errors
			switch {
			case errors.As(err, &de):
				return &exitError{code: ExitUsage, err: err}
			case err != nil:
				return usage("%v", err)
			}
			if maxTokens < 0 || requestTimeout < 0 || trialTimeout < 0 || budget < 0 {
				return usage("--max-tokens, --budget, --request-timeout and --trial-timeout take positive values (0 for the default)")
			}
			conf := eval.ModelConfig{Provider: provider, Model: model, BaseURL: baseURL, KeyEnv: keyEnv, MaxRetries: retries, MaxTokens: maxTokens, Timeout: requestTimeout}
			m, err := eval.NewModel(conf)
			if err != nil {
				return usage("%v", err)
			}
			opts := eval.Options{Model: m, Trials: trials, MaxTurns: maxTurns, Concurrency: concurrency, Budget: budget, Timeout: timeout, TrialTimeout: trialTimeout, Client: client}
			if personaModel != "" {
				conf.Model = personaModel
				if opts.Persona, err = eval.NewModel(conf); err != nil {
					return usage("%v", err)
				}
			}
			if overlay != "" {
				o, err := generator.ReadOverlay(overlay)
				if err != nil {
					return &exitError{code: ExitUsage, err: err}
				}
				opts.Places = map[string]*report.Places{"curated": report.PlacesOf(o)}
			}
			stderr := cmd.ErrOrStderr()
			opts.Progress = func(t *eval.TrialResult) {
				mark := "ok  "
				if !t.Success {
					mark = "FAIL"
				}
				fmt.Fprintf(stderr, "%s %s: %s #%d (%s, %d turns, %d tool calls)\n", mark, t.Target, t.Task, t.Trial, t.Outcome, t.Turns, t.ToolCalls)
			}
			res, err := eval.Run(cmd.Context(), file, targets, opts)
			switch {
			case errors.As(err, &de):
				return &exitError{code: ExitUsage, err: err}
			case err != nil:
				return usage("%v", err)
			}
			if out != "" {
				if err := eval.WriteDir(out, res); err != nil {
					return &exitError{code: ExitFailed, err: fmt.Errorf("tailor eval: --out: %w", err)}
				}
			}
			if err := eval.Write(cmd.OutOrStdout(), res, format); err != nil {
				return err
			}
			for _, t := range res.Targets {
				switch {
				case t.Counted == 0:
					return &exitError{code: ExitFailed, err: fmt.Errorf("tailor eval: no trial on %s could be counted", t.Name)}
				case t.SuccessRate < minSuccess:
					return &exitError{code: ExitFailed, err: fmt.Errorf("tailor eval: %s succeeded in %.0f%% of its trials, below --min-success %.0f%%", t.Name, t.SuccessRate*100, minSuccess*100)}
				}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&servers, "server", nil, "a server to evaluate: [NAME=]COMMAND (program and arguments, split on spaces); repeat it to compare")
	fl.StringVar(&spec, "spec", "", "run tailor serve on this OpenAPI description")
	fl.StringVar(&overlay, "overlay", "", "with --spec: the overlay that curates the tool set")
	fl.BoolVar(&compare, "compare", false, "with --spec and --overlay: also run the raw tool set (no overlay), side by side")
	fl.StringArrayVar(&backends, "backend", nil, "base URL of the API the servers call, through a recording proxy (once, or once per target)")
	fl.StringArrayVar(&env, "env", nil, "NAME=VALUE added to every server's environment (besides the task file's env); repeatable")
	fl.StringVar(&provider, "provider", "anthropic", "the model's API: anthropic, openai (Chat Completions; any compatible endpoint with --base-url) or openai-responses")
	fl.StringVar(&client, "client", "plain", "show the tools as this client does: plain (as listed), claude-code (mcp__SERVER__TOOL names) or openai-agents (strict where the schema allows)")
	fl.StringVar(&model, "model", "", "the model under test, as the provider names it")
	fl.StringVar(&personaModel, "persona-model", "", "the model that plays the person of tasks with a persona (default: --model)")
	fl.StringVar(&baseURL, "base-url", "", "the provider's base URL (default: its own, or ANTHROPIC_BASE_URL / OPENAI_BASE_URL)")
	fl.StringVar(&keyEnv, "api-key-env", "", "the environment variable holding the API key (default ANTHROPIC_API_KEY or OPENAI_API_KEY)")
	fl.IntVar(&retries, "retries", 4, "how often a request answered 429 or 5xx (or whose connection failed) is retried, with backoff")
	fl.IntVar(&trials, "trials", 0, "trials per task and target (default: the task file's, else 5)")
	fl.IntVar(&maxTurns, "max-turns", 0, "the model's replies per trial (default: the task's, the file's, else 20)")
	fl.IntVar(&concurrency, "concurrency", 4, "trials running at once (trials on one --backend run one at a time)")
	fl.Int64Var(&budget, "budget", 0, "spend at most N tokens (input and output, every model): a trial stops before a request that could pass it; 0 for no limit")
	fl.Int64Var(&maxTokens, "max-tokens", 4096, "the most output tokens one model reply may take (the budget reserves them)")
	fl.DurationVar(&requestTimeout, "request-timeout", 5*time.Minute, "how long one model request may go unanswered before its trial ends as timed out")
	fl.DurationVar(&trialTimeout, "trial-timeout", 0, "how long one trial may take in all (0: no limit)")
	fl.Float64Var(&minSuccess, "min-success", 0, "exit 1 when a target's success rate is below this fraction (a CI gate)")
	fl.StringVar(&format, "format", "markdown", "report format on stdout: markdown or json")
	fl.StringVar(&out, "out", "", "a directory for report.md, report.json, and each trial's transcript and audit log")
	fl.DurationVar(&timeout, "timeout", 60*time.Second, "how long one tool call (or a server's start) may take")
	return cmd
}
