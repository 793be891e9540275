package curate

import (
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/generate/tmplcheck"
)

// checkTemplate checks a template of the overlay against what it sees
// (tmplcheck), each problem at its place in the overlay.
func (c *curator) checkTemplate(text *overlay.Text, where string, scope tmplcheck.Scope) {
	for _, p := range tmplcheck.Check(text.S, scope) {
		c.errorf(text.At(p.Offset), "%s: %s", where, p.Message)
	}
}

// resultScope is what a single-operation tool's result text sees.
func resultScope(t *ir.Tool) tmplcheck.Scope {
	s := tmplcheck.Scope{
		"args":   tmplcheck.Names("an argument of this tool", argNames(t)),
		"body":   tmplcheck.Schema(t.OutputSchema, true, t.Call.Result.Wrap),
		"status": {},
	}
	if t.Quote != nil {
		s["quote"] = tmplcheck.Map("a field of the quote", map[string]tmplcheck.Sym{"id": {}, "expires_at": {}})
	}
	return s
}

// argNames lists what .args holds: the properties of the tool's input
// schema, i.e. the model's arguments after curation.
func argNames(t *ir.Tool) map[string]bool {
	out := map[string]bool{}
	if in, err := decodeSchema(t.InputSchema); err == nil {
		for n := range in.props {
			out[n] = true
		}
	}
	return out
}
