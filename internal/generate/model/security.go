package model

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-openapi/jsonpointer"

	"github.com/tailormcp/tailor/internal/generate/ir"
)

// securitySchemes maps the spec's securitySchemes to credentials read from
// the environment. Schemes tailor cannot apply are warned about and left out.
func (b *builder) securitySchemes() []ir.SecurityScheme {
	if b.doc.Components == nil {
		return nil
	}
	names := make([]string, 0, len(b.doc.Components.SecuritySchemes))
	for n := range b.doc.Components.SecuritySchemes {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []ir.SecurityScheme
	for _, n := range names {
		ref := b.doc.Components.SecuritySchemes[n]
		if ref == nil || ref.Value == nil {
			continue
		}
		s := ref.Value
		env := b.envPrefix + "_" + strings.ToUpper(SnakeCase(n))
		ptr := "#/components/securitySchemes/" + jsonpointer.Escape(n)
		pos := position(s.Origin, b.path)
		switch strings.ToLower(s.Type) {
		case "http":
			switch strings.ToLower(s.Scheme) {
			case "bearer":
				out = append(out, ir.SecurityScheme{Name: n, Kind: ir.BearerScheme, Env: withSuffix(env, "_TOKEN")})
			case "basic":
				out = append(out, ir.SecurityScheme{Name: n, Kind: ir.BasicScheme, EnvUser: env + "_USERNAME", Env: env + "_PASSWORD"})
			default:
				b.diags.Warnf(pos, ptr, "security scheme %q uses HTTP scheme %q, which tailor cannot apply; calls go out without it", n, s.Scheme)
			}
		case "apikey":
			in := ir.Location(strings.ToLower(s.In))
			if in != ir.InHeader && in != ir.InQuery && in != ir.InCookie {
				b.diags.Warnf(pos, ptr, "security scheme %q puts its key in %q; tailor supports header, query and cookie", n, s.In)
				continue
			}
			out = append(out, ir.SecurityScheme{Name: n, Kind: ir.APIKeyScheme, In: in, ParamName: s.Name, Env: withSuffix(env, "_KEY")})
		case "oauth2", "openidconnect":
			// The server does not run OAuth flows itself: it is given a token.
			out = append(out, ir.SecurityScheme{Name: n, Kind: ir.BearerScheme, Env: withSuffix(env, "_TOKEN")})
		default:
			b.diags.Warnf(pos, ptr, "security scheme %q has type %q, which tailor cannot apply", n, s.Type)
		}
	}
	return out
}

// declaredScopes are the scopes every OAuth2 flow of the spec declares; nil
// when an OpenID Connect scheme leaves them to the identity provider.
func (b *builder) declaredScopes() []string {
	if b.doc.Components == nil {
		return nil
	}
	var lists [][]string
	for _, ref := range b.doc.Components.SecuritySchemes {
		if ref == nil || ref.Value == nil {
			continue
		}
		switch strings.ToLower(ref.Value.Type) {
		case "openidconnect":
			return nil
		case "oauth2":
			if f := ref.Value.Flows; f != nil {
				for _, flow := range []*openapi3.OAuthFlow{f.Implicit, f.Password, f.ClientCredentials, f.AuthorizationCode} {
					if flow != nil {
						lists = append(lists, slices.Collect(maps.Keys(flow.Scopes)))
					}
				}
			}
		}
	}
	return ir.SortedSet(lists...)
}

func withSuffix(env, suffix string) string {
	if strings.HasSuffix(env, "_KEY") || strings.HasSuffix(env, "_TOKEN") {
		return env
	}
	return env + suffix
}

// requirements lists the operation's security alternatives, keeping only
// schemes tailor can apply.
func (b *builder) requirements(op *openapi3.Operation, known map[string]bool) [][]string {
	reqs := b.doc.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	var out [][]string
	for _, alt := range reqs {
		var names []string
		ok := true
		for n := range alt {
			if !known[n] {
				ok = false
				break
			}
			names = append(names, n)
		}
		if !ok {
			continue
		}
		sort.Strings(names)
		out = append(out, names)
	}
	return out
}

// scopes are the OAuth scopes of the operation's security requirement
// (else the document's): those its first alternative naming an OAuth2 or
// OpenID Connect scheme lists, sorted. An alternative is one way to be
// allowed; taking the first keeps a caller's check to one set, and the
// overlay's `scopes` says otherwise where that is wrong.
func (b *builder) scopes(op *openapi3.Operation) []string {
	reqs := b.doc.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	if b.doc.Components == nil {
		return nil
	}
	for _, alt := range reqs {
		var out []string
		oauth := false
		for name, scopes := range alt {
			ref := b.doc.Components.SecuritySchemes[name]
			if ref == nil || ref.Value == nil {
				continue
			}
			if t := strings.ToLower(ref.Value.Type); t == "oauth2" || t == "openidconnect" {
				oauth = true
				out = append(out, scopes...)
			}
		}
		if oauth {
			return ir.SortedSet(out)
		}
	}
	return nil
}
