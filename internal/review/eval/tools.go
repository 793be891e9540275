package eval

import (
	"encoding/json"
	"regexp"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	schemapkg "github.com/tailormcp/tailor/internal/generate/schema"
)

// The tools are shown to each provider the way MCP clients show MCP tools:
// the tool's name, its description, and its inputSchema as the server sent
// it, with only the wrapping the provider requires; and, with a client
// named, as that client shows them (its names, its strict flag). Making
// schemas acceptable to strict modes is the generator's job, not this one's.

// Clients are the ways tools can be presented: plain (as the server lists
// them), claude-code (Claude Code and the Claude Agent SDK: each name
// mcp__SERVER__TOOL) and openai-agents (the OpenAI Agents SDK with strict
// schemas on: a tool whose input schema keeps strict mode's rules goes out
// strict, any other as it is).
var Clients = []string{"plain", "claude-code", "openai-agents"}

// toolsOf turns an MCP tools/list into the tools a model is shown, as the
// client shows them; server is the name the server gave in initialize.
func toolsOf(list []*mcp.Tool, client, server string) []Tool {
	out := make([]Tool, 0, len(list))
	for _, t := range list {
		schema, _ := jsonValue(t.InputSchema).(map[string]any)
		if schema == nil {
			schema = map[string]any{"type": "object"}
		}
		tool := Tool{Name: t.Name, Description: t.Description, InputSchema: schema, MCPName: t.Name}
		switch client {
		case "claude-code":
			tool.Name = "mcp__" + notName.ReplaceAllString(server, "_") + "__" + t.Name
		case "openai-agents":
			raw, _ := json.Marshal(schema)
			tool.Strict = len(schemapkg.CheckStrict(raw)) == 0
		}
		out = append(out, tool)
	}
	return out
}

// notName is what Claude Code replaces in a server's name.
var notName = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// mcpName is the server's name of the tool the model called by name ("" for
// none: the call fails as a client fails it).
func mcpName(tools []Tool, name string) string {
	for _, t := range tools {
		if t.Name == name {
			return t.MCPName
		}
	}
	return ""
}

// anthropicTool is a tool of the Messages API: input_schema's properties
// and required have fields of their own, every other keyword rides along.
func anthropicTool(t Tool) anthropic.ToolUnionParam {
	in := anthropic.ToolInputSchemaParam{Properties: t.InputSchema["properties"], ExtraFields: map[string]any{}}
	if req, ok := t.InputSchema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				in.Required = append(in.Required, s)
			}
		}
	}
	for k, v := range t.InputSchema {
		switch k {
		case "type", "properties", "required":
		default:
			in.ExtraFields[k] = v
		}
	}
	p := anthropic.ToolParam{Name: t.Name, InputSchema: in}
	if t.Description != "" {
		p.Description = anthropic.String(t.Description)
	}
	return anthropic.ToolUnionParam{OfTool: &p}
}

// openAITool is a function tool of Chat Completions: parameters is the
// input schema, an object with properties (an empty one when the tool
// takes none).
func openAITool(t Tool) openai.ChatCompletionToolUnionParam {
	params := make(shared.FunctionParameters, len(t.InputSchema)+2)
	for k, v := range t.InputSchema {
		params[k] = v
	}
	if _, ok := params["type"]; !ok {
		params["type"] = "object"
	}
	if _, ok := params["properties"]; !ok {
		params["properties"] = map[string]any{}
	}
	fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: params}
	if t.Strict {
		fn.Strict = openai.Bool(true)
	}
	if t.Description != "" {
		fn.Description = openai.String(t.Description)
	}
	return openai.ChatCompletionFunctionTool(fn)
}

// jsonValue is v as plain JSON values (maps, slices, strings, float64s).
func jsonValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}
