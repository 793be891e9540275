package curate

import (
	"fmt"
	"net/http"

	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/generate/tmplcheck"
)

// firstReads curates a one-operation tool's `reads:`: read-only steps it
// sends before its approval question or before holding a quote, so that
// the question, the quote's text and its confirm tool's question can show
// what will be changed. Each is a GET or HEAD, bound like a composed
// tool's step (to the tool's arguments of the same name, or explicitly).
// It returns their symbols for the templates (nil without reads).
func (c *curator) firstReads(t *ir.Tool, ot *overlay.Tool) map[string]tmplcheck.Sym {
	if len(ot.Reads) == 0 {
		return nil
	}
	where := fmt.Sprintf("tool `%s`", ot.Name)
	in, err := decodeSchema(t.InputSchema)
	if err != nil {
		return nil
	}
	scope := c.stepScope(t, nil)
	syms := map[string]tmplcheck.Sym{}
	scope["steps"] = tmplcheck.Map("a read before this one", syms)
	for _, st := range ot.Reads {
		raw := c.operation(st.Operation, st.OperationPos)
		if raw == nil || st.Name == "" {
			continue
		}
		stepWhere := fmt.Sprintf("%s, read `%s`", where, st.Name)
		if m := raw.Call.Method; m != http.MethodGet && m != http.MethodHead {
			c.errorf(st.OperationPos, "%s: %s changes data; reads run before the person is asked, so each must be a GET or HEAD", stepWhere, describeOp(raw))
			continue
		}
		if st.ForEach != nil || st.IdempotencyKey {
			c.errorf(st.Pos, "%s: a read runs once, before anything is asked; for_each and idempotency_key belong to a composed tool's steps", stepWhere)
			continue
		}
		step := &ir.Step{Name: st.Name, Call: copyTool(raw).Call}
		c.bindStep(step, raw, st, scope, stepWhere, in.props, nil)
		t.Reads = append(t.Reads, step)
		body := tmplcheck.Schema(raw.OutputSchema, true, raw.Call.Result.Wrap)
		syms[st.Name] = tmplcheck.Map(fmt.Sprintf("a field of read `%s` (body, status)", st.Name), map[string]tmplcheck.Sym{"body": body, "status": {}, "items": {}})
	}
	if c.reads == nil {
		c.reads = map[string]map[string]tmplcheck.Sym{}
	}
	c.reads[t.Name] = syms
	return syms
}
