package mcpkit

import "github.com/tailormcp/tailor/mcpkit/internal/redact"

// redactor is the call's redactor: the server's secrets and the
// credential of the caller's own Authorization header (forwarded to the
// backend with --pass-through-auth, and never to be shown either way).
func (c *Call) redactor() *redact.Redactor {
	if c.red != nil {
		return c.red
	}
	c.red = c.kit.redactor
	if c.header != nil {
		if h := c.header.Get("Authorization"); h != "" {
			c.red = c.kit.callers.For(c.kit.redactor, h)
		}
	}
	return c.red
}

// redact removes every secret the call knows of from s.
func (c *Call) redact(s string) string { return c.redactor().String(s) }
