package mcpkit

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Per-tool scopes: a tool whose Scopes the caller's verified token does
// not all hold is left out of tools/list, and a call to it is refused, as
// a tool result, before anything else happens (its arguments are not
// even validated). scopesAllow is the one predicate; scopeFilter applies
// it to both methods as a receiving middleware.
//
// The refusal is a tool result, not the HTTP 403 "insufficient_scope"
// step-up challenge of the MCP authorization spec: the model reads a
// result and can tell the person what to do, and the same holds over any
// transport. The HTTP 403 with that challenge is what a request gets when
// its token lacks a scope that every request needs (Config.Scopes).

// scopesAllow reports whether the caller holding token (nil: none was
// verified) may see and call t; reason says which scopes it lacks. With
// no token verifier configured there is nothing to check; with one, a
// request without a token holds no scope.
func (k *Runtime) scopesAllow(token *auth.TokenInfo, t *Tool) (reason string, ok bool) {
	if len(t.Scopes) == 0 || k.cfg.Verifier == nil && token == nil {
		return "", true
	}
	var granted []string
	if token != nil {
		granted = token.Scopes
	}
	var missing []string
	for _, s := range t.Scopes {
		if !slices.Contains(granted, s) {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return "", true
	}
	return strings.Join(missing, " "), false
}

// scopeFilter is the receiving middleware that applies scopesAllow to
// tools/list (the tools left out) and tools/call (refused).
func (k *Runtime) scopeFilter(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		var token *auth.TokenInfo
		if extra := req.GetExtra(); extra != nil {
			token = extra.TokenInfo
		}
		switch method {
		case "tools/call":
			call, ok := req.(*mcp.CallToolRequest)
			if !ok || call.Params == nil {
				break
			}
			t := k.tools[call.Params.Name]
			if t == nil {
				break
			}
			if missing, ok := k.scopesAllow(token, t); !ok {
				return k.scopeRefusal(ctx, call, t, missing), nil
			}
		case "tools/list":
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				kept := list.Tools[:0:0]
				for _, def := range list.Tools {
					if t := k.tools[def.Name]; t != nil {
						if _, ok := k.scopesAllow(token, t); !ok {
							continue
						}
					}
					kept = append(kept, def)
				}
				list.Tools = kept
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// scopeRefusal is the result of a call the token lacks scopes for,
// audited like every call.
func (k *Runtime) scopeRefusal(ctx context.Context, req *mcp.CallToolRequest, t *Tool, missing string) *mcp.CallToolResult {
	start := time.Now()
	c, _ := k.newCall(ctx, req, t)
	c.logger().Warn("call refused: the token lacks scopes the tool needs", "tool", t.Name, "missing_scopes", missing)
	res := c.finish(errorResult(c.say("scope_missing", M{"scopes": missing})))
	k.writeAudit(c, res, start)
	return res
}

// bearerGate is the HTTP endpoint's token gate of this server.
func (k *Runtime) bearerGate() *bearerGate {
	g := &bearerGate{realm: k.api.Name, verifier: k.cfg.Verifier, oauth: k.cfg.OAuth, scopes: k.cfg.Scopes, title: k.api.Title}
	var all [][]string
	for _, t := range k.tools {
		all = append(all, t.Scopes)
	}
	g.supported = slices.Sorted(slices.Values(unionOf(append(all, k.cfg.Scopes)...)))
	return g
}

func unionOf(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}
