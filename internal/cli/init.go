package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tailormcp/tailor/internal/review/draft"
)

func newInitCmd() *cobra.Command {
	var f specFlags
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "init --spec FILE [--out overlay.yaml]",
		Short: "Draft an overlay from a spec, to curate from",
		Long: `init writes a first overlay for a spec: every operation listed as a tool, grouped by tag, with
its current description; above each tool, what tailor lint finds about it; under it, the
identity-like parameters (customer_id, user_id, ...) with the line that injects them from the
caller's context, and the money-like ones (amount, price, total, ...) on write tools, commented
out. It starts with the yaml-language-server line that points editors at the overlay's JSON
Schema, and generates as it is (the raw tool set), so it can be curated one step at a time.

Without --out the draft goes to stdout. An existing --out file is not overwritten without --force.`,
		Example: `  tailor init --spec openapi.yaml --out tools.yaml
  tailor lint --spec openapi.yaml --overlay tools.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := required("init", [2]string{"--spec", f.spec}); err != nil {
				return err
			}
			if out != "" && !force {
				if _, err := os.Stat(out); err == nil {
					return &exitError{code: ExitUsage, err: fmt.Errorf("tailor init: %s exists; pass --force to overwrite it", out)}
				}
			}
			f.overlay = "" // the draft is of the raw tool set
			res, err := f.run()
			if err != nil {
				return err
			}
			text := draft.Overlay(res.Raw, draft.Options{SpecPath: f.spec, OverlayPath: out})
			if out == "" {
				_, err := cmd.OutOrStdout().Write(text)
				return err
			}
			if err := os.WriteFile(out, text, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "tailor: wrote %s with %d tools; curate it, then: tailor diff --spec %s --overlay %s\n", out, len(res.Raw.Tools), f.spec, out)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.spec, "spec", "", "OpenAPI description to read (YAML or JSON)")
	fl.StringVar(&out, "out", "", "file to write the overlay to (default: stdout)")
	fl.BoolVar(&force, "force", false, "overwrite --out if it exists")
	f.addRefFlags(fl)
	return cmd
}
