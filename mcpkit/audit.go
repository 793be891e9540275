package mcpkit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/jsonv"
	"github.com/tailormcp/tailor/mcpkit/quotestore"
)

// auditRecord is one line of the audit log: enough to tell, later, a wrong
// choice by the model (args) from a wrong computation by the system (the
// quote's values) and to find what was created.
type auditRecord struct {
	Time    string `json:"time"`
	Msg     string `json:"msg"`
	Tool    string `json:"tool"`
	Session string `json:"session,omitempty"`
	// RequestID names this call in the server's log lines and in the
	// backend's (X-Request-Id).
	RequestID string         `json:"request_id,omitempty"`
	Args      any            `json:"args"`
	ArgsSize  int            `json:"args_bytes,omitempty"` // of arguments refused undecoded
	Identity  map[string]any `json:"identity,omitempty"`
	Quote     *auditQuote    `json:"quote,omitempty"`
	Approval  string         `json:"approval,omitempty"`
	// ArgsHash is the hash an approval is bound to (approve_any.go), on
	// the records of calls that asked or answered.
	ArgsHash string `json:"args_sha256,omitempty"`
	// Caller is a fingerprint of the caller (identity, else session) on
	// those records: who was asked, without the identity's values.
	Caller  string      `json:"caller,omitempty"`
	Ignored string      `json:"approval_ignored,omitempty"`
	Steps   []auditStep `json:"calls,omitempty"`
	Created []string    `json:"created,omitempty"`
	Failed  string      `json:"failed_step,omitempty"`
	Outcome string      `json:"outcome"`
	// Interrupted says why the call was cut short (a shutdown).
	Interrupted string `json:"interrupted,omitempty"`
	Message     string `json:"message,omitempty"`
	// Messages are the catalog ids of the built-in messages the call
	// rendered, in order (what went wrong is the first failure among
	// them); Rule is the index of the tool's error rule whose text the
	// result is. They let a reader of the log classify results without
	// parsing their text (tailor report).
	Messages []string `json:"messages,omitempty"`
	Rule     *int     `json:"error_rule,omitempty"`
	// Invalid names the arguments the input schema refused.
	Invalid []string `json:"invalid_args,omitempty"`
	Millis  int64    `json:"ms"`
}

type auditQuote struct {
	ID      string `json:"id"`
	Tool    string `json:"tool"`
	Values  any    `json:"values"`
	Expires string `json:"expires"`
}

type auditStep struct {
	Step   string `json:"step,omitempty"`
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
	// Outcome of a step's call: done, unknown, refused, not sent.
	Outcome string `json:"outcome,omitempty"`
}

// audit collects what a call did, for the record written when it ends.
type audit struct {
	Quote    *quotestore.Quote
	Approval string
	// Ignored says why an approval answer was not taken as one.
	Ignored string
	Steps   []auditStep
	Created []string
	Failed  string
	// Invalid names the arguments that failed validation.
	Invalid []string
	// Said lists the catalog ids of the messages rendered, in order.
	Said []string
	// Rule is one more than the index of the error rule whose text the
	// result is (0: none).
	Rule int
	// Consumed: the call's run used its quote up (for telemetry).
	Consumed bool
}

// said records a built-in message rendered for this call (see auditRecord).
func (a *audit) said(id string) {
	if n := len(a.Said); n > 0 && a.Said[n-1] == id || n >= auditList {
		return
	}
	a.Said = append(a.Said, id)
}

type auditWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Bounds of an audit record: a call's record stays one readable line
// whatever the model sent or the API answered.
const (
	auditString = 256     // characters of one string value
	auditList   = 20      // elements of one list
	auditDepth  = 8       // levels of nesting
	auditLine   = 8 << 10 // bytes of the whole line
)

// callEnd is what a call's audit record takes from the moment its handler
// returned: the record may be written later (afterReply).
type callEnd struct {
	elapsed              time.Duration
	outcome, interrupted string
}

// ended notes how long the call took and how it ended, for its record.
func (c *Call) ended(res *mcp.CallToolResult, start time.Time) callEnd {
	e := callEnd{elapsed: time.Since(start)}
	e.outcome, e.interrupted = c.outcome(res)
	return e
}

// writeAudit writes the call's audit record, with secrets redacted and
// values summarised (long strings and lists cut, deep values elided).
func (k *Runtime) writeAudit(c *Call, res *mcp.CallToolResult, start time.Time, ended callEnd) {
	rec := auditRecord{
		Time: start.UTC().Format(time.RFC3339Nano), Msg: "audit", Tool: c.tool.Name, Session: c.sessionID(), RequestID: c.requestID, Args: summarize(anyMap(c.args), 0),
		Identity: c.contextValues(), Approval: c.audit.Approval, Ignored: c.audit.Ignored, Steps: c.audit.Steps,
		Created: c.audit.Created, Failed: c.audit.Failed, Messages: c.audit.Said, Invalid: c.audit.Invalid, Millis: ended.elapsed.Milliseconds(),
		Outcome: ended.outcome, Interrupted: ended.interrupted,
	}
	if c.audit.Approval != "" && c.args != nil {
		rec.ArgsHash = c.argsHash()
		if c.req != nil {
			_, rec.Caller = c.owner()
		}
	}
	if c.audit.Rule > 0 {
		rule := c.audit.Rule - 1
		rec.Rule = &rule
	}
	if c.args == nil {
		// Refused before decoding (too large, too deep, not an object).
		rec.Args, rec.ArgsSize = truncate(c.argsPreview, auditString), c.rawArgs
	}
	if q := c.audit.Quote; q != nil {
		rec.Quote = &auditQuote{ID: q.ID, Tool: q.Tool, Values: summarize(q.Body, 0), Expires: q.Expires.UTC().Format(time.RFC3339)}
	}
	if res != nil && len(res.InputRequests) == 0 && res.IsError {
		rec.Message = truncate(textOf(res), 500)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	if len(b) > auditLine {
		// Still too long (many calls, many wide values): keep the record's
		// facts, drop the bulk.
		rec.Args = fmt.Sprintf("(%d bytes, not shown)", len(jsonv.Text(c.args)))
		if rec.Quote != nil {
			rec.Quote.Values = "(not shown)"
		}
		if len(rec.Steps) > auditList {
			rec.Steps = append(rec.Steps[:auditList:auditList], auditStep{Step: fmt.Sprintf("and %d more", len(c.audit.Steps)-auditList)})
		}
		if len(rec.Created) > auditList {
			rec.Created = append(rec.Created[:auditList:auditList], fmt.Sprintf("and %d more", len(c.audit.Created)-auditList))
		}
		if b, err = json.Marshal(rec); err != nil {
			return
		}
	}
	line := append(escapeInvisible(c.redactor().Bytes(b)), '\n')
	k.auditOut.mu.Lock()
	defer k.auditOut.mu.Unlock()
	k.auditOut.w.Write(line)
}

// outcome is how the call ended, as its audit record (and its span) say:
// ok, error, awaiting approval, no result, or unknown (a write interrupted
// by a shutdown), and why it was interrupted, if it was.
func (c *Call) outcome(res *mcp.CallToolResult) (outcome, interrupted string) {
	switch {
	case res == nil:
		outcome = "no result"
	case len(res.InputRequests) > 0:
		outcome = "awaiting approval"
	case res.IsError:
		outcome = "error"
	default:
		outcome = "ok"
	}
	if errors.Is(context.Cause(c.ctx), errShuttingDown) {
		interrupted = errShuttingDown.Error()
		if outcome == "error" && !c.tool.ReadOnly {
			outcome = "unknown"
		}
	}
	return outcome, interrupted
}

// sessionID names the call's MCP session in the audit log, so that a reader
// can follow one conversation: a hash of go-sdk's session id (the id itself
// would let whoever reads the log use the session), or, over stdio, where
// a process serves one session, an id drawn when it starts. Stateless HTTP
// has no session: "".
func (c *Call) sessionID() string {
	if c.req != nil && c.req.Session != nil {
		if id := c.req.Session.ID(); id != "" {
			sum := sha256.Sum256([]byte("audit session\x00" + id))
			return hex.EncodeToString(sum[:6])
		}
	}
	return c.kit.stdioSession
}

// truncateList bounds a list of names for the audit record.
func truncateList(l []string) []string {
	if len(l) > auditList {
		l = l[:auditList]
	}
	for i, s := range l {
		l[i] = truncate(s, auditString)
	}
	return l
}

// summarize copies v for the audit log: strings cut at auditString
// characters, lists at auditList elements, nesting at auditDepth.
func summarize(v any, depth int) any {
	switch x := v.(type) {
	case string:
		if len(x) > auditString {
			return fmt.Sprintf("%s… (%d bytes)", truncate(x, auditString), len(x))
		}
		return x
	case map[string]any:
		if depth >= auditDepth {
			return fmt.Sprintf("(object of %d fields)", len(x))
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[truncate(k, auditString)] = summarize(e, depth+1)
		}
		return out
	case []any:
		if depth >= auditDepth {
			return fmt.Sprintf("(list of %d)", len(x))
		}
		n := min(len(x), auditList)
		out := make([]any, 0, n+1)
		for _, e := range x[:n] {
			out = append(out, summarize(e, depth+1))
		}
		if len(x) > n {
			out = append(out, fmt.Sprintf("and %d more", len(x)-n))
		}
		return out
	}
	return v
}
