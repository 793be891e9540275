package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// Model is a provider's chat API with tools: given the conversation so
// far, the model's next message.
type Model interface {
	Next(ctx context.Context, c *Conversation) (*Turn, error)
	// Name is provider/model, as the report shows it.
	Name() string
	// MaxOutput is the most output tokens a reply may take: the
	// max_tokens each request sends, which the budget reserves.
	MaxOutput() int64
}

// Conversation is what a model is sent each turn, in no provider's format.
type Conversation struct {
	System   string
	Tools    []Tool
	Messages []Message
}

// Tool is a tool as the model is shown it.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the MCP tool's inputSchema, as the server sent it.
	InputSchema map[string]any
	// Strict asks the provider to hold the model's arguments to the
	// schema (OpenAI's strict function calling).
	Strict bool
	// MCPName is the tool's name on the server, when the client shows
	// another.
	MCPName string `json:"-"`
}

// Message is one message of the conversation: the person's text, or the
// model's text and tool calls, or the results of those calls.
type Message struct {
	Role    string       `json:"role"` // user or assistant
	Text    string       `json:"text,omitempty"`
	Calls   []ToolCall   `json:"tool_calls,omitempty"`
	Results []ToolResult `json:"tool_results,omitempty"`
}

// ToolCall is a tool call the model made. Args are as the model wrote
// them: possibly not JSON, or not an object.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Args string `json:"arguments"`
}

// ToolResult is what a tool call returned, as the model reads it.
type ToolResult struct {
	CallID  string `json:"call_id"`
	Text    string `json:"text"`
	IsError bool   `json:"is_error,omitempty"`
}

// Turn is one reply of the model and what it cost.
type Turn struct {
	Text  string
	Calls []ToolCall
	Usage Usage
}

// Usage is what the provider reports a request cost, in its tokens.
type Usage struct {
	Input  int64 `json:"input_tokens"`
	Output int64 `json:"output_tokens"`
}

// Total is input and output tokens together.
func (u Usage) Total() int64 { return u.Input + u.Output }

// Add sums usages.
func (u *Usage) Add(v Usage) { u.Input += v.Input; u.Output += v.Output }

// ModelConfig says which model to use and how to reach it.
type ModelConfig struct {
	// Provider is anthropic (the Messages API), openai (Chat Completions,
	// also any OpenAI-compatible endpoint by BaseURL) or openai-responses
	// (the Responses API).
	Provider string
	Model    string
	// BaseURL overrides the provider's address ("" for its own, or its
	// SDK's environment variable).
	BaseURL string
	// KeyEnv names the environment variable holding the API key (default
	// ANTHROPIC_API_KEY or OPENAI_API_KEY). The key is never read from a
	// file.
	KeyEnv string
	// MaxRetries is how often the SDK retries a request answered 408, 409,
	// 429 or 5xx, or not answered, with backoff (honouring Retry-After).
	MaxRetries int
	// MaxTokens bounds each reply.
	MaxTokens int64
	// Timeout bounds each request (0: the SDK's). A request it ends is
	// not retried: its trial ends as timed out.
	Timeout time.Duration
}

// errTimeout ends a trial that waited too long: for a model's answer, or
// (the trial's own limit) for anything.
var errTimeout = errors.New("timed out")

// requestFailed is a provider request's error, one that got no answer
// within the request timeout said so.
func (c ModelConfig) requestFailed(ctx context.Context, err error) error {
	if c.Timeout > 0 && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: model %s did not answer within %s (the request timeout)", errTimeout, c.Model, c.Timeout)
	}
	return err
}

// Providers are the values ModelConfig.Provider takes.
var Providers = []string{"anthropic", "openai", "openai-responses"}

// DefaultKeyEnv is the environment variable a provider's key is read from.
func DefaultKeyEnv(provider string) string {
	if provider == "anthropic" {
		return "ANTHROPIC_API_KEY"
	}
	return "OPENAI_API_KEY"
}

// NewModel returns the model c names. Without a key it fails, unless a
// base URL is given (a local OpenAI-compatible server needs none).
func NewModel(c ModelConfig) (Model, error) {
	if c.Model == "" {
		return nil, fmt.Errorf("no model named: give --model")
	}
	if c.KeyEnv == "" {
		c.KeyEnv = DefaultKeyEnv(c.Provider)
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = 4096
	}
	key := os.Getenv(c.KeyEnv)
	switch c.Provider {
	case "anthropic":
		if c.BaseURL == "" {
			c.BaseURL = os.Getenv("ANTHROPIC_BASE_URL")
		}
	case "openai", "openai-responses":
		if c.BaseURL == "" {
			c.BaseURL = os.Getenv("OPENAI_BASE_URL")
		}
	default:
		return nil, fmt.Errorf("unknown provider %q: anthropic, openai (any OpenAI-compatible endpoint with a base URL) or openai-responses", c.Provider)
	}
	if key == "" && c.BaseURL == "" {
		return nil, fmt.Errorf("no API key: set %s in the environment (keys are never read from files)", c.KeyEnv)
	}
	switch c.Provider {
	case "anthropic":
		return newAnthropic(c, key), nil
	case "openai-responses":
		return newResponses(c, key), nil
	}
	return newOpenAI(c, key), nil
}

// argsObject reads a tool call's arguments: a JSON object, or an error
// the model is told.
func argsObject(args string) (map[string]any, error) {
	if args == "" {
		return map[string]any{}, nil
	}
	var v any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		return nil, fmt.Errorf("the arguments are not valid JSON (%v): send a JSON object of the tool's arguments", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the arguments must be a JSON object of the tool's arguments, not %s", jsonKind(v))
	}
	return m, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "a value"
}
