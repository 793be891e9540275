// Package eval is `tailor eval`: a real model runs the tasks of a task file
// on one or more tool sets (a generated server, tailor serve on spec and
// overlay, the raw tool set beside the curated one, a build before and
// after a change), and the report says, side by side, how often it
// succeeded and at what cost.
//
// A task is what a person asks (the first user message), how that person
// answers the model's follow-up questions (scripted replies by pattern,
// else a model playing the person from a short persona), how they answer
// the approval questions the server sends (MCP elicitation), a turn limit,
// and what counts as success: conditions on the requests the backend
// received (the recording proxy and request matchers of `tailor test`)
// and, optionally, on the final answer. Its JSON Schema is
// scenarios/task.schema.json:
//
//	tailor-eval: 1
//	env: {SHOP_CUSTOMER_ID: cust_1}
//	backend: {start: "bin/shop-api --addr {addr}"}   # a fresh backend per trial
//	tasks:
//	  - name: refund the unshipped item
//	    ask: Please cancel the case of order 5531 and refund it.
//	    replies: [{when: "(?i)shall I|proceed", say: "Yes, go ahead."}]
//	    approvals: [{answer: accept}]
//	    success:
//	      requests: [{method: POST, path: /orders/5531/refunds, body: {$.amount: 230}, count: 1}]
//
// Models are reached through their providers' official Go SDKs (model.go);
// each trial runs on a server of its own, through a recording proxy, and
// keeps its transcript and the server's audit log, over which the findings
// of `tailor report` are computed per target.
package eval

import (
	"regexp"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/review/scenario"
)

// Version is the task file format version this package reads.
const Version = 1

// File is a parsed task file.
type File struct {
	Path string
	// Env is added to the environment of every server.
	Env []scenario.EnvVar
	// System is the system prompt of the model under test ("" for none).
	System string
	// Trials and MaxTurns are the file's defaults (0: the caller's).
	Trials   int
	MaxTurns int
	Backend  Backend
	Tasks    []*Task
}

// Backend says how each trial gets a backend in a known state.
type Backend struct {
	// Reset, run with sh -c before each trial on a target's --backend
	// (TAILOR_BACKEND holds its URL), puts its data back; the target's
	// trials then run one at a time.
	Reset string
	// Start is a command that serves a fresh backend on {addr} (a free
	// loopback address tailor picks), started for each trial and stopped
	// after it; trials then run in parallel.
	Start string
	Pos   diag.Pos
}

// Task is one thing a person asks the model to do.
type Task struct {
	Name string
	Pos  diag.Pos
	// Ask is the first user message.
	Ask string
	// Persona, when set, is who a model plays to answer the follow-up
	// questions no scripted reply matches.
	Persona   string
	Replies   []*Reply
	Approvals []*ApprovalRule
	// MaxTurns bounds the model's replies (0: the file's, else the caller's).
	MaxTurns int
	Success  Success
	Skip     []string
}

// Reply is a scripted answer to a model's message that matches When.
type Reply struct {
	When  *regexp.Regexp
	Say   string
	Times int // how many times it answers; 0: every time
	Pos   diag.Pos
}

// ApprovalRule answers the approval questions whose text satisfies
// Question (any question without one).
type ApprovalRule struct {
	Question *scenario.TextCond
	Answer   string // accept, decline or cancel
	Times    int    // 0: every time
	Pos      diag.Pos
}

// Success is what must hold after a trial for it to count as a success.
type Success struct {
	Requests []*RequestCount
	// Answer is a condition on the model's final answer.
	Answer *scenario.TextCond
}

// RequestCount is a request the backend must have received: at least
// once, or exactly Count times when HasCount (0: never).
type RequestCount struct {
	Match    *scenario.RequestMatch
	Count    int
	HasCount bool
	Pos      diag.Pos
}
