package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tailormcp/tailor/internal/generate/model"
)

func newMCPConfigCmd() *cobra.Command {
	var name, command, url string
	var args, env []string
	cmd := &cobra.Command{
		Use:   "mcp-config --name NAME (--command PATH | --url URL) [--arg A ...] [--env K=V ...]",
		Short: "Print the MCP client configuration that runs a generated server",
		Long: `mcp-config prints the {"mcpServers": {...}} JSON that Claude Desktop (claude_desktop_config.json),
Claude Code (.mcp.json) and other MCP clients read: a stdio server started as --command with its
--arg arguments and --env environment (credentials, base URL), or a streamable HTTP server at --url.
A relative --command that names a file (./petstore) is made absolute, since clients start servers
from another directory; a bare name (petstore) is looked up in PATH by the client.`,
		Example: `  # A server built with: go build -o bin/petstore ./mcpserver/cmd/petstore
  tailor mcp-config --name petstore --command ./bin/petstore --env PETSTORE_SHELTER_KEY=secret

  # Add it to Claude Code in this repository:
  tailor mcp-config --name petstore --command ./bin/petstore > .mcp.json

  # A server already running in HTTP mode (petstore --http 127.0.0.1:8080):
  tailor mcp-config --name petstore --url http://127.0.0.1:8080/mcp`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := required("mcp-config", [2]string{"--name", name}); err != nil {
				return err
			}
			if !model.ValidToolName(name) { // a server name follows the tool names' rule
				return &exitError{code: ExitUsage, err: fmt.Errorf("tailor mcp-config: --name %q must be 1 to 64 of a-z A-Z 0-9 _ -", name)}
			}
			if (command == "") == (url == "") {
				return &exitError{code: ExitUsage, err: fmt.Errorf("tailor mcp-config: give one of --command (a stdio server) or --url (a streamable HTTP server)")}
			}
			server := map[string]any{}
			if url != "" {
				if len(args) > 0 || len(env) > 0 {
					return &exitError{code: ExitUsage, err: fmt.Errorf("tailor mcp-config: --arg and --env apply to --command; an HTTP server is configured where it runs")}
				}
				server["type"] = "http"
				server["url"] = url
			} else {
				if strings.ContainsRune(command, '/') || strings.ContainsRune(command, filepath.Separator) {
					if abs, err := filepath.Abs(command); err == nil {
						command = abs
					}
				}
				server["command"] = command
				if len(args) > 0 {
					server["args"] = args
				}
				if len(env) > 0 {
					vars := map[string]string{}
					for _, kv := range env {
						k, v, ok := strings.Cut(kv, "=")
						if !ok || k == "" {
							return &exitError{code: ExitUsage, err: fmt.Errorf("tailor mcp-config: --env %q must be KEY=VALUE", kv)}
						}
						vars[k] = v
					}
					server["env"] = vars
				}
			}
			out, err := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{name: server}}, "", "  ")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), string(out))
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "the server's name in the client (e.g. the generated server's name)")
	f.StringVar(&command, "command", "", "the server executable (stdio)")
	f.StringArrayVar(&args, "arg", nil, "an argument for --command (repeat for several)")
	f.StringArrayVar(&env, "env", nil, "an environment variable for --command as KEY=VALUE (repeat for several)")
	f.StringVar(&url, "url", "", "the URL of a running streamable HTTP server (…/mcp)")
	return cmd
}
