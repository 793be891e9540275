// Package cli is tailor's command line, written as a function of its
// arguments and standard streams so that tests drive it in-process.
package cli

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/tailormcp/tailor/internal/diag"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailed  = 1 // the inputs have errors (printed as file:line:col)
	ExitUsage   = 2 // the command line is wrong
	ExitChanged = 3 // check: the generated files are stale (the output would change)
)

// Run executes tailor with args and returns the process exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:           "tailor",
		Short:         "Generate curated MCP servers from OpenAPI descriptions",
		Long:          "tailor turns an OpenAPI description (3.0, 3.1 or Swagger 2.0) into a Go MCP server built on\ngithub.com/modelcontextprotocol/go-sdk. Without an overlay every operation is a tool; a YAML overlay\nnext to the spec curates them into tools designed for an agent's task (tailor init drafts one).",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version(),
	}
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newGenerateCmd())
	root.AddCommand(newDiffCmd(), newLintCmd(), newCheckCmd(), newInitCmd(), newMCPConfigCmd())
	root.AddCommand(newServeCmd(), newMessagesCmd())
	root.AddCommand(newReportCmd(), newTestCmd(), newEvalCmd())

	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, ee.err)
		}
		return ee.code
	}
	var de *diag.Errors
	if errors.As(err, &de) {
		fmt.Fprintln(stderr, de.Error())
		return ExitFailed
	}
	fmt.Fprintf(stderr, "tailor: %v\n", err)
	return ExitUsage
}

type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// Version is tailor's module version, or "devel" in a source checkout.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
