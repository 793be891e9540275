package mcpkit

import (
	"fmt"
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

// A filtered listing longer than a page is paged by name, each tool once.
func TestPageOf(t *testing.T) {
	var defs []*mcp.Tool
	for i := range listPageSize + 3 {
		defs = append(defs, &mcp.Tool{Name: fmt.Sprintf("t%05d", i)})
	}
	seen := map[string]bool{}
	cursor, pages := "", 0
	for {
		res, err := pageOf(defs, cursor)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, d := range res.Tools {
			if seen[d.Name] {
				t.Fatalf("%s listed twice", d.Name)
			}
			seen[d.Name] = true
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	if pages != 2 || len(seen) != len(defs) {
		t.Errorf("%d pages, %d tools; want 2 pages of %d tools", pages, len(seen), len(defs))
	}
	if _, err := pageOf(defs, "not base64!"); err == nil {
		t.Error("a cursor that is not one of the server's is accepted")
	}
}
