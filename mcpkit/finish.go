package mcpkit

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxShownBytes caps what any one result shows, whatever MaxResultBytes or
// a tool's MaxBytes say: go-sdk's client reads at most 16 MiB per message
// and a result carries its JSON twice (text and structuredContent), escaped.
const maxShownBytes = 1 << 20

// maxImageBytes caps an image result (base64 makes it a third larger).
const maxImageBytes = 4 << 20

// resultLimit is how many bytes of JSON or text a result shows the model.
func (c *Call) resultLimit() int {
	limit := c.kit.cfg.MaxResultBytes
	if c.tool.MaxBytes > 0 {
		limit = c.tool.MaxBytes
	}
	return min(limit, maxShownBytes)
}

// finish is the last step of every call: whatever the handler returned,
// the client receives it with every secret redacted, no text longer than
// the result limit (plus room for the messages around it), and
// structuredContent that fits the tool's output schema. The fitting comes
// last: redaction can put a string where the schema says number.
func (c *Call) finish(res *mcp.CallToolResult) *mcp.CallToolResult {
	if res == nil {
		return nil
	}
	c.redactor().Result(res)
	limit := max(c.resultLimit(), 4<<10) + 4<<10
	for i, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok && len(tc.Text) > limit {
			res.Content[i] = &mcp.TextContent{Text: truncate(tc.Text, limit) + fmt.Sprintf(" [cut: %d more bytes]", len(tc.Text)-limit)}
		}
	}
	c.kit.conform(c.tool, res, c.redactor())
	return res
}
