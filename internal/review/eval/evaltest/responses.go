package evaltest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// parseResponses reads a Responses API request (the whole conversation as
// input items).
func parseResponses(body []byte) (*Conversation, error) {
	var req struct {
		Model        string `json:"model"`
		Instructions string `json:"instructions"`
		Tools        []struct {
			Type        string         `json:"type"`
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
			Strict      bool           `json:"strict"`
		} `json:"tools"`
		Input []struct {
			Type      string          `json:"type"`
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			CallID    string          `json:"call_id"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			Output    json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("not a Responses request: %v", err)
	}
	c := &Conversation{Format: "responses", Model: req.Model, System: req.Instructions}
	for _, t := range req.Tools {
		if t.Type != "function" || t.Parameters["type"] != "object" {
			return nil, fmt.Errorf("tool %s: a function whose parameters are an object", t.Name)
		}
		c.Tools = append(c.Tools, Tool{Name: t.Name, Description: t.Description, Schema: t.Parameters, Strict: t.Strict})
	}
	last := func() *Message {
		if len(c.Messages) == 0 {
			return nil
		}
		return &c.Messages[len(c.Messages)-1]
	}
	for _, it := range req.Input {
		switch it.Type {
		case "function_call":
			if m := last(); m != nil && m.Role == "assistant" && len(m.Results) == 0 {
				m.Calls = append(m.Calls, Call{ID: it.CallID, Name: it.Name, Args: it.Arguments})
			} else {
				c.Messages = append(c.Messages, Message{Role: "assistant", Calls: []Call{{ID: it.CallID, Name: it.Name, Args: it.Arguments}}})
			}
		case "function_call_output":
			var text string
			json.Unmarshal(it.Output, &text)
			r := Result{CallID: it.CallID, Text: text, IsError: strings.HasPrefix(text, "Error")}
			if m := last(); m != nil && len(m.Results) > 0 {
				m.Results = append(m.Results, r)
			} else {
				c.Messages = append(c.Messages, Message{Role: "user", Results: []Result{r}})
			}
		default:
			var text string
			json.Unmarshal(it.Content, &text)
			c.Messages = append(c.Messages, Message{Role: it.Role, Text: text})
		}
	}
	return c, nil
}

func responsesReply(model string, n int, r Reply, in, out int64) map[string]any {
	var output []map[string]any
	if r.Text != "" {
		output = append(output, map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", n), "role": "assistant", "status": "completed",
			"content": []map[string]any{{"type": "output_text", "text": r.Text, "annotations": []any{}}}})
	}
	for i, c := range r.Calls {
		output = append(output, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d_%d", n, i), "call_id": c.ID, "name": c.Name, "arguments": c.Args, "status": "completed"})
	}
	if output == nil {
		output = []map[string]any{}
	}
	return map[string]any{
		"id": fmt.Sprintf("resp_%d", n), "object": "response", "created_at": 1764800000, "model": model, "status": "completed",
		"output": output, "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{},
		"usage": map[string]any{"input_tokens": in, "output_tokens": out, "total_tokens": in + out,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}},
	}
}
