package scenario

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/yamlwalk"
)

// The conditions of scenario files, for other files that judge what a
// server did (tailor eval's tasks): read with the caller's walker, so
// that problems land in the caller's file, and checked without the values
// a scenario saves.

// ParseRequest reads a request matcher (method, path, query, headers,
// body) at n.
func ParseRequest(w yamlwalk.Walker, n *yaml.Node, where string) *RequestMatch {
	return (&parser{Walker: w}).request(n, where)
}

// ParseText reads a text condition (contains, not_contains, matches,
// equals) at n.
func ParseText(w yamlwalk.Walker, n *yaml.Node, what, where string) *TextCond {
	return (&parser{Walker: w}).textCond(n, what, where)
}

// Mismatches lists what of r differs from m; none when r matches.
func (m *RequestMatch) Mismatches(r Request) []string {
	var out []string
	k := &checker{saved: map[string]any{}, fail: func(_ diag.Pos, what string, _ ...string) { out = append(out, what) }}
	k.request(m, r, 1, nil)
	return out
}

// Describe is the matcher as failures name it: method and path.
func (m *RequestMatch) Describe() string { return m.describe(nil) }

// Mismatches lists what of s breaks t; none when s satisfies it.
func (t *TextCond) Mismatches(what, s string) []string {
	var out []string
	k := &checker{saved: map[string]any{}, fail: func(_ diag.Pos, what string, _ ...string) { out = append(out, what) }}
	k.text(t, what, s)
	return out
}

// DescribeRequest is a received request as failures show it, credentials
// hidden.
func DescribeRequest(r Request) string { return describeRequest(r) }

// ResultText is what the model reads of a tool result: its text contents.
func ResultText(res *mcp.CallToolResult) string { return resultText(res) }
