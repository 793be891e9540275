package mcpkit

import (
	"fmt"
	"io"
	"strings"
)

// choice holds the selection flags (see selection.go): each also read from
// <PREFIX>_<NAME> and, per HTTP request, from the X-MCP-<Name> header.
type choice struct {
	toolsets, tools, exclude *string
	readOnly, dynamic        *bool
}

func declareSelection(set *settings) *choice {
	return &choice{
		toolsets: set.String("toolsets", "TOOLSETS", "comma-separated toolsets to serve (\"all\": every one; default: the default toolsets listed below); per HTTP request the X-MCP-Toolsets header narrows it"),
		tools:    set.String("tools", "TOOLS", "comma-separated tools to serve besides the toolsets' (alone: only these); per HTTP request X-MCP-Tools narrows it"),
		exclude:  set.String("exclude-tools", "EXCLUDE_TOOLS", "comma-separated tools never to serve; per HTTP request X-MCP-Exclude-Tools excludes more"),
		readOnly: set.Bool("read-only", "READ_ONLY", "serve only tools that read: a tool that changes data is neither listed nor callable, whatever else is set; per HTTP request X-MCP-Read-Only: true does the same"),
		dynamic:  set.Bool("dynamic", "DYNAMIC", "start each session with only the discovery tools (list_toolsets, search_tools, describe_tool, enable_toolsets, call_tool) instead of every tool: for large APIs"),
	}
}

// selection reads the selection flags; one given with no name in it (",",
// "" or spaces) is an error, not a quiet fall-back to the defaults.
func (c *choice) selection(set *settings) Selection {
	list := func(flagName, value string) []string {
		l := commaList(value)
		if l == nil && set.given(flagName) {
			set.errs = append(set.errs, fmt.Sprintf("%s %q names nothing: give one or more names separated by commas, or leave it out", set.source(flagName), value))
		}
		return l
	}
	s := Selection{Tools: list("tools", *c.tools), ExcludeTools: list("exclude-tools", *c.exclude), ReadOnly: *c.readOnly, Dynamic: *c.dynamic}
	if set.given("toolsets") {
		s.Toolsets = list("toolsets", *c.toolsets)
	}
	return s
}

// printToolsets lists a server's toolsets for -h: name, tools, whether
// served by default, description.
func printToolsets(w io.Writer, api API, register Register) {
	k := &Runtime{api: api}
	register(nil, k)
	names := k.toolsetNames()
	if len(names) == 0 {
		return
	}
	count, writes := map[string]int{}, map[string]int{}
	for _, e := range k.tools {
		count[e.tool.Toolset]++
		if e.tool.Writes {
			writes[e.tool.Toolset]++
		}
	}
	fmt.Fprintf(w, "\nToolsets (--toolsets; * served by default):\n")
	for _, n := range names {
		mark := " "
		desc := ""
		for _, ts := range api.Toolsets {
			if ts.Name == n {
				desc = ts.Description
				if ts.Default {
					mark = "*"
				}
			}
		}
		if !k.describedToolset(n) {
			mark = "*"
		}
		line := fmt.Sprintf("  %s %s\t%d tool%s (%d change data)", mark, n, count[n], plural(count[n]), writes[n])
		if desc != "" {
			line += ": " + oneLine(desc, 100)
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}
