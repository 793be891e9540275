package mcpkit

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The identity policy is written down in the package doc (doc.go); this
// file is where it is enforced, and the only place.

// contextSource is where a context value came from, for the audit log.
type contextSource string

const (
	fromClaim  contextSource = "claim"
	fromHeader contextSource = "header"
	fromEnv    contextSource = "env"
)

// lookupContext resolves a context value by the policy above. problem is
// set when a source holds a value that must not be used.
func (c *Call) lookupContext(cv *ContextValue) (v string, src contextSource, problem string) {
	if cv.Claim != "" && c.token != nil {
		raw, present := claimValue(c.token, cv.Claim)
		if present {
			s, ok := raw.(string)
			if !ok {
				return "", "", c.say("claim_not_text", M{"claim": cv.Claim, "kind": jsonKind(raw), "name": cv.Name})
			}
			if s != "" {
				return s, fromClaim, ""
			}
		}
	}
	if c.verified() && !c.kit.cfg.AllowUnverifiedContext {
		return "", "", ""
	}
	if cv.Header != "" && c.header != nil {
		if v := c.header.Get(cv.Header); v != "" {
			return v, fromHeader, ""
		}
	}
	if cv.Env != "" {
		if v := c.kit.cfg.Getenv(cv.Env); v != "" {
			return v, fromEnv, ""
		}
	}
	return "", "", ""
}

// verified reports whether the caller's identity comes from verified
// tokens: a verifier is configured, or this request carries a token a
// verifier accepted (a server embedding mcpkit behind its own).
func (c *Call) verified() bool { return c.kit.cfg.Verifier != nil || c.token != nil }

// claimValue reads a claim of a verified token; "sub" falls back to the
// token's user id.
func claimValue(t *auth.TokenInfo, name string) (any, bool) {
	if v, ok := t.Extra[name]; ok && v != nil {
		return v, true
	}
	if name == "sub" && t.UserID != "" {
		return t.UserID, true
	}
	return nil, false
}

// jsonKind names a decoded JSON value's type for a message.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case nil:
		return "null"
	}
	return "a number"
}

// contextSources lists, for a message, the sources that count for cv in
// this call under the policy.
func (c *Call) contextSources(cv *ContextValue) []string {
	var from []string
	if cv.Claim != "" && c.token != nil {
		from = append(from, "the "+cv.Claim+" claim of the caller's verified token")
	}
	if c.verified() && !c.kit.cfg.AllowUnverifiedContext {
		return from
	}
	if cv.Header != "" && c.header != nil {
		from = append(from, "the "+cv.Header+" header of the MCP request")
	}
	if cv.Env != "" {
		from = append(from, "the server's "+cv.Env+" setting")
	}
	return from
}

// missingContext is the result for a call whose caller context lacks a
// value, or holds one that must not be used.
func (c *Call) missingContext() *mcp.CallToolResult {
	cv := c.missing
	if c.contextProblem != "" {
		c.logger().Warn("call refused: caller context value unusable", "tool", c.tool.Name, "context", cv.Name, "problem", c.contextProblem)
		return errorResult(c.say("identity_unusable", M{"problem": c.contextProblem}))
	}
	c.logger().Warn("call refused: caller context value missing", "tool", c.tool.Name, "context", cv.Name)
	return errorResult(c.say("context_missing", M{"name": cv.Name, "sources": strings.Join(c.contextSources(cv), " or ")}))
}

// identified reports whether the call resolves every context value the
// API declares, and the first problem found.
func (c *Call) identified() (bool, string) {
	for i := range c.kit.api.Context {
		if _, src, problem := c.lookupContext(&c.kit.api.Context[i]); problem != "" || src == "" {
			return false, problem
		}
	}
	return true, ""
}
