package eval

import (
	"context"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// responsesModel is a model of OpenAI's Responses API, through its official
// SDK. The whole conversation is sent each turn (store: false), as with
// the other APIs, so that nothing depends on state kept by the provider.
type responsesModel struct {
	client openai.Client
	c      ModelConfig
}

func newResponses(c ModelConfig, key string) *responsesModel {
	opts := []option.RequestOption{option.WithAPIKey(key), option.WithMaxRetries(c.MaxRetries)}
	if c.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(c.BaseURL))
	}
	if c.Timeout > 0 {
		opts = append(opts, option.WithRequestTimeout(c.Timeout))
	}
	return &responsesModel{client: openai.NewClient(opts...), c: c}
}

func (m *responsesModel) Name() string { return "openai-responses/" + m.c.Model }

func (m *responsesModel) MaxOutput() int64 { return m.c.MaxTokens }

func (m *responsesModel) Next(ctx context.Context, c *Conversation) (*Turn, error) {
	params := responses.ResponseNewParams{Model: m.c.Model, MaxOutputTokens: openai.Int(m.c.MaxTokens), Store: openai.Bool(false)}
	if c.System != "" {
		params.Instructions = openai.String(c.System)
	}
	for _, t := range c.Tools {
		// Strict only as the client presenting it would ask.
		fn := responses.ToolParamOfFunction(t.Name, openAITool(t).OfFunction.Function.Parameters, t.Strict)
		if t.Description != "" {
			fn.OfFunction.Description = openai.String(t.Description)
		}
		params.Tools = append(params.Tools, fn)
	}
	var input responses.ResponseInputParam
	for _, msg := range c.Messages {
		for _, r := range msg.Results {
			text := r.Text
			if r.IsError {
				text = "Error: " + text
			}
			input = append(input, responses.ResponseInputItemParamOfFunctionCallOutput(text))
			input[len(input)-1].OfFunctionCallOutput.CallID = openai.String(r.CallID)
		}
		if msg.Text != "" {
			role := responses.EasyInputMessageRoleUser
			if msg.Role == "assistant" {
				role = responses.EasyInputMessageRoleAssistant
			}
			input = append(input, responses.ResponseInputItemParamOfMessage(msg.Text, role))
		}
		for _, call := range msg.Calls {
			input = append(input, responses.ResponseInputItemParamOfFunctionCall(call.Args, call.ID, call.Name))
		}
	}
	params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	res, err := m.client.Responses.New(ctx, params)
	if err != nil {
		return nil, m.c.requestFailed(ctx, err)
	}
	t := &Turn{Text: res.OutputText(), Usage: Usage{Input: res.Usage.InputTokens, Output: res.Usage.OutputTokens}}
	for _, item := range res.Output {
		if item.Type == "function_call" {
			fc := item.AsFunctionCall()
			t.Calls = append(t.Calls, ToolCall{ID: fc.CallID, Name: fc.Name, Args: fc.Arguments})
		}
	}
	return t, nil
}
