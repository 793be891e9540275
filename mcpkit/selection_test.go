package mcpkit

import (
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// In dynamic mode --tools lists tools from the start and leaves every
// toolset discoverable; --toolsets bounds what can be found.
func TestDynamicStartTools(t *testing.T) {
	api := API{Name: "t", EnvPrefix: "T", Toolsets: []Toolset{{Name: "a", Default: true}, {Name: "b", Default: true}}}
	register := func(s *mcp.Server, k *Runtime) {
		for _, n := range []struct{ name, set string }{{"a1", "a"}, {"a2", "a"}, {"b1", "b"}} {
			k.AddTool(s, &Tool{Name: n.name, Toolset: n.set, InputSchema: `{"type":"object"}`}, func(c *Call) *mcp.CallToolResult { return nil })
		}
	}
	for _, c := range []struct {
		sel            Selection
		listed, usable string
	}{
		{Selection{Dynamic: true, Tools: []string{"a1"}}, "a1", "a1,a2,b1"},
		{Selection{Dynamic: true, Toolsets: []string{"b"}}, "", "b1"},
		{Selection{Tools: []string{"a1"}}, "a1", "a1"},
	} {
		_, k, err := NewServer(api, Config{Selection: c.sel, Log: io.Discard}, register)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := k.selection(RequestInfo{})
		var listed, usable []string
		for _, e := range k.tools {
			if s.listed(e.tool) {
				listed = append(listed, e.tool.Name)
			}
			if s.allows(e.tool) {
				usable = append(usable, e.tool.Name)
			}
		}
		if strings.Join(listed, ",") != c.listed || strings.Join(usable, ",") != c.usable {
			t.Errorf("%+v: listed %v, usable %v; want %s and %s", c.sel, listed, usable, c.listed, c.usable)
		}
	}
}
