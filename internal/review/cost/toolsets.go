package cost

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/mcpkit"
)

// Toolset is the cost of one toolset: the tools/list of its tools alone.
type Toolset struct {
	Name    string `json:"name"`
	Default bool   `json:"default"`
	Measure
}

// Toolsets measures each toolset of api, in api.Toolsets' order (tools of
// no described toolset under their own name).
func Toolsets(api *ir.API) []Toolset {
	members := map[string][]*ir.Tool{}
	for _, t := range api.Tools {
		members[t.Toolset] = append(members[t.Toolset], t)
	}
	var out []Toolset
	seen := map[string]bool{}
	for _, ts := range api.Toolsets {
		seen[ts.Name] = true
		out = append(out, Toolset{Name: ts.Name, Default: ts.Default, Measure: Of(&ir.API{Tools: members[ts.Name]})})
	}
	var rest []string
	for name := range members {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	for _, name := range rest {
		out = append(out, Toolset{Name: name, Default: true, Measure: Of(&ir.API{Tools: members[name]})})
	}
	return out
}

// DynamicStart measures tools/list at the start of a dynamic session
// (--dynamic): the meta-tools, by name, whatever the API.
func DynamicStart() Measure {
	list := DynamicStartList()
	return Measure{Tools: len(mcpkit.MetaTools()), Bytes: len(list), Tokens: Tokens(list)}
}

// DynamicStartList is the text DynamicStart counts: {"tools":[...]} of the
// meta-tools' definitions, sorted by name, encoded as the server sends them.
func DynamicStartList() []byte {
	tools := append([]*mcpkit.Tool(nil), mcpkit.MetaTools()...)
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	var buf bytes.Buffer
	buf.WriteString(`{"tools":[`)
	for i, t := range tools {
		if i > 0 {
			buf.WriteByte(',')
		}
		var one bytes.Buffer
		enc := json.NewEncoder(&one)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(t.Definition()); err != nil {
			panic(err)
		}
		buf.Write(bytes.TrimRight(one.Bytes(), "\n"))
	}
	buf.WriteString(`]}`)
	return buf.Bytes()
}
