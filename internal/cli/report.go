package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/review/report"
	"github.com/tailormcp/tailor/internal/review/scenario"
)

func newReportCmd() *cobra.Command {
	var f specFlags
	var format, server string
	cmd := &cobra.Command{
		Use:   "report [AUDIT_LOG...] [--spec FILE] [--overlay FILE | --server CMD] [--format table|markdown|json]",
		Short: "Find, in audit logs, the tools where the model gets stuck",
		Long: `report reads the audit log of a generated server (or of tailor serve): its stderr, where each
tool call is one JSON line with "msg":"audit". Give files, or - (or nothing) for stdin; other log
lines are skipped, and lines that cannot be read are counted, listed and skipped.

It ranks the tools by what shows a model getting stuck: error results by kind (validation,
business rule, auth, backend failure, outcome unknown, approval declined), retries (the same tool
called again in a session after an error, and which argument the model rewrote), quotes never
carried out, approvals declined, calls per session, results cut to size, and tools never called
(with --spec; or --server, which lists the running server's tools; or an --overlay that lists
its tools, include: listed). Each finding says what kind
of change usually helps and, with --overlay, the overlay line to change.

Exit status: 0, 1 when a log or the spec cannot be read, 2 on a wrong command line.`,
		Example: `  # The server's stderr, kept by the client or a log collector:
  tailor report audit.log --spec openapi.yaml --overlay tools.yaml

  # As a pull-request or issue comment:
  tailor report audit.log --overlay tools.yaml --format markdown > report.md

  # From stdin:
  kubectl logs deploy/mcpserver | tailor report --overlay tools.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := oneOf("report", "--format", format, report.Formats); err != nil {
				return err
			}
			if server != "" && f.spec != "" {
				return &exitError{code: ExitUsage, err: fmt.Errorf("tailor report: give --spec or --server for the tool list, not both")}
			}
			var opts report.Options
			var ov *overlay.Overlay
			switch {
			case f.spec != "":
				out, err := f.run()
				if err != nil {
					return err
				}
				ov = out.Overlay
				opts.Tools = []string{}
				for _, t := range out.Curated.Tools {
					opts.Tools = append(opts.Tools, t.Name)
				}
			case server != "":
				ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
				defer cancel()
				tools, err := scenario.ListTools(ctx, scenario.Target{Name: "server", Command: scenario.SplitCommand(server)})
				if err != nil {
					return &exitError{code: ExitFailed, err: fmt.Errorf("tailor report: --server: %w", err)}
				}
				opts.Tools = []string{}
				for _, t := range tools {
					opts.Tools = append(opts.Tools, t.Name)
				}
			}
			if f.overlay != "" && ov == nil {
				var err error
				if ov, err = generator.ReadOverlay(f.overlay); err != nil {
					return err
				}
			}
			if ov != nil {
				opts.Places = report.PlacesOf(ov)
				if opts.Tools == nil && ov.Include.Mode == "listed" {
					// The overlay lists the whole tool set.
					opts.Tools = []string{}
					for _, t := range ov.Tools {
						if !t.Hidden {
							opts.Tools = append(opts.Tools, t.Name)
						}
					}
				}
			}
			var log report.Log
			if len(args) == 0 {
				args = []string{"-"}
			}
			for _, name := range args {
				if err := readLog(cmd, &log, name); err != nil {
					return &exitError{code: ExitFailed, err: fmt.Errorf("tailor report: %w", err)}
				}
			}
			return report.Write(cmd.OutOrStdout(), report.Analyze(&log, opts), format)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.spec, "spec", "", "OpenAPI description: the tool set (curated with --overlay), to find tools never called")
	fl.StringVar(&f.overlay, "overlay", "", "tailor overlay: findings point at its lines")
	fl.StringVar(&server, "server", "", "a server command (program and arguments, split on spaces) whose tools/list is the tool set")
	fl.StringVar(&format, "format", "table", "output format: table, markdown or json")
	f.addRefFlags(fl)
	return cmd
}

func readLog(cmd *cobra.Command, log *report.Log, name string) error {
	if name == "-" {
		return log.Read("stdin", cmd.InOrStdin())
	}
	file, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("cannot read the audit log: %w", err)
	}
	defer file.Close()
	return log.Read(name, file)
}
