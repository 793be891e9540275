package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/review/check"
)

func newCheckCmd() *cobra.Command {
	var o generator.Options
	var omitVersion, failOnBreaking bool
	var against string
	cmd := &cobra.Command{
		Use:   "check --spec FILE [--overlay FILE] --out DIR [--package NAME ...] [--against OLD_SPEC]",
		Short: "For CI: fail when the generated server is stale or the overlay no longer fits the spec",
		Long: `check regenerates the server in memory, with the same flags as generate, and compares it with
what is committed in --out:

  - the overlay's references to operations, parameters and response fields are checked against
    the current spec (the errors generate prints, with positions and suggestions): exit 1;
  - when the committed files differ from what generate would write now, their unified diff is
    printed: exit 3 (run the same generate command and commit the result);
  - breaking changes (oasdiff's backward-compatibility checks) between the spec the committed
    output was generated from and the current one are listed for the operations the curated
    tools call. They are reported, not failed on, unless --fail-on-breaking (exit 1).

The spec the output was generated from is found by the hashes in the generated header
(// Source: openapi.yaml (sha256:...), and for a spec split over files // Source with $refs:
N files (sha256:...), over the root and every file its $refs read): when they differ from the
current spec's, check searches git history (the last 200 commits that changed a file below the
folder $refs may read) for the version with those hashes. That version is the whole spec as it
was in that commit: its $refs read the commit's files, confined as the current spec's are.
--against names it instead, as a file (its $refs read beside it) or as git's REV:PATH (e.g.
origin/main:api/openapi.yaml; its $refs read the files at REV), which also compares a branch with
its base when the output is up to date.

Exit status: 0 up to date; 1 the inputs have errors (or breaking changes with
--fail-on-breaking); 2 wrong command line; 3 the committed output is stale.`,
		Example: `  # In CI, with the flags of the go:generate line:
  tailor check --spec openapi.yaml --overlay tools.yaml --out ./mcpserver --package mcpserver --main

  # Breaking changes of this branch against main:
  tailor check --spec openapi.yaml --overlay tools.yaml --out ./mcpserver --against origin/main:openapi.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkGenerateFlags("check", &o, omitVersion); err != nil {
				return err
			}
			stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			out, genErr := generator.Run(o)
			var files []generator.File
			if genErr == nil {
				files, genErr = out.Render()
			}
			breaking := reportBreaking(o, against, out, genErr == nil, stdout, stderr)
			if genErr != nil {
				var de *diag.Errors
				if errors.As(genErr, &de) {
					if o.OverlayPath == "" {
						fmt.Fprintln(stderr, "tailor check: the spec no longer generates; fix these, then run generate:")
					} else {
						fmt.Fprintln(stderr, "tailor check: the overlay and the spec no longer fit together; fix these, then run generate:")
					}
				}
				return genErr
			}
			stale, err := check.Stale(o.OutDir, files)
			if err != nil {
				return err
			}
			if len(stale) > 0 {
				for _, f := range stale {
					fmt.Fprint(stdout, f.Unified)
				}
				names := make([]string, len(stale))
				for i, f := range stale {
					names[i] = f.Path
				}
				return &exitError{code: ExitChanged, err: fmt.Errorf("tailor check: %s in %s %s stale: run tailor generate with the same flags and commit the result", strings.Join(names, ", "), o.OutDir, map[bool]string{true: "is", false: "are"}[len(stale) == 1])}
			}
			if breaking > 0 && failOnBreaking {
				return &exitError{code: ExitFailed, err: fmt.Errorf("tailor check: %d breaking change%s to the operations the tools call (--fail-on-breaking)", breaking, map[bool]string{true: "", false: "s"}[breaking == 1])}
			}
			fmt.Fprintf(stderr, "tailor check: %s is up to date (%d tools)\n", o.OutDir, len(out.Curated.Tools))
			return nil
		},
	}
	f := cmd.Flags()
	addGenerateFlags(f, &o, &omitVersion, "directory holding the committed generated package (pass generate's flags)")
	f.StringVar(&against, "against", "", "the spec to report breaking changes against: a file or git REV:PATH (default: the version the header's hash names, from git history)")
	f.BoolVar(&failOnBreaking, "fail-on-breaking", false, "exit 1 when the operations the tools call have breaking changes")
	return cmd
}

// reportBreaking prints the breaking changes between the old spec and the
// current one for the operations the tools call, and returns how many
// there are. Problems finding the old spec are notes, not failures.
func reportBreaking(o generator.Options, against string, cur *generator.Output, curUsable bool, stdout, stderr io.Writer) int {
	note := func(format string, args ...any) { fmt.Fprintf(stderr, "tailor check: "+format+"\n", args...) }
	old, notes := check.FindOld(o, cur, against)
	for _, n := range notes {
		note("%s", n)
	}
	if old == nil {
		return 0 // nothing to compare, or generate reported what is wrong with the spec
	}
	changes, ops, err := check.Breaking(old.Out, cur, curUsable, old.Name)
	if err != nil {
		note("cannot compare %s with %s: %v", old.Name, o.SpecPath, err)
		return 0
	}
	if len(changes) == 0 {
		fmt.Fprintf(stdout, "no breaking changes from %s to %s in the %d operations the tools call\n", old.Name, o.SpecPath, ops)
		return 0
	}
	fmt.Fprintf(stdout, "breaking changes from %s to %s in the operations the tools call (oasdiff):\n", old.Name, o.SpecPath)
	for _, c := range changes {
		fmt.Fprintf(stdout, "  %s\n", c)
	}
	fmt.Fprintln(stdout)
	return len(changes)
}
