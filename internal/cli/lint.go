package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tailormcp/tailor/internal/review/lint"
)

func newLintCmd() *cobra.Command {
	var f specFlags
	var format string
	var budget int
	var listRules bool
	cmd := &cobra.Command{
		Use:   "lint --spec FILE [--overlay FILE] [--format text|json] [--budget TOKENS]",
		Short: "Check the tool definitions the model will read",
		Long: `lint checks the tools a server would list — the curated set with --overlay, else the raw one —
for what makes agents fail: descriptions too short to say when to use a tool, writes without
when-to-use and when-not guidance, writes that ask the model for an amount the API can quote,
identity arguments (customer_id, user_id, ...) the model fills, values listed in a description
but missing from the enum, ambiguous or mismatched argument names, names too long or clashing,
names that say read on a tool that writes, near-duplicate tools, instructions hidden in spec text (tool poisoning), and a tools/list over
the token budget.

Each finding is file:line:col (in the overlay where the tool has an entry, else at the operation
in the spec), a severity, the message and the rule id; after them, why each rule exists. Switch
a rule off for one tool in the overlay, with the reason:

  tools:
    lookup_customer:
      operation: getCustomer
      lint:
        disable:
          - {rule: identity-param, reason: "Back-office staff look up any customer."}

Exit status: 0 without errors (warnings allowed), 1 when a finding is an error or the inputs
have errors, 2 on a wrong command line.`,
		Example: `  tailor lint --spec openapi.yaml --overlay tools.yaml
  tailor lint --spec openapi.yaml --format json | jq '.findings[] | select(.severity == "error")'
  tailor lint --spec openapi.yaml --budget 8000     # fail when tools/list exceeds 8,000 tokens
  tailor lint --list-rules`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if listRules {
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				for _, r := range lint.Rules {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, r.Why)
				}
				return tw.Flush()
			}
			if err := required("lint", [2]string{"--spec", f.spec}); err != nil {
				return err
			}
			if err := oneOf("lint", "--format", format, lint.Formats); err != nil {
				return err
			}
			if budget < 0 {
				return &exitError{code: ExitUsage, err: fmt.Errorf("tailor lint: --budget must be 0 (no budget) or a number of tokens, not %d", budget)}
			}
			out, err := f.run()
			if err != nil {
				return err
			}
			out.PlaceTools()
			res := lint.Run(out.Curated, out.Raw, out.Overlay, lint.Options{Budget: budget, BudgetSet: cmd.Flags().Changed("budget")})
			if err := lint.Write(cmd.OutOrStdout(), res, format); err != nil {
				return err
			}
			if res.Errors > 0 {
				return &exitError{code: ExitFailed}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.spec, "spec", "", "OpenAPI description to read (YAML or JSON)")
	fl.StringVar(&f.overlay, "overlay", "", "tailor overlay: lint the curated tool set (without it, the raw one)")
	fl.StringVar(&format, "format", "text", "output format: text or json")
	fl.IntVar(&budget, "budget", lint.DefaultBudget, "most tokens tools/list may take (o200k_base estimate); 0 for no budget")
	fl.BoolVar(&listRules, "list-rules", false, "list the rules, their severities and why they exist, and exit")
	f.addRefFlags(fl)
	return cmd
}
