// Package evaltest is a scripted model server on loopback for tests of
// tailor eval: it speaks Anthropic's Messages API (POST /v1/messages) and
// OpenAI's Chat Completions (POST /v1/chat/completions) and Responses (POST
// /v1/responses) wire formats, so
// that the providers' official SDKs reach it by their base URL option, and
// answers each request with what a Go script decides from the
// conversation it was sent (the tools, the tool results, the person's
// replies). It reports usage like the providers do, and can answer the
// next requests with an error status (429, 500) to exercise retries, or
// leave them unanswered (a provider that hangs).
// Nothing here calls a real model.
package evaltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Script decides the model's next message from the conversation.
type Script func(c *Conversation) Reply

// Conversation is a request as the script sees it, in either wire format.
type Conversation struct {
	// Format is "anthropic", "openai" (Chat Completions) or "responses".
	Format string
	Model  string
	// MaxTokens is the request's bound on the reply (max_tokens,
	// max_completion_tokens or max_output_tokens; 0 when absent).
	MaxTokens int64
	System    string
	Tools     []Tool
	Messages  []Message
}

// Tool is a tool the request offers the model.
type Tool struct {
	Name, Description string
	Schema            map[string]any
	// Strict is a function's strict flag (Chat Completions, Responses).
	Strict bool
}

// Message is one message: text, tool calls (assistant), tool results.
type Message struct {
	Role    string
	Text    string
	Calls   []Call
	Results []Result
}

// Call is a tool call; Args is the raw arguments text.
type Call struct{ ID, Name, Args string }

// Result is a tool result the client sent back.
type Result struct {
	CallID, Text string
	IsError      bool
}

// Reply is the model's next message.
type Reply struct {
	Text  string
	Calls []Call
	// OutputTokens, when set, is the output usage reported (a model that
	// writes at length, or thinks), capped at the request's MaxTokens as
	// providers cap it.
	OutputTokens int64
}

// Server is the scripted model server.
type Server struct {
	URL    string
	script Script

	mu       sync.Mutex
	requests int
	failures []int
	hangs    int
	// closing ends the requests held by HangNext when the test ends.
	closing chan struct{}
	// Input and Output are the usage the server reported, summed.
	input, output int64
	calls         int
}

// New starts a scripted model server for the test's duration.
func New(t testing.TB, script Script) *Server {
	s := &Server{script: script, closing: make(chan struct{})}
	hs := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(hs.Close)
	t.Cleanup(func() { close(s.closing) }) // first: Close waits for held requests
	s.URL = hs.URL
	return s
}

// FailNext answers the next requests with these statuses, one each.
func (s *Server) FailNext(statuses ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, statuses...)
}

// HangNext leaves the next n requests unanswered until the client gives
// up on them (a provider that hangs).
func (s *Server) HangNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hangs += n
}

// Requests is how many requests reached the server (retries included).
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Usage is the input and output tokens the server reported, summed over
// the requests it answered.
func (s *Server) Usage() (input, output int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.input, s.output
}

// Answered is how many requests the script answered.
func (s *Server) Answered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests++
	fail := 0
	if len(s.failures) > 0 {
		fail, s.failures = s.failures[0], s.failures[1:]
	}
	hang := s.hangs > 0
	if hang {
		s.hangs--
	}
	s.mu.Unlock()
	if hang {
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
		return
	}
	if fail != 0 {
		w.Header().Set("retry-after-ms", "5")
		w.Header().Set("retry-after", "0")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(fail)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"scripted","message":"scripted status %d"}}`, fail)
		return
	}
	var conv *Conversation
	var err error
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages"):
		conv, err = parseAnthropic(body)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		conv, err = parseOpenAI(body)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
		conv, err = parseResponses(body)
	default:
		http.Error(w, "not a scripted endpoint: "+r.URL.Path, http.StatusNotFound)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var bound struct {
		A int64 `json:"max_tokens"`
		C int64 `json:"max_completion_tokens"`
		R int64 `json:"max_output_tokens"`
	}
	json.Unmarshal(body, &bound)
	conv.MaxTokens = max(bound.A, bound.C, bound.R)
	reply := s.script(conv)
	// Deterministic usage: a token per 4 bytes, as providers roughly count.
	in := int64(len(body)/4 + 1)
	out := int64(len(reply.Text)/4 + 1)
	for _, c := range reply.Calls {
		out += int64(len(c.Name)+len(c.Args))/4 + 1
	}
	if reply.OutputTokens > 0 {
		out = reply.OutputTokens
	}
	if conv.MaxTokens > 0 {
		out = min(out, conv.MaxTokens)
	}
	s.mu.Lock()
	s.input += in
	s.output += out
	s.calls++
	n := s.calls
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch conv.Format {
	case "anthropic":
		json.NewEncoder(w).Encode(anthropicReply(conv.Model, n, reply, in, out))
	case "responses":
		json.NewEncoder(w).Encode(responsesReply(conv.Model, n, reply, in, out))
	default:
		json.NewEncoder(w).Encode(openAIReply(conv.Model, n, reply, in, out))
	}
}

// LastResult is the text of the last tool result in the conversation, and
// whether it was an error ("" when there is none).
func (c *Conversation) LastResult() (string, bool) {
	for i := len(c.Messages) - 1; i >= 0; i-- {
		if rs := c.Messages[i].Results; len(rs) > 0 {
			return rs[len(rs)-1].Text, rs[len(rs)-1].IsError
		}
	}
	return "", false
}

// Results are every tool result of the conversation, in order.
func (c *Conversation) Results() []Result {
	var out []Result
	for _, m := range c.Messages {
		out = append(out, m.Results...)
	}
	return out
}

// Called lists the tools called so far, in order.
func (c *Conversation) Called() []string {
	var out []string
	for _, m := range c.Messages {
		for _, call := range m.Calls {
			out = append(out, call.Name)
		}
	}
	return out
}

// LastUser is the last text the person wrote.
func (c *Conversation) LastUser() string {
	for i := len(c.Messages) - 1; i >= 0; i-- {
		if m := c.Messages[i]; m.Role == "user" && m.Text != "" {
			return m.Text
		}
	}
	return ""
}

// HasTool says whether the request offers a tool of that name.
func (c *Conversation) HasTool(name string) bool {
	for _, t := range c.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}
