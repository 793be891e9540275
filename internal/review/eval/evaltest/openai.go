package evaltest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// parseOpenAI reads a Chat Completions request.
func parseOpenAI(body []byte) (*Conversation, error) {
	var req struct {
		Model string `json:"model"`
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string         `json:"name"`
				Description string         `json:"description"`
				Parameters  map[string]any `json:"parameters"`
				Strict      bool           `json:"strict"`
			} `json:"function"`
		} `json:"tools"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("not a Chat Completions request: %v", err)
	}
	c := &Conversation{Format: "openai", Model: req.Model}
	for _, t := range req.Tools {
		if t.Type != "function" || t.Function.Parameters["type"] != "object" || t.Function.Parameters["properties"] == nil {
			return nil, fmt.Errorf("tool %s: a function whose parameters are an object with properties", t.Function.Name)
		}
		c.Tools = append(c.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Schema: t.Function.Parameters, Strict: t.Function.Strict})
	}
	for _, m := range req.Messages {
		var text string
		if json.Unmarshal(m.Content, &text) != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			json.Unmarshal(m.Content, &parts)
			for _, p := range parts {
				text += p.Text
			}
		}
		switch m.Role {
		case "system", "developer":
			c.System += text
		case "tool":
			// Consecutive tool messages answer one assistant message.
			r := Result{CallID: m.ToolCallID, Text: text, IsError: strings.HasPrefix(text, "Error")}
			if n := len(c.Messages); n > 0 && len(c.Messages[n-1].Results) > 0 {
				c.Messages[n-1].Results = append(c.Messages[n-1].Results, r)
			} else {
				c.Messages = append(c.Messages, Message{Role: "user", Results: []Result{r}})
			}
		default:
			msg := Message{Role: m.Role, Text: text}
			for _, tc := range m.ToolCalls {
				msg.Calls = append(msg.Calls, Call{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
			}
			c.Messages = append(c.Messages, msg)
		}
	}
	return c, nil
}

func openAIReply(model string, n int, r Reply, in, out int64) map[string]any {
	msg := map[string]any{"role": "assistant", "content": r.Text, "refusal": nil}
	finish := "stop"
	if len(r.Calls) > 0 {
		finish = "tool_calls"
		var calls []map[string]any
		for _, c := range r.Calls {
			calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}})
		}
		msg["tool_calls"] = calls
	}
	return map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1764800000, "model": model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	}
}
