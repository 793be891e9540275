// Command tailor generates curated MCP servers from OpenAPI descriptions.
// See the README, or run `tailor --help`.
package main

import (
	"os"

	"github.com/tailormcp/tailor/internal/cli"
)

func main() { os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
