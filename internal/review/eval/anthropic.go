package eval

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// anthropicModel is a model of Anthropic's Messages API, through its
// official SDK.
type anthropicModel struct {
	client anthropic.Client
	c      ModelConfig
}

func newAnthropic(c ModelConfig, key string) *anthropicModel {
	// The SDK's own environment defaults (profiles, other variables) are
	// left out: the key comes from the one variable named.
	opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithMaxRetries(c.MaxRetries)}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	if c.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(c.BaseURL))
	}
	if c.Timeout > 0 {
		opts = append(opts, option.WithRequestTimeout(c.Timeout))
	}
	return &anthropicModel{client: anthropic.NewClient(opts...), c: c}
}

func (m *anthropicModel) Name() string { return "anthropic/" + m.c.Model }

func (m *anthropicModel) MaxOutput() int64 { return m.c.MaxTokens }

func (m *anthropicModel) Next(ctx context.Context, c *Conversation) (*Turn, error) {
	params := anthropic.MessageNewParams{Model: anthropic.Model(m.c.Model), MaxTokens: m.c.MaxTokens}
	if c.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: c.System}}
	}
	for _, t := range c.Tools {
		params.Tools = append(params.Tools, anthropicTool(t))
	}
	for _, msg := range c.Messages {
		var blocks []anthropic.ContentBlockParamUnion
		for _, r := range msg.Results {
			blocks = append(blocks, anthropic.NewToolResultBlock(r.CallID, r.Text, r.IsError))
		}
		if msg.Text != "" {
			blocks = append(blocks, anthropic.NewTextBlock(msg.Text))
		}
		for _, call := range msg.Calls {
			// The API takes back only an object as a tool_use's input.
			var input any = map[string]any{}
			if args, err := argsObject(call.Args); err == nil {
				input = args
			}
			blocks = append(blocks, anthropic.NewToolUseBlock(call.ID, input, call.Name))
		}
		if msg.Role == "assistant" {
			params.Messages = append(params.Messages, anthropic.NewAssistantMessage(blocks...))
		} else {
			params.Messages = append(params.Messages, anthropic.NewUserMessage(blocks...))
		}
	}
	res, err := m.client.Messages.New(ctx, params)
	if err != nil {
		return nil, m.c.requestFailed(ctx, err)
	}
	t := &Turn{Usage: Usage{Input: res.Usage.InputTokens + res.Usage.CacheCreationInputTokens + res.Usage.CacheReadInputTokens, Output: res.Usage.OutputTokens}}
	var text []string
	for _, b := range res.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			t.Calls = append(t.Calls, ToolCall{ID: b.ID, Name: b.Name, Args: string(rawOr(b.Input))})
		}
	}
	t.Text = strings.Join(text, "\n")
	return t, nil
}

func rawOr(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("{}")
	}
	return r
}
