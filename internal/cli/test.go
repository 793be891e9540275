package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/review/scenario"
)

// tailorCommand is how tailor test runs `tailor serve`: this program again
// (tests replace it), with environment variables to add.
var tailorCommand = func() ([]string, []string, error) {
	exe, err := os.Executable()
	return []string{exe}, nil, err
}

func newTestCmd() *cobra.Command {
	var spec, overlay string
	var servers, backends, env []string
	var compare bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "test SCENARIOS.yaml... (--server [NAME=]CMD... | --spec FILE [--overlay FILE] [--compare]) [--backend URL...]",
		Short: "Run scenario files against a server: contract tests of the tools, raw beside curated",
		Long: `test runs the calls of scenario files through a real MCP client (over stdio) against a server,
and checks what must hold after each: isError, the text the model reads, structuredContent
fields (JSONPath), the approval question and the simulated person's answer, and, with --backend,
the requests the backend received (a recording proxy sits between the server and the backend,
which the server is pointed at with --base-url). Each scenario runs on a server of its own.
The file format is documented by scenarios/scenario.schema.json.

Targets: --server runs a command (a generated server; NAME= names it, else "server"; give it
twice to compare two builds); --spec runs tailor serve on the spec and --overlay ("curated", or
"raw" without an overlay); --compare adds the raw tool set of the same spec beside the curated
one. A scenario runs on every target unless its "only" names some. --backend is one URL for
every target, or one per target in order (scenarios change the backend's data).

The summary shows, per target: scenarios passed, failed and skipped, calls, error results, and
the tokens of what the model read (tools/list, results; o200k_base, an estimate).

Exit status: 0 when every scenario passed, 1 when one failed, 2 on bad input (a scenario file
with errors, printed as file:line:col; a tool a target does not have; a server that does not
start; a wrong command line).`,
		Example: `  # Contract tests of the generated server, in CI:
  tailor test scenarios.yaml --server ./bin/mcpserver --backend http://127.0.0.1:8080

  # The curated tool set beside the raw one, served from spec and overlay:
  tailor test scenarios.yaml --spec openapi.yaml --overlay tools.yaml --compare --backend http://127.0.0.1:8080`,
		RunE: func(cmd *cobra.Command, args []string) error {
			usage := func(format string, a ...any) error {
				return &exitError{code: ExitUsage, err: fmt.Errorf("tailor test: "+format, a...)}
			}
			if len(args) == 0 {
				return usage("give at least one scenario file (see tailor test --help)")
			}
			targets, err := targetsOf("test", servers, spec, overlay, compare, backends, env)
			if err != nil {
				return err
			}
			var files []*scenario.File
			var errs diag.Errors
			for _, path := range args {
				data, err := os.ReadFile(path)
				if err != nil {
					return usage("cannot read the scenario file: %v", err)
				}
				f, err := scenario.Parse(path, data)
				var de *diag.Errors
				switch {
				case errors.As(err, &de):
					errs.List = append(errs.List, de.List...)
				case err != nil:
					return usage("%v", err)
				}
				files = append(files, f)
			}
			if len(errs.List) > 0 {
				return &exitError{code: ExitUsage, err: &errs}
			}
			res, err := scenario.Run(cmd.Context(), files, targets, scenario.Options{Timeout: timeout})
			var de *diag.Errors
			switch {
			case errors.As(err, &de):
				return &exitError{code: ExitUsage, err: err}
			case err != nil:
				return usage("%v", err)
			}
			scenario.Write(cmd.OutOrStdout(), res)
			if res.Failed() {
				return &exitError{code: ExitFailed}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&servers, "server", nil, "a server to test: [NAME=]COMMAND (program and arguments, split on spaces); repeat it to compare two")
	fl.StringVar(&spec, "spec", "", "run tailor serve on this OpenAPI description")
	fl.StringVar(&overlay, "overlay", "", "with --spec: the overlay that curates the tool set")
	fl.BoolVar(&compare, "compare", false, "with --spec and --overlay: also run the raw tool set (no overlay), side by side")
	fl.StringArrayVar(&backends, "backend", nil, "base URL of the API the servers call, through a recording proxy (once, or once per target)")
	fl.StringArrayVar(&env, "env", nil, "NAME=VALUE added to every server's environment (besides the scenario files' env); repeatable")
	fl.DurationVar(&timeout, "timeout", 60*time.Second, "how long one call (or a server's start) may take")
	return cmd
}

// targetsOf are the targets of tailor test and tailor eval: --server
// commands, or tailor serve on --spec (and --overlay, with --compare the
// raw tool set beside), each with its --backend and --env.
func targetsOf(cmdName string, servers []string, spec, overlay string, compare bool, backends, env []string) ([]scenario.Target, error) {
	usage := func(format string, a ...any) error {
		return &exitError{code: ExitUsage, err: fmt.Errorf("tailor "+cmdName+": "+format, a...)}
	}
	var targets []scenario.Target
	for i, s := range servers {
		name, command, ok := strings.Cut(s, "=")
		if !ok || strings.ContainsAny(name, " /") {
			name, command = "server", s
			if len(servers) > 1 {
				name = fmt.Sprintf("server%d", i+1)
			}
		}
		if len(scenario.SplitCommand(command)) == 0 {
			return nil, usage("--server %q has no command", s)
		}
		targets = append(targets, scenario.Target{Name: name, Command: scenario.SplitCommand(command), Display: command})
	}
	switch {
	case spec != "" && len(servers) > 0:
		return nil, usage("give --server or --spec, not both")
	case spec == "" && len(servers) == 0:
		return nil, usage("give a server to test: --server CMD, or --spec FILE [--overlay FILE]")
	case compare && (spec == "" || overlay == ""):
		return nil, usage("--compare needs --spec and --overlay (the raw tool set beside the curated one)")
	case overlay != "" && spec == "":
		return nil, usage("--overlay needs --spec")
	}
	if spec != "" {
		served, err := servedTargets(spec, overlay, compare)
		if err != nil {
			return nil, err
		}
		targets = served
	}
	switch {
	case len(backends) == 1:
		for i := range targets {
			targets[i].Backend = backends[0]
		}
	case len(backends) > 1 && len(backends) != len(targets):
		return nil, usage("%d --backend URLs for %d targets: give one, or one per target", len(backends), len(targets))
	case len(backends) > 1:
		for i := range targets {
			targets[i].Backend = backends[i]
		}
	}
	for _, e := range env {
		if !strings.Contains(e, "=") {
			return nil, usage("--env %q is not NAME=VALUE", e)
		}
		for i := range targets {
			targets[i].Env = append(targets[i].Env, e)
		}
	}
	return targets, nil
}

// servedTargets are tailor serve on spec: curated with the overlay, and
// the raw tool set beside it with --compare (under the overlay's server
// name, so that both read the same environment variables).
func servedTargets(spec, overlay string, compare bool) ([]scenario.Target, error) {
	self, env, err := tailorCommand()
	if err != nil {
		return nil, fmt.Errorf("tailor test: cannot find the tailor program to run tailor serve: %w", err)
	}
	name := ""
	if overlay != "" {
		o, err := generator.ReadOverlay(overlay)
		if err != nil {
			return nil, &exitError{code: ExitUsage, err: err}
		}
		name = o.Server.Name
	}
	target := func(label, overlay string) scenario.Target {
		args := []string{"serve", "--spec", spec}
		if overlay != "" {
			args = append(args, "--overlay", overlay)
		}
		display := "tailor " + strings.Join(args, " ")
		if name != "" {
			args = append(args, "--name", name)
		}
		// Validation only warns, and each scenario starts a server.
		args = append(args, "--no-validate", "--")
		return scenario.Target{Name: label, Command: append(append([]string(nil), self...), args...), Display: display, Env: env}
	}
	if overlay == "" {
		return []scenario.Target{target("raw", "")}, nil
	}
	if compare {
		return []scenario.Target{target("raw", ""), target("curated", overlay)}, nil
	}
	return []scenario.Target{target("curated", overlay)}, nil
}
