package eval

import (
	"encoding/json"
	"io"
	"time"
)

// Event is one line of a trial's transcript (JSONL): what the person said,
// what the model answered and called, what the tools returned, the
// approval questions and their answers, and how the trial ended.
type Event struct {
	Type string `json:"type"` // user, assistant, tool_result, approval, end
	// At is the time since the trial started.
	At      Millis     `json:"at_ms"`
	Text    string     `json:"text,omitempty"`
	Calls   []ToolCall `json:"tool_calls,omitempty"`
	Usage   *Usage     `json:"usage,omitempty"`
	CallID  string     `json:"call_id,omitempty"`
	Tool    string     `json:"tool,omitempty"`
	IsError bool       `json:"is_error,omitempty"`
	Answer  string     `json:"answer,omitempty"`
	// The end event: how the trial ended and whether it succeeded.
	Outcome  string   `json:"outcome,omitempty"`
	Success  *bool    `json:"success,omitempty"`
	Failures []string `json:"failures,omitempty"`
}

// Millis is a duration written as whole milliseconds.
type Millis time.Duration

func (m Millis) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(m).Milliseconds())
}

// WriteTranscript writes a trial's events, one JSON object a line.
func WriteTranscript(w io.Writer, t *TrialResult) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, e := range t.Events {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
}
