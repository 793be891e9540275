package eval

import (
	"encoding/json"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// The tools are shown to each provider the way MCP clients show MCP tools:
// the tool's name, its description, and its inputSchema as the server sent
// it, with only the wrapping the provider requires. Making schemas
// acceptable to strict modes is the generator's job, not this one's.

// toolsOf turns an MCP tools/list into the tools a model is shown.
func toolsOf(list []*mcp.Tool) []Tool {
	out := make([]Tool, 0, len(list))
	for _, t := range list {
		schema, _ := jsonValue(t.InputSchema).(map[string]any)
		if schema == nil {
			schema = map[string]any{"type": "object"}
		}
		out = append(out, Tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return out
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
