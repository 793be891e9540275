package cli

import (
	"github.com/spf13/cobra"

	"github.com/tailormcp/tailor/internal/review/diff"
)

func newDiffCmd() *cobra.Command {
	var f specFlags
	var format, against string
	cmd := &cobra.Command{
		Use:   "diff --spec FILE [--overlay FILE] [--format table|markdown|json] [--against OLD_SPEC]",
		Short: "Show the raw tool set beside the curated one, and what it costs the model",
		Long: `diff puts the raw tool set (every operation of the spec as written converted as is: no
overlay, none of its actions) beside the curated one (the spec the overlay's actions patched, the
overlay applied), tool by tool: the operations it calls, parameters hidden, fixed,
injected from the caller's context, renamed or computed from earlier steps, which arguments the
model no longer fills, the description's length and the annotations; and the totals: tool count
and the size of tools/list in tokens. Tokens are counted with the o200k_base tokenizer: an
estimate, since every client and model wraps tool definitions its own way.

With --against OLD_SPEC it also shows what the change from OLD_SPEC to --spec does to the
curated tools (curated on OLD_SPEC): operations that vanished, parameters added, removed or
made required, response fields that disappeared (marking those the overlay's templates and
keep/drop paths read), and the overlay's errors against the new spec.

Exit status: 0, 1 when the inputs have errors (also when the overlay no longer applies to
--spec under --against), 2 on a wrong command line.`,
		Example: `  # What curation changes, as a table:
  tailor diff --spec openapi.yaml --overlay tools.yaml

  # As a pull-request comment:
  tailor diff --spec openapi.yaml --overlay tools.yaml --format markdown > diff.md

  # What the API change on this branch does to the curated tools:
  git show origin/main:openapi.yaml > /tmp/old.yaml
  tailor diff --spec openapi.yaml --overlay tools.yaml --against /tmp/old.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := required("diff", [2]string{"--spec", f.spec}); err != nil {
				return err
			}
			if err := oneOf("diff", "--format", format, diff.Formats); err != nil {
				return err
			}
			cur, curErr := f.run()
			var report *diff.Report
			if against == "" {
				if curErr != nil {
					return curErr
				}
				report = diff.Of(cur)
			} else {
				// The older spec, curated with the same overlay; its $refs
				// read below its own folder.
				old, oldErr := specFlags{spec: against, overlay: f.overlay, allowRemoteRefs: f.allowRemoteRefs}.run()
				var err error
				if report, err = diff.Versions(cur, curErr, old, oldErr); err != nil {
					return err
				}
			}
			if err := diff.Write(cmd.OutOrStdout(), report, format); err != nil {
				return err
			}
			if report.Against != nil && len(report.Against.OverlayErrors) > 0 {
				return &exitError{code: ExitFailed}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.spec, "spec", "", "OpenAPI description to read (YAML or JSON)")
	fl.StringVar(&f.overlay, "overlay", "", "tailor overlay that curates the tool set (without it both sides are the raw set)")
	fl.StringVar(&format, "format", "table", "output format: table, markdown or json")
	fl.StringVar(&against, "against", "", "an older version of the spec: show what the change to --spec does to the curated tools")
	f.addRefFlags(fl)
	return cmd
}
