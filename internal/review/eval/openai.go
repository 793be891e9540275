package eval

import (
	"context"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// openAIModel is a model of OpenAI's Chat Completions API, or of any
// endpoint that speaks it (vLLM, llama.cpp server, Ollama, gateways),
// through OpenAI's official SDK.
type openAIModel struct {
	client openai.Client
	c      ModelConfig
}

func newOpenAI(c ModelConfig, key string) *openAIModel {
	// The explicit options come after the SDK's environment defaults and
	// win over them.
	opts := []option.RequestOption{option.WithAPIKey(key), option.WithMaxRetries(c.MaxRetries)}
	if c.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(c.BaseURL))
	}
	if c.Timeout > 0 {
		opts = append(opts, option.WithRequestTimeout(c.Timeout))
	}
	return &openAIModel{client: openai.NewClient(opts...), c: c}
}

func (m *openAIModel) Name() string { return "openai/" + m.c.Model }

func (m *openAIModel) MaxOutput() int64 { return m.c.MaxTokens }

func (m *openAIModel) Next(ctx context.Context, c *Conversation) (*Turn, error) {
	params := openai.ChatCompletionNewParams{Model: m.c.Model, MaxCompletionTokens: openai.Int(m.c.MaxTokens)}
	if c.System != "" {
		params.Messages = append(params.Messages, openai.SystemMessage(c.System))
	}
	for _, t := range c.Tools {
		params.Tools = append(params.Tools, openAITool(t))
	}
	for _, msg := range c.Messages {
		for _, r := range msg.Results {
			text := r.Text
			if r.IsError {
				// Chat Completions has no error flag: clients say it in the text.
				text = "Error: " + text
			}
			params.Messages = append(params.Messages, openai.ToolMessage(text, r.CallID))
		}
		switch {
		case msg.Role == "assistant":
			a := openai.ChatCompletionAssistantMessageParam{}
			if msg.Text != "" {
				a.Content.OfString = openai.String(msg.Text)
			}
			for _, call := range msg.Calls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       call.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: call.Name, Arguments: call.Args},
				}})
			}
			params.Messages = append(params.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case msg.Text != "":
			params.Messages = append(params.Messages, openai.UserMessage(msg.Text))
		}
	}
	res, err := m.client.Chat.Completions.New(ctx, params)
	if err != nil {
		return nil, m.c.requestFailed(ctx, err)
	}
	t := &Turn{Usage: Usage{Input: res.Usage.PromptTokens, Output: res.Usage.CompletionTokens}}
	if len(res.Choices) == 0 {
		return t, nil
	}
	msg := res.Choices[0].Message
	t.Text = msg.Content
	for _, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		t.Calls = append(t.Calls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
	}
	return t, nil
}
