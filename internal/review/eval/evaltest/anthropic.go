package evaltest

import (
	"encoding/json"
	"fmt"
)

// parseAnthropic reads a Messages API request.
func parseAnthropic(body []byte) (*Conversation, error) {
	var req struct {
		Model  string          `json:"model"`
		System json.RawMessage `json:"system"`
		Tools  []struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			InputSchema map[string]any `json:"input_schema"`
		} `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("not a Messages request: %v", err)
	}
	c := &Conversation{Format: "anthropic", Model: req.Model}
	var blocks []block
	if json.Unmarshal(req.System, &c.System) != nil && json.Unmarshal(req.System, &blocks) == nil {
		for _, b := range blocks {
			c.System += b.Text
		}
	}
	for _, t := range req.Tools {
		if t.InputSchema["type"] != "object" {
			return nil, fmt.Errorf("tool %s: input_schema.type must be object", t.Name)
		}
		c.Tools = append(c.Tools, Tool{Name: t.Name, Description: t.Description, Schema: t.InputSchema})
	}
	for _, m := range req.Messages {
		msg := Message{Role: m.Role}
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			msg.Text = text
			c.Messages = append(c.Messages, msg)
			continue
		}
		var bs []block
		if err := json.Unmarshal(m.Content, &bs); err != nil {
			return nil, fmt.Errorf("message content: %v", err)
		}
		for _, b := range bs {
			switch b.Type {
			case "text":
				msg.Text += b.Text
			case "tool_use":
				msg.Calls = append(msg.Calls, Call{ID: b.ID, Name: b.Name, Args: string(b.Input)})
			case "tool_result":
				r := Result{CallID: b.ToolUseID, IsError: b.IsError}
				var s string
				var parts []block
				if json.Unmarshal(b.Content, &s) == nil {
					r.Text = s
				} else if json.Unmarshal(b.Content, &parts) == nil {
					for _, p := range parts {
						r.Text += p.Text
					}
				}
				msg.Results = append(msg.Results, r)
			}
		}
		c.Messages = append(c.Messages, msg)
	}
	return c, nil
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func anthropicReply(model string, n int, r Reply, in, out int64) map[string]any {
	var content []map[string]any
	if r.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": r.Text})
	}
	stop := "end_turn"
	for _, c := range r.Calls {
		stop = "tool_use"
		// The API sends input as JSON; a script's malformed arguments go as
		// a JSON string, which no client can take for an object.
		var input json.RawMessage
		if json.Valid([]byte(c.Args)) {
			input = json.RawMessage(c.Args)
		} else {
			input, _ = json.Marshal(c.Args)
		}
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": input})
	}
	if content == nil {
		content = []map[string]any{}
	}
	return map[string]any{
		"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": in, "output_tokens": out},
	}
}
