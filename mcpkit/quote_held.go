package mcpkit

import (
	"bytes"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/jsonv"
)

// Quotes computed by the server, for APIs without a preview operation: a
// quote tool whose QuoteSpec holds (`quote: {hold: true}`) takes the
// arguments of the write it stands for, checked against that write's
// schema (its input schema is the write's) and by building the write's
// request, sends nothing, and stores the arguments as the quote: the same
// short id, expiry and "nothing has been done yet" as a previewed quote.
// Its confirm tool's step of the same operation binds every parameter
// from .quote.args, so it carries out exactly what was quoted, once, for
// the same caller, with everything a confirm tool does (approval,
// resumption, idempotency keys, a truthful outcome).

// Hold stores the call's arguments as a quote, once r (the write it
// stands for) can be built, and says what was held and that nothing has
// been done.
func (c *Call) Hold(r *Request) *mcp.CallToolResult {
	t := c.tool
	if c.missing != nil {
		return c.missingContext()
	}
	if r.err != nil {
		return errorResult(c.say("request_not_built", M{"problem": r.err.Error()}))
	}
	body := map[string]any{"request": r.Method + " " + r.template}
	if len(t.Reads) > 0 {
		// What will be changed, read now: the quote's text shows it, and
		// the quote keeps it for the confirm tool's question.
		s := c.newScope()
		if res := c.readFirst(s); res != nil {
			return res
		}
		read := map[string]any{}
		for name, v := range s.data["steps"].(map[string]any) {
			m := v.(map[string]any)
			read[name] = map[string]any{"body": m["body"], "status": m["status"]}
		}
		body["steps"] = read
	}
	quote, err := c.saveQuote(body)
	if err != nil {
		return c.quoteNotSaved(err)
	}
	var content []mcp.Content
	if t.Text != "" {
		tm, err := cachedTemplate(t.Text)
		var buf bytes.Buffer
		if err == nil {
			err = executeTemplate(tm, &buf, map[string]any{"args": c.args, "body": body, "quote": quote, "context": c.contextValues(), "steps": body["steps"]})
		}
		if err != nil {
			c.logger().Error("result template failed", "tool", t.Name, "error", c.redact(err.Error()))
			content = append(content, &mcp.TextContent{Text: c.say("result_text_failed", M{"error": templateError(err)})})
		} else if s := strings.TrimSpace(buf.String()); s != "" {
			content = append(content, &mcp.TextContent{Text: s})
		}
	}
	content = append(content, &mcp.TextContent{Text: c.say("quote_ready", M{"id": quote["id"], "expires_at": quote["expires_at"], "confirm_tool": t.Quote.ConfirmTool})})
	sc := map[string]any{"quote_id": quote["id"], "quote_expires_at": quote["expires_at"], "args": c.args}
	content = append(content, &mcp.TextContent{Text: jsonv.Text(sc)})
	return &mcp.CallToolResult{Content: content, StructuredContent: sc}
}
