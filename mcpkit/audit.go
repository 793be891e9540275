package mcpkit

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// auditRecord is one line of the audit log: enough to tell, later, a wrong
// choice by the model (args) from a wrong computation by the system (the
// quote's values) and to find what was created.
type auditRecord struct {
	Time     string         `json:"time"`
	Msg      string         `json:"msg"`
	Tool     string         `json:"tool"`
	Args     map[string]any `json:"args"`
	Identity map[string]any `json:"identity,omitempty"`
	Quote    *auditQuote    `json:"quote,omitempty"`
	Approval string         `json:"approval,omitempty"`
	Ignored  string         `json:"approval_ignored,omitempty"`
	Steps    []auditStep    `json:"calls,omitempty"`
	Created  []string       `json:"created,omitempty"`
	Failed   string         `json:"failed_step,omitempty"`
	Outcome  string         `json:"outcome"`
	Message  string         `json:"message,omitempty"`
	Millis   int64          `json:"ms"`
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
	Quote    *Quote
	Approval string
	// Ignored says why an approval answer was not taken as one.
	Ignored string
	Steps   []auditStep
	Created []string
	Failed  string
}

type auditWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// writeAudit writes the call's audit record, with secrets redacted.
func (k *Kit) writeAudit(c *Call, res *mcp.CallToolResult, start time.Time) {
	rec := auditRecord{
		Time: start.UTC().Format(time.RFC3339Nano), Msg: "audit", Tool: c.tool.Name, Args: c.args,
		Identity: c.contextValues(), Approval: c.audit.Approval, Ignored: c.audit.Ignored, Steps: c.audit.Steps,
		Created: c.audit.Created, Failed: c.audit.Failed, Outcome: "ok", Millis: time.Since(start).Milliseconds(),
	}
	if q := c.audit.Quote; q != nil {
		rec.Quote = &auditQuote{ID: q.ID, Tool: q.Tool, Values: q.Body, Expires: q.Expires.UTC().Format(time.RFC3339)}
	}
	switch {
	case res == nil:
		rec.Outcome = "no result"
	case len(res.InputRequests) > 0:
		rec.Outcome = "awaiting approval"
	case res.IsError:
		rec.Outcome = "error"
		rec.Message = truncate(textOf(res), 500)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	line := k.redact(string(b)) + "\n"
	k.auditOut.mu.Lock()
	defer k.auditOut.mu.Unlock()
	io.WriteString(k.auditOut.w, line)
}
