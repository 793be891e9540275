package mcpkit

import (
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/tailormcp/tailor/mcpkit/internal/bearer"
)

// Per-tool scopes: a tool whose Scopes the caller's verified token does
// not all hold is left out of tools/list, and a call to it is refused, as
// a tool result, before anything else happens (its arguments are not
// even validated). scopesAllow is the one predicate; scopeRule makes it a
// rule of every request's selection (selection.go), so the listing, the
// refused call, the dynamic meta-tools and the quote/confirm pairing all
// treat it as they treat --toolsets or --read-only.
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

// scopeRule is the selection's rule for scopes: nil (nothing to check)
// unless a token verifier is configured or the request carries a token.
func (k *Runtime) scopeRule(r RequestInfo) func(*Tool) *Refusal {
	if k.cfg.Verifier == nil && r.Token == nil {
		return nil
	}
	return func(t *Tool) *Refusal {
		if missing, ok := k.scopesAllow(r.Token, t); !ok {
			return &Refusal{Message: "scope_missing", Fields: M{"scopes": missing}}
		}
		return nil
	}
}

// bearerGate is the HTTP endpoint's token gate of this server.
func (k *Runtime) bearerGate() *bearer.Gate {
	g := &bearer.Gate{Realm: k.api.Name, Verifier: k.cfg.Verifier, OAuth: k.cfg.OAuth, Scopes: k.cfg.Scopes, Title: k.api.Title}
	var all [][]string
	for _, e := range k.tools {
		all = append(all, e.tool.Scopes)
	}
	g.Supported = slices.Sorted(slices.Values(unionOf(append(all, k.cfg.Scopes)...)))
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
