package overlay

import (
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/yamlwalk"
)

// LintDisable switches one `tailor lint` rule off for a tool. Which rule
// ids exist is checked by lint, which knows them.
type LintDisable struct {
	Rule   string
	Reason string
	Pos    diag.Pos
}

// lint reads a tool's `lint: {disable: [{rule: ID, reason: "..."}]}`.
func (d *decoder) lint(n *yaml.Node) []*LintDisable {
	var out []*LintDisable
	d.Fields(n, "lint", map[string]func(k, v *yaml.Node){
		"disable": func(k, v *yaml.Node) {
			v = yamlwalk.Resolve(v)
			if v.Kind != yaml.SequenceNode {
				d.Errorf(v, "lint.disable must be a list such as `- {rule: identity-param, reason: \"staff look up any customer\"}`, not %s", diag.Describe(v))
				return
			}
			for _, e := range v.Content {
				l := &LintDisable{Pos: d.Pos(e)}
				d.Fields(e, "lint.disable entry", map[string]func(k, v *yaml.Node){
					"rule": func(k, v *yaml.Node) {
						l.Rule, _ = d.Str(v, "rule")
						l.Pos = d.Pos(v)
					},
					"reason": func(k, v *yaml.Node) { l.Reason, _ = d.Str(v, "reason") },
				})
				if yamlwalk.Resolve(e).Kind != yaml.MappingNode {
					continue
				}
				if l.Rule == "" {
					d.Errorf(e, "lint.disable entry needs `rule:`, the id of the lint rule to switch off")
				}
				if strings.TrimSpace(l.Reason) == "" {
					d.Errorf(e, "lint.disable entry needs `reason:`: say why the rule does not apply to this tool, for the next reader")
				}
				out = append(out, l)
			}
		},
	})
	return out
}

// toolSetLint reads the top-level `lint: {budget: TOKENS}`.
func (d *decoder) toolSetLint(n *yaml.Node) Lint {
	var l Lint
	d.Fields(n, "lint", map[string]func(k, v *yaml.Node){
		"budget": func(k, v *yaml.Node) {
			if b := d.integer(v, "lint.budget"); b != nil {
				if *b == 0 {
					d.Errorf(v, "lint.budget must be a number of tokens above zero (leave it out for no budget of your own)")
					return
				}
				l.Budget, l.BudgetPos = *b, d.Pos(v)
			}
		},
	})
	return l
}
