package curate

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/theory/jsonpath"

	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/generate/tmplcheck"
)

// errorRules turns `errors:` into IR rules, checking each template against
// the tool's arguments (the error body's fields are not checked: specs
// rarely describe them completely).
func (c *curator) errorRules(t *ir.Tool, ot *overlay.Tool) {
	for i, r := range ot.Errors {
		where := fmt.Sprintf("tool `%s`, errors[%d]", ot.Name, i)
		rule := ir.ErrorRule{Status: r.Status, Text: r.Text.S}
		for _, s := range r.Status {
			if n, err := strconv.Atoi(s); err == nil && n < 300 {
				c.errorf(r.Pos, "%s: status %d is a success; error rules match failures (3XX to 5XX)", where, n)
			}
		}
		if len(r.Body) > 0 {
			rule.Body = map[string]json.RawMessage{}
			for k, v := range r.Body {
				if len(k) > 0 && k[0] == '$' {
					if _, err := jsonpath.Parse(k); err != nil {
						c.errorf(r.Pos, "%s: when.body key %q is not a JSONPath expression: %v", where, k, err)
						continue
					}
				}
				rule.Body[k] = encodeValue(v)
			}
		}
		scope := tmplcheck.Scope{"args": tmplcheck.Names("an argument of this tool", argNames(t)), "body": {}, "status": {}}
		if len(t.Steps) > 0 {
			scope["step"] = tmplcheck.Sym{}
		}
		c.checkTemplate(&r.Text, where+" text", scope)
		t.Errors = append(t.Errors, rule)
	}
}
