// Command tailor generates curated MCP servers from OpenAPI descriptions.
// See the README, or run `tailor --help`.
package main

import (
	"os"
	"runtime"

	"github.com/tailormcp/tailor/internal/cli"
)

func main() {
	// tailor writes no heap profiles: sampling for one (the runtime does
	// by default, as runtime/pprof is linked in) costs stripe's generator
	// about 1 MiB of bucket memory at its peak.
	runtime.MemProfileRate = 0
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
