package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/generator/render"
)

func newGenerateCmd() *cobra.Command {
	var o generator.Options
	var omitVersion, quiet bool
	cmd := &cobra.Command{
		Use:   "generate --spec FILE --out DIR [--package NAME]",
		Short: "Generate a Go MCP server from an OpenAPI description",
		Long: `generate reads an OpenAPI 3.0/3.1 or Swagger 2.0 description (YAML or JSON) and writes a Go
package with one MCP tool per operation. Problems in the spec that do not block generation are
printed to stderr as warnings; problems that do are printed as file:line:col errors.`,
		Example: `  # A package in ./mcpserver, plus a runnable ./mcpserver/cmd/petstore/main.go:
  tailor generate --spec openapi.yaml --out ./mcpserver --package mcpserver --main

  # The curated tool set described by an overlay:
  tailor generate --spec openapi.yaml --overlay tools.yaml --out ./mcpserver --main

  # From go generate, next to the spec:
  //go:generate go tool tailor generate --spec openapi.yaml --out . --package petstore`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var missing []string
			for _, f := range []struct{ name, value string }{{"--spec", o.SpecPath}, {"--out", o.OutDir}} {
				if f.value == "" {
					missing = append(missing, f.name)
				}
			}
			if len(missing) > 0 {
				verb := "are"
				if len(missing) == 1 {
					verb = "is"
				}
				return &exitError{code: ExitUsage, err: fmt.Errorf("tailor generate: %s %s required (see tailor generate --help)", strings.Join(missing, " and "), verb)}
			}
			if o.Package == "" {
				// Abs, so that --out . names the directory it is.
				dir, err := filepath.Abs(o.OutDir)
				if err != nil {
					dir = o.OutDir
				}
				o.Package = filepath.Base(dir)
				if !render.ValidPackage(o.Package) {
					return &exitError{code: ExitUsage, err: fmt.Errorf("tailor generate: the package name would be %q, the last element of --out, which is not a Go identifier: pass --package NAME", o.Package)}
				}
			}
			if !render.ValidPackage(o.Package) {
				return &exitError{code: ExitUsage, err: fmt.Errorf("tailor generate: --package %q is not a valid Go package name: use a Go identifier such as petstore", o.Package)}
			}
			if o.Package == "main" && !o.Main {
				// A main package without func main does not build.
				return &exitError{code: ExitUsage, err: fmt.Errorf("tailor generate: --package main needs --main (a main package must have a main function); or name the package, e.g. --package petstore")}
			}
			if !omitVersion {
				o.ToolVersion = Version()
			}
			res, err := generator.Generate(o)
			if err != nil {
				return err
			}
			for _, w := range res.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), w.String())
			}
			if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
				return err
			}
			wrote, err := generator.Write(o.OutDir, res.Files)
			if err != nil {
				return err
			}
			if !quiet {
				fmt.Fprintf(cmd.ErrOrStderr(), "tailor: %d tools; wrote %d of %d files in %s\n", len(res.API.Tools), len(wrote), len(res.Files), o.OutDir)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.SpecPath, "spec", "", "OpenAPI description to read (YAML or JSON)")
	f.StringVar(&o.OverlayPath, "overlay", "", "tailor overlay (YAML) that curates the tool set; without it every operation is a raw tool")
	f.BoolVar(&o.Strict, "strict", false, "treat overlay actions that match nothing as errors")
	f.StringVar(&o.OutDir, "out", "", "directory to write the generated package to")
	f.StringVar(&o.Package, "package", "", "Go package name (default: the last element of --out)")
	f.BoolVar(&o.Main, "main", false, "also write a runnable main.go (in cmd/<name>/, or in --out when --package is main)")
	f.StringVar(&o.ImportPath, "import-path", "", "import path of the generated package, for --main (default: from the enclosing go.mod)")
	f.StringVar(&o.Name, "name", "", "server name reported to clients (default: the package name)")
	f.StringVar(&o.EnvPrefix, "env-prefix", "", "prefix of the environment variables the server reads (default: the name in upper case)")
	f.BoolVar(&o.AllowRemoteRefs, "allow-remote-refs", false, "let $refs fetch http(s) URLs (off: a spec should not make tailor send requests)")
	f.BoolVar(&o.SkipValidation, "no-validate", false, "skip strict spec validation (it only produces warnings)")
	f.BoolVar(&omitVersion, "omit-version", false, "leave tailor's version out of the generated header (stable golden files)")
	f.BoolVarP(&quiet, "quiet", "q", false, "print warnings only")
	return cmd
}
