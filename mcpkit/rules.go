package mcpkit

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theory/jsonpath"

	"github.com/tailormcp/tailor/internal/jsonv"
)

// ruleFor returns the result of the first error rule matching an HTTP
// failure, or nil.
func (c *Call) ruleFor(resp response) *mcp.CallToolResult {
	t := c.tool
	if len(t.Errors) == 0 {
		return nil
	}
	sh := t.shaper()
	if sh.err != nil {
		return nil
	}
	var body, plain any
	if v, ok := decodeJSON(resp.body); ok {
		body = v
		_ = json.Unmarshal(resp.body, &plain)
	}
	for i, r := range t.Errors {
		if !statusMatches(r.Status, resp.status) || !bodyMatches(r.Body, plain) {
			continue
		}
		var buf bytes.Buffer
		data := map[string]any{"args": c.args, "body": body, "status": resp.status}
		if c.step != "" {
			data["step"] = c.step
		}
		if err := executeTemplate(sh.rules[i], &buf, data); err != nil {
			// A rule whose template cannot render (the body lacks a field it
			// reads) falls through to the next rule and the defaults.
			c.logger().Warn("error rule template failed", "tool", t.Name, "rule", i, "error", c.redact(err.Error()))
			continue
		}
		c.audit.Rule = i + 1
		return errorResult(strings.TrimSpace(buf.String()))
	}
	return nil
}

func statusMatches(statuses []string, status int) bool {
	if len(statuses) == 0 {
		return true
	}
	s := strconv.Itoa(status)
	for _, want := range statuses {
		if want == s || strings.HasSuffix(want, "XX") && want[0] == s[0] {
			return true
		}
	}
	return false
}

// bodyMatches checks each condition: a top-level field, or a JSONPath
// expression's first value, equal to the given value.
func bodyMatches(conds map[string]any, body any) bool {
	for key, want := range conds {
		// As JSON would decode it: 42 and 42.0 are one number.
		var wantV any
		if b, err := json.Marshal(want); err != nil || json.Unmarshal(b, &wantV) != nil {
			return false
		}
		var got any
		found := false
		if strings.HasPrefix(key, "$") {
			p, err := jsonpath.Parse(key)
			if err != nil {
				return false
			}
			if nodes := p.Select(body); len(nodes) > 0 {
				got, found = nodes[0], true
			}
		} else if m, ok := body.(map[string]any); ok {
			got, found = m[key]
		}
		if !found || jsonv.Text(got) != jsonv.Text(wantV) {
			return false
		}
	}
	return true
}
