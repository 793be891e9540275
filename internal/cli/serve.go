package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/serve"
	"github.com/tailormcp/tailor/mcpkit"
)

func newServeCmd() *cobra.Command {
	var o generator.Options
	cmd := &cobra.Command{
		Use:   "serve --spec FILE [--overlay FILE] [-- SERVER FLAGS]",
		Short: "Run the tool set straight from spec and overlay, without generating code",
		Long: `serve builds the tool set the way generate does and serves it at once, over stdio or (with
-- --http ADDR) streamable HTTP, so that tools can be tried in an MCP client before any code is
committed. It behaves exactly like the generated server: the same run-time library performs the
same calls. Flags after -- are the generated server's own (see them with -- -h); its environment
variables use the same prefix.

A later start with the same spec (and the files its $refs read), overlay and flags serves the tool set
the first start built, without reading the spec, and prints its warnings again. It is kept in
$TAILOR_CACHE, else tailor/ under the user cache directory; TAILOR_CACHE=off builds at every start.`,
		Example: `  # stdio, for an MCP client that spawns servers:
  tailor serve --spec openapi.yaml --overlay tools.yaml -- --base-url http://localhost:8080

  # streamable HTTP on a local port:
  tailor serve --spec openapi.yaml --overlay tools.yaml -- --http 127.0.0.1:8081`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.SpecPath == "" {
				return &exitError{code: ExitUsage, err: fmt.Errorf("tailor serve: --spec is required (see tailor serve --help)")}
			}
			// The server's name, and so its environment prefix, is the
			// generated server's: --name, else the overlay's server.name
			// (there is no package to fall back on: then the spec's title).
			// An unchanged spec and overlay start from the tool set the
			// first start compiled (serve.Compile), warnings included.
			p, err := serve.Compile(o)
			if err != nil {
				return err
			}
			for _, w := range p.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), w)
			}
			api, register := serve.Lowered(p.Server)
			if code := mcpkit.Run(api, register, args, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.SpecPath, "spec", "", "OpenAPI description to read (YAML or JSON)")
	f.StringVar(&o.OverlayPath, "overlay", "", "tailor overlay that curates the tool set (default: the raw tool set)")
	f.StringVar(&o.Name, "name", "", "server name reported to clients, and in upper snake case the environment variable prefix (default: the overlay's server.name, else a short name (12 characters at most) of the spec's info.title, else of its host, else tailor; the environment prefix of that default stays the title in upper snake case)")
	f.StringVar(&o.EnvPrefix, "env-prefix", "", "prefix of the environment variables the server reads (default: the name in upper snake case)")
	f.BoolVar(&o.AllowRemoteRefs, "allow-remote-refs", false, "let $refs fetch http(s) URLs")
	f.StringVar(&o.RefRoot, "ref-root", "", refRootUsage)
	f.BoolVar(&o.SkipValidation, "no-validate", false, "skip strict spec validation (it only produces warnings)")
	f.BoolVar(&o.FullSchemas, "full-schemas", false, fullSchemasUsage)
	return cmd
}
