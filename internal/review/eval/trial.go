package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/review/scenario"
)

// Outcomes: how a trial ended.
const (
	Answered    = "answered"   // the model gave its final answer
	TurnLimit   = "turn limit" // it was still working at the task's turn limit
	OutOfBudget = "budget"     // the token budget stopped it
	TimedOut    = "timeout"    // a model request, or the trial, took too long
	Failed      = "error"      // the server, the backend or the provider failed
)

// TrialResult is one run of a task on a target.
type TrialResult struct {
	Task   string `json:"task"`
	Target string `json:"target"`
	Trial  int    `json:"trial"`
	// Outcome is how it ended; Success whether it ended answered with every
	// success condition met; Failures say which were not.
	Outcome  string   `json:"outcome"`
	Success  bool     `json:"success"`
	Failures []string `json:"failures,omitempty"`
	Error    string   `json:"error,omitempty"`
	// Turns are the model's replies; ToolCalls its tool calls, of which
	// ErrorResults returned isError.
	Turns        int   `json:"turns"`
	ToolCalls    int   `json:"tool_calls"`
	ErrorResults int   `json:"error_results"`
	Usage        Usage `json:"usage"`
	// PersonaUsage is what the model playing the person cost.
	PersonaUsage Usage      `json:"persona_usage"`
	Approvals    []Approval `json:"approvals,omitempty"`
	Answer       string     `json:"answer,omitempty"`
	Wall         Millis     `json:"wall_ms"`
	Events       []Event    `json:"-"`
	// Audit is the server's stderr: its audit log.
	Audit []byte `json:"-"`
}

// trial runs one task on one target.
type trial struct {
	file     *File
	task     *Task
	target   scenario.Target
	model    Model
	persona  Model
	budget   *budget
	maxTurns int
	// timeout bounds each tool call and the server's start; trialTimeout
	// the whole trial (0: none).
	timeout      time.Duration
	trialTimeout time.Duration
	// client is how the tools are presented (Clients).
	client string

	start  time.Time
	mu     sync.Mutex
	result *TrialResult
	// doing is what the trial waits for, for the reason a timeout gives.
	doing string
}

func (t *trial) now(doing string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.doing = doing
}

func (t *trial) event(e Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e.At = Millis(time.Since(t.start))
	t.result.Events = append(t.result.Events, e)
}

func (t *trial) run(ctx context.Context, n int) *TrialResult {
	t.start = time.Now()
	t.result = &TrialResult{Task: t.task.Name, Target: t.target.Name, Trial: n}
	r := t.result
	tctx := ctx
	if t.trialTimeout > 0 {
		var cancel context.CancelFunc
		tctx, cancel = context.WithTimeout(ctx, t.trialTimeout)
		defer cancel()
	}
	err := t.converse(tctx)
	switch {
	case errors.Is(err, errBudget):
		r.Outcome, r.Error = OutOfBudget, err.Error()
	case err != nil && ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded):
		t.mu.Lock()
		r.Outcome, r.Error = TimedOut, fmt.Sprintf("the trial took longer than %s (the trial timeout), while %s", t.trialTimeout, t.doing)
		t.mu.Unlock()
	case errors.Is(err, errTimeout):
		r.Outcome, r.Error = TimedOut, err.Error()
	case err != nil:
		r.Outcome, r.Error = Failed, err.Error()
	}
	r.Wall = Millis(time.Since(t.start))
	if r.Outcome == Answered {
		r.Success = len(r.Failures) == 0
	} else if r.Outcome == TurnLimit {
		r.Failures = append([]string{fmt.Sprintf("the model was still working after %d turns (the task's limit)", t.maxTurns)}, r.Failures...)
	}
	success := r.Success
	t.event(Event{Type: "end", Outcome: r.Outcome, Success: &success, Failures: r.Failures, Text: r.Error})
	return r
}

// converse is the trial's conversation: the person asks, the model answers
// or calls tools, until it gives its final answer or reaches the limit.
func (t *trial) converse(ctx context.Context) error {
	r := t.result
	t.now("starting the backend")
	backend, release, err := backendFor(ctx, t.file.Backend, t.target)
	if err != nil {
		return err
	}
	defer release()
	var proxy *scenario.Proxy
	var args []string
	if backend != "" {
		if proxy, err = scenario.StartProxy(backend); err != nil {
			return err
		}
		defer proxy.Close()
		args = []string{"--base-url", proxy.URL}
	}
	p := newPerson(t.task, t.persona)
	p.event = t.event
	p.spend = func(ctx context.Context, counted, maxOutput int64, do func() (*Turn, error)) (*Turn, error) {
		turn, err := t.budget.call(ctx, counted, maxOutput, do)
		if turn != nil {
			r.PersonaUsage.Add(turn.Usage)
		}
		return turn, err
	}
	var env []string
	for _, e := range t.file.Env {
		env = append(env, e.Name+"="+e.Value)
	}
	audit := &tailWriter{keepAll: true}
	target := t.target
	target.Stderr = audit
	t.now("starting the server")
	sctx, cancel := context.WithTimeout(ctx, t.timeout)
	session, err := scenario.Connect(sctx, target, env, args, &mcp.ClientOptions{ElicitationHandler: p.approve})
	cancel()
	if err != nil {
		return err
	}
	closed := false
	closeSession := func() {
		if !closed {
			closed = true
			session.Close()
			r.Audit = audit.bytes()
		}
	}
	defer closeSession()
	list, err := listTools(ctx, session, t.timeout)
	if err != nil {
		return err
	}
	server := ""
	if init := session.InitializeResult(); init != nil && init.ServerInfo != nil {
		server = init.ServerInfo.Name
	}
	conv := &Conversation{System: t.file.System, Tools: toolsOf(list, t.client, server), Messages: []Message{{Role: "user", Text: t.task.Ask}}}
	t.event(Event{Type: "user", Text: t.task.Ask})
	for {
		if r.Turns >= t.maxTurns {
			r.Outcome = TurnLimit
			break
		}
		t.now(fmt.Sprintf("waiting for the model's reply %d", r.Turns+1))
		turn, err := t.budget.call(ctx, countTokens(conv), t.model.MaxOutput(), func() (*Turn, error) { return t.model.Next(ctx, conv) })
		if err != nil {
			return err
		}
		r.Turns++
		r.Usage.Add(turn.Usage)
		u := turn.Usage
		t.event(Event{Type: "assistant", Text: turn.Text, Calls: turn.Calls, Usage: &u})
		conv.Messages = append(conv.Messages, Message{Role: "assistant", Text: turn.Text, Calls: turn.Calls})
		if len(turn.Calls) > 0 {
			results := t.callTools(ctx, session, conv.Tools, turn.Calls)
			if err := ctx.Err(); err != nil {
				return err // the trial's time ran out during a call: say which
			}
			conv.Messages = append(conv.Messages, Message{Role: "user", Results: results})
			continue
		}
		t.now("waiting for the person's reply")
		say, ok, err := p.reply(ctx, turn.Text, conv.Messages)
		if err != nil {
			return err
		}
		if !ok {
			r.Outcome, r.Answer = Answered, turn.Text
			break
		}
		t.event(Event{Type: "user", Text: say})
		conv.Messages = append(conv.Messages, Message{Role: "user", Text: say})
	}
	closeSession()
	r.Approvals = p.Approvals
	var received []scenario.Request
	if proxy != nil {
		received = proxy.Since(0)
	}
	r.Failures = judge(t.task.Success, received, proxy != nil, r.Answer, r.Outcome == Answered)
	return nil
}

// callTools makes the model's tool calls, one after the other as clients
// do, and returns what the model reads of each.
func (t *trial) callTools(ctx context.Context, s *mcp.ClientSession, tools []Tool, calls []ToolCall) []ToolResult {
	var out []ToolResult
	for _, c := range calls {
		t.result.ToolCalls++
		res := ToolResult{CallID: c.ID}
		args, err := argsObject(c.Args)
		if err == nil {
			t.now("calling tool " + c.Name)
			cctx, cancel := context.WithTimeout(ctx, t.timeout)
			var got *mcp.CallToolResult
			name := mcpName(tools, c.Name)
			if name == "" {
				name = c.Name // not one of the tools: the server says so
			}
			got, err = s.CallTool(cctx, &mcp.CallToolParams{Name: name, Arguments: args})
			cancel()
			if err == nil {
				res.Text, res.IsError = scenario.ResultText(got), got.IsError
			}
		}
		if err != nil {
			// What a client shows the model when the call itself failed
			// (unknown tool, arguments that are not an object, no answer).
			res.Text, res.IsError = "Error calling tool "+c.Name+": "+err.Error(), true
		}
		if res.IsError {
			t.result.ErrorResults++
		}
		t.event(Event{Type: "tool_result", CallID: c.ID, Tool: c.Name, Text: res.Text, IsError: res.IsError})
		out = append(out, res)
	}
	return out
}

func listTools(ctx context.Context, s *mcp.ClientSession, timeout time.Duration) ([]*mcp.Tool, error) {
	var out []*mcp.Tool
	params := &mcp.ListToolsParams{}
	for {
		lctx, cancel := context.WithTimeout(ctx, timeout)
		res, err := s.ListTools(lctx, params)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		out = append(out, res.Tools...)
		if res.NextCursor == "" {
			return out, nil
		}
		params.Cursor = res.NextCursor
	}
}

// judge lists the success conditions the trial did not meet.
func judge(s Success, received []scenario.Request, recorded bool, answer string, answered bool) []string {
	var out []string
	for _, rc := range s.Requests {
		if !recorded {
			out = append(out, "success.requests needs a backend: run with --backend URL, or give backend.start in the task file")
			break
		}
		n := 0
		for _, r := range received {
			if len(rc.Match.Mismatches(r)) == 0 {
				n++
			}
		}
		switch {
		case rc.HasCount && n != rc.Count:
			out = append(out, fmt.Sprintf("%s: the backend received %s matching it, want %d", rc.Match.Describe(), plural(n, "request"), rc.Count))
		case !rc.HasCount && n == 0:
			out = append(out, fmt.Sprintf("%s: the backend received no request matching it%s", rc.Match.Describe(), nearest(rc.Match, received)))
		}
	}
	if s.Answer != nil && answered {
		out = append(out, s.Answer.Mismatches("the final answer", answer)...)
	}
	return out
}

// nearest says why the received request closest to m did not match.
func nearest(m *scenario.RequestMatch, received []scenario.Request) string {
	var best []string
	var bestReq scenario.Request
	for _, r := range received {
		if mm := m.Mismatches(r); best == nil || len(mm) < len(best) {
			best, bestReq = mm, r
		}
	}
	if best == nil {
		return " (it received none)"
	}
	return fmt.Sprintf(" (closest: %s; %s)", scenario.DescribeRequest(bestReq), strings.Join(best, "; "))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
