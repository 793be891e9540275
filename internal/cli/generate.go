package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/diag"
)

func newGenerateCmd() *cobra.Command {
	var o generator.Options
	var omitVersion, quiet bool
	cmd := &cobra.Command{
		Use:   "generate --spec FILE --out DIR [--package NAME]",
		Short: "Generate a Go MCP server from an OpenAPI description",
		Long: `generate reads an OpenAPI 3.0/3.1 or Swagger 2.0 description (YAML or JSON) and writes a Go
package: one MCP tool per operation, or, with --overlay, the tool set the overlay curates. Problems
in the spec that do not block generation are printed to stderr as warnings; problems that do are
printed as file:line:col errors.`,
		Example: `  # A package in ./mcpserver, plus a runnable ./mcpserver/cmd/petstore/main.go:
  tailor generate --spec openapi.yaml --out ./mcpserver --package mcpserver --name petstore --main

  # The curated tool set described by an overlay:
  tailor generate --spec openapi.yaml --overlay tools.yaml --out ./mcpserver --main

  # From go generate, next to the spec:
  //go:generate go tool tailor generate --spec openapi.yaml --out . --package petstore`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkGenerateFlags("generate", &o, omitVersion); err != nil {
				return err
			}
			o.ReleaseSpec = true
			out, err := generator.Run(o)
			if err != nil {
				return err
			}
			// The warnings are placed (their lines read from the spec)
			// while the files render: the two share nothing.
			warnings := make(chan []diag.Diagnostic, 1)
			go func() { warnings <- out.Warnings() }()
			files, err := out.Render()
			ws := <-warnings
			if err != nil {
				return err
			}
			for _, w := range ws {
				fmt.Fprintln(cmd.ErrOrStderr(), w.String())
			}
			if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
				return err
			}
			wrote, err := generator.Write(o.OutDir, files)
			if err != nil {
				return err
			}
			if !quiet {
				fmt.Fprintf(cmd.ErrOrStderr(), "tailor: %d tools; wrote %d of %d files in %s\n", len(out.Curated.Tools), len(wrote), len(files), o.OutDir)
			}
			return nil
		},
	}
	f := cmd.Flags()
	addGenerateFlags(f, &o, &omitVersion, "directory to write the generated package to")
	f.BoolVarP(&quiet, "quiet", "q", false, "print warnings only")
	return cmd
}
