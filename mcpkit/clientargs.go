package mcpkit

// clientAddedArgs are arguments MCP clients add to every tool's input
// schema on their own and pass through when their model sets them; the
// server never asked for them. Gemini CLI adds wait_for_previous (a
// boolean that orders its parallel tool calls: BaseDeclarativeTool's
// addWaitForPreviousParameter in @google/gemini-cli-core) and sends it with
// the call's arguments.
var clientAddedArgs = []string{"wait_for_previous"}

// dropClientArgs removes from args, before validation, the arguments a
// client added on its own, unless the tool declares one of that name. The
// tool's schema stays closed to every other unknown argument.
func (v *validator) dropClientArgs(args map[string]any) {
	for _, name := range clientAddedArgs {
		if _, given := args[name]; given && !v.declared[name] {
			delete(args, name)
		}
	}
}
