package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tailormcp/tailor/mcpkit"
)

// newMessagesCmd lists mcpkit's built-in messages: the ids an overlay's
// `messages:` can replace, the fields each template sees, and the default.
func newMessagesCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "messages [id...]",
		Short: "List the built-in messages an overlay can replace",
		Long: `List the built-in messages of generated servers (and tailor serve): what the model reads when a
call fails in a way no error rule covers, and what is said around results and quotes. An overlay
replaces any of them for the whole server (messages:) or one tool (tools.<name>.messages:), with a
Go template over the fields listed here; tailor generate checks ids and fields.`,
		Example: `  tailor messages
  tailor messages not_found refused
  tailor messages --format json`,
		RunE: func(cmd *cobra.Command, ids []string) error {
			if err := oneOf("messages", "--format", format, []string{"text", "json"}); err != nil {
				return err
			}
			var list []mcpkit.Message
			if len(ids) == 0 {
				list = mcpkit.Catalog()
			}
			for _, id := range ids {
				m, ok := mcpkit.LookupMessage(id)
				if !ok {
					return &exitError{code: ExitUsage, err: fmt.Errorf("tailor messages: there is no message %q", id)}
				}
				list = append(list, m)
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(list)
			}
			for i, m := range list {
				if i > 0 {
					fmt.Fprintln(out)
				}
				fmt.Fprintf(out, "%s\n  %s\n", m.ID, strings.ReplaceAll(m.Text, "\n", "\n  "))
				for _, f := range m.Fields {
					fmt.Fprintf(out, "    .%s: %s\n", f.Name, f.Doc)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}
