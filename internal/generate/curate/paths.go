package curate

import (
	"strings"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/ir"
)

// CheckPaths makes sure every call of every tool can fill its path: a
// placeholder that no argument, fixed value or context value fills would
// make every call of the tool fail at run time, so it is an error here.
// (The model stage declares placeholders the spec forgot, and curate
// refuses to hide a required parameter without a source; this is the
// guarantee that nothing slipped between them.)
func CheckPaths(api *ir.API) error {
	l := &diag.List{}
	for _, t := range api.Tools {
		pos := diag.Pos{File: t.Origin.File, Line: t.Origin.Line, Col: t.Origin.Col}
		calls := []*ir.Call{t.Call}
		names := []string{""}
		for _, st := range t.Steps {
			calls = append(calls, st.Call)
			names = append(names, " (step "+st.Name+")")
		}
		for i, c := range calls {
			if c == nil {
				continue
			}
			if missing := c.Unfilled(); len(missing) > 0 {
				l.Errorf(pos, t.Origin.Pointer, "tool %q%s: nothing fills {%s} of %s %s (no argument, fixed value or context value); every call would fail",
					t.Name, names[i], strings.Join(missing, "}, {"), c.Method, c.Path)
			}
		}
	}
	return l.Err()
}
