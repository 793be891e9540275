package model

import (
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tailormcp/tailor/internal/generate/ir"
)

// Some values are settled by the spec itself, not by the model: a
// parameter that carries the same secret as one of the operation's
// security schemes, and a required parameter that allows exactly one
// value. The model is never asked for them.

// pathParams makes the declared parameters agree with the path template,
// so that every placeholder has exactly one path parameter: a placeholder
// declared in another location (a query parameter of the same name) is
// taken as the path parameter, one not declared at all becomes a string
// argument, and a path parameter the template does not have is left out.
// Each repair is a warning; the spec's objects are never changed.
func (b *builder) pathParams(o operation, params []*openapi3.Parameter, ptr string) []*openapi3.Parameter {
	pos := position(o.op.Origin, b.path)
	holes := map[string]bool{}
	for _, name := range ir.Placeholders(o.path) {
		holes[name] = true
	}
	declared := map[string]bool{}
	var out []*openapi3.Parameter
	for _, p := range params {
		if strings.EqualFold(p.In, "path") {
			if !holes[p.Name] {
				b.diags.Warnf(pos, ptr, "path parameter %q is not in the path template %q; left out (it would be an argument that changes nothing)", p.Name, o.path)
				continue
			}
			declared[p.Name] = true
		}
		out = append(out, p)
	}
	for _, name := range ir.Placeholders(o.path) {
		if declared[name] {
			continue
		}
		declared[name] = true
		moved := false
		for i, p := range out {
			if p.Name == name && !strings.EqualFold(p.In, "path") {
				cp := *p
				cp.In, cp.Required, cp.Style, cp.Explode = "path", true, "", nil
				out[i] = &cp
				b.diags.Warnf(pos, ptr, "path template %q has placeholder %q, which the spec declares as a %s parameter; sent in the path", o.path, name, p.In)
				moved = true
				break
			}
		}
		if !moved {
			out = append(out, &openapi3.Parameter{Name: name, In: "path", Required: true,
				Description: "(The API description does not declare this path parameter.)",
				Schema:      openapi3.NewStringSchema().NewRef()})
			b.diags.Warnf(pos, ptr, "path template %q has placeholder %q, which the spec does not declare; added as a string argument", o.path, name)
		}
	}
	return out
}

// credentialScheme names the security scheme whose secret a parameter
// carries, or "". same is true when the scheme itself sends the value in
// the parameter's place (an apiKey scheme of the same name and location):
// the parameter is then left out altogether. Otherwise the parameter
// takes the scheme's secret, and the scheme is not applied again:
//
//   - an apiKey scheme of the same name elsewhere (a `token` form field
//     beside a `token` query key);
//   - a bearer (http bearer, OAuth2, OpenID Connect) scheme and a
//     non-path parameter named token or access_token that the spec
//     describes as for authentication.
func (b *builder) credentialScheme(name string, loc ir.Location, description string, security [][]string) (scheme string, same bool) {
	if loc == ir.InPath {
		return "", false // a path segment is a resource's name, never a secret
	}
	applies := map[string]bool{}
	for _, alt := range security {
		for _, n := range alt {
			applies[n] = true
		}
	}
	for _, s := range b.schemes {
		if !applies[s.Name] || s.Kind != ir.APIKeyScheme || !strings.EqualFold(s.ParamName, name) {
			continue
		}
		return s.Name, s.In == loc
	}
	lower := strings.ToLower(name)
	if (lower == "token" || lower == "access_token") && authText.MatchString(description) {
		for _, s := range b.schemes {
			if applies[s.Name] && s.Kind == ir.BearerScheme {
				return s.Name, false
			}
		}
	}
	return "", false
}

// authText is how a spec says a token parameter authenticates the call
// ("Authentication token bearing required scopes"), as opposed to one that
// names a token as data ("Only returns the authorization with this token").
var authText = regexp.MustCompile(`(?i)\bauthenticat`)

// singleValue returns the one value a schema allows (an enum of one
// non-null value, or a const).
func singleValue(ref *openapi3.SchemaRef) (any, bool) {
	if ref == nil || ref.Value == nil {
		return nil, false
	}
	s := ref.Value
	if s.Const != nil {
		return s.Const, true
	}
	var vals []any
	for _, v := range s.Enum {
		if v != nil {
			vals = append(vals, v)
		}
	}
	if len(vals) == 1 {
		return vals[0], true
	}
	return nil, false
}
