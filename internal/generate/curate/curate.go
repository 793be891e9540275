// Package curate is the pipeline stage between the raw tool model and
// rendering: it rewrites the IR according to the user's overlay — which
// operations become tools, under which names, with which descriptions,
// which parameters the model fills and which come from fixed values or the
// caller's context, and how results and errors read. With no overlay it is
// the identity, and the raw tool set is what is rendered.
//
// Every problem is reported at once, each at its position in the overlay,
// with a suggestion where a name is misspelt.
package curate

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/model"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/generate/tmplcheck"
)

// Apply curates api with o; a nil overlay leaves api as it is. The raw api
// is not modified.
func Apply(api *ir.API, o *overlay.Overlay) (*ir.API, []diag.Diagnostic) {
	if o == nil {
		return api, nil
	}
	c := &curator{raw: api, o: o, diags: &diag.List{}}
	out := c.apply()
	return out, c.diags.All()
}

type curator struct {
	raw   *ir.API
	o     *overlay.Overlay
	diags *diag.List
	// byOp finds raw tools by operationId and by "METHOD /path".
	byOp map[string]*ir.Tool
	// context names defined by the overlay's server.context.
	context map[string]bool
	// curated holds the curated tools made so far, by name.
	curated map[string]*ir.Tool
	// reads holds, by tool name, the symbols of a one-operation tool's
	// first reads (.steps.<name> in its approval question, its held
	// quote's text, and its confirm tool's .quote.body.steps).
	reads map[string]map[string]tmplcheck.Sym
}

func (c *curator) errorf(pos diag.Pos, format string, args ...any) {
	c.diags.Errorf(pos, "", format, args...)
}

func (c *curator) apply() *ir.API {
	out := *c.raw
	out.Tools = nil
	// server.name is applied by the generator before the model is built,
	// since the environment prefix derives from it.
	if s := c.o.Server; s.Title != "" || s.Instructions != "" {
		if s.Title != "" {
			out.Title = s.Title
		}
		out.Instructions = s.Instructions
	}
	out.Messages = c.messages(c.o.Messages, "message")
	c.context = map[string]bool{}
	for _, cv := range c.o.Server.Context {
		out.Context = append(out.Context, ir.ContextValue{Name: cv.Name, Header: cv.Header, Claim: cv.Claim, Env: cv.Env})
		c.context[cv.Name] = true
	}

	c.byOp = map[string]*ir.Tool{}
	for _, t := range c.raw.Tools {
		if id := t.Call.OperationID; id != "" {
			c.byOp[id] = t
		}
		c.byOp[t.Call.Method+" "+t.Call.Path] = t
	}

	// Curated tools first, in overlay order; they replace the raw tool of
	// their operation.
	curatedOps := map[*ir.Tool]bool{}
	hiddenOps := map[*ir.Tool]bool{}
	names := map[string]diag.Pos{}
	// Single-operation tools first, then composed ones (a confirm tool reads
	// its quote tool's arguments and response); the output keeps overlay
	// order.
	slots := make([]*ir.Tool, len(c.o.Tools))
	c.curated = map[string]*ir.Tool{}
	for pass := 0; pass < 2; pass++ {
		for i, ot := range c.o.Tools {
			composed := len(ot.Steps) > 0
			if composed != (pass == 1) {
				continue
			}
			if !composed {
				raw := c.operation(ot.Operation, ot.OperationPos)
				if raw == nil {
					continue
				}
				if ot.Hidden {
					hiddenOps[raw] = true
					continue
				}
				curatedOps[raw] = true
			}
			if prev, dup := names[ot.Name]; dup {
				c.errorf(ot.Pos, "tool name `%s` is already used at %s", ot.Name, prev)
				continue
			}
			names[ot.Name] = ot.Pos
			c.checkNameBudget(ot)
			if composed {
				slots[i] = c.composed(ot)
			} else {
				slots[i] = c.tool(c.byOp[c.opKey(ot.Operation)], ot)
			}
			if slots[i] != nil {
				c.curated[ot.Name] = slots[i]
				slots[i].Messages = c.messages(ot.Messages, "tool `"+ot.Name+"` message")
				slots[i].Scopes = scopes(slots[i], ot)
				c.checkScopes(ot)
			}
		}
	}
	for _, t := range slots {
		if t != nil {
			out.Tools = append(out.Tools, t)
		}
	}

	for _, raw := range c.raw.Tools {
		if curatedOps[raw] || hiddenOps[raw] || !c.included(raw) || c.excluded(raw) {
			continue
		}
		if pos, clash := names[raw.Name]; clash {
			c.errorf(pos, "tool name `%s` is also the name of the raw tool of %s, which `include` keeps; rename this tool or exclude that operation", raw.Name, describeOp(raw))
			continue
		}
		out.Tools = append(out.Tools, raw)
	}
	out.Toolsets = c.toolsets(&out)
	if len(out.Tools) == 0 && !c.diags.HasErrors() {
		c.diags.Warnf(c.o.Include.Pos, "", "the overlay selects no tools: the server will have none")
	}
	return &out
}

// operation finds the raw tool of an operation reference: an operationId
// or "METHOD /path".
func (c *curator) operation(ref string, pos diag.Pos) *ir.Tool {
	if ref == "" {
		return nil
	}
	key := c.opKey(ref)
	if t := c.byOp[key]; t != nil {
		return t
	}
	known := make([]string, 0, len(c.byOp))
	for k := range c.byOp {
		known = append(known, k)
	}
	sort.Strings(known)
	c.errorf(pos, "unknown operation `%s`%s", ref, diag.DidYouMean(ref, known))
	return nil
}

// opKey normalizes an operation reference: "get /x" → "GET /x".
func (c *curator) opKey(ref string) string {
	if m, p, ok := strings.Cut(ref, " "); ok && strings.HasPrefix(strings.TrimSpace(p), "/") {
		return strings.ToUpper(m) + " " + strings.TrimSpace(p)
	}
	return ref
}

func (c *curator) included(t *ir.Tool) bool {
	switch c.o.Include.Mode {
	case "all":
		return true
	case "selected":
		for _, s := range c.o.Include.Selectors {
			if c.matches(s, t) {
				return true
			}
		}
	}
	return false
}

func (c *curator) excluded(t *ir.Tool) bool {
	for _, s := range c.o.Exclude {
		if c.matches(s, t) {
			return true
		}
	}
	return false
}

// matches reports whether every field set in s matches the operation.
func (c *curator) matches(s *overlay.Selector, t *ir.Tool) bool {
	if s.Operation != "" && s.Operation != t.Call.OperationID && !strings.EqualFold(s.Operation, t.Call.Method+" "+t.Call.Path) {
		return false
	}
	if s.Method != "" && s.Method != t.Call.Method {
		return false
	}
	if s.Tag != "" {
		found := false
		for _, tag := range t.Call.Tags {
			found = found || tag == s.Tag
		}
		if !found {
			return false
		}
	}
	if s.Path != "" && !globMatch(s.Path, t.Call.Path) {
		return false
	}
	return true
}

// globMatch matches a path against a glob where * stays within a segment
// and ** spans segments.
func globMatch(glob, p string) bool {
	gs := strings.Split(strings.Trim(glob, "/"), "/")
	ps := strings.Split(strings.Trim(p, "/"), "/")
	var match func(gi, pi int) bool
	match = func(gi, pi int) bool {
		if gi == len(gs) {
			return pi == len(ps)
		}
		if gs[gi] == "**" {
			for k := pi; k <= len(ps); k++ {
				if match(gi+1, k) {
					return true
				}
			}
			return false
		}
		if pi == len(ps) {
			return false
		}
		if ok, _ := path.Match(gs[gi], ps[pi]); !ok {
			return false
		}
		return match(gi+1, pi+1)
	}
	return match(0, 0)
}

func describeOp(t *ir.Tool) string {
	if t.Call.OperationID != "" {
		return fmt.Sprintf("operation `%s` (%s %s)", t.Call.OperationID, t.Call.Method, t.Call.Path)
	}
	return fmt.Sprintf("%s %s", t.Call.Method, t.Call.Path)
}

// checkNameBudget warns about an overlay's tool name that some major
// client does not pass whole with the server's name before it (see
// model.Clients), suggesting one that fits.
func (c *curator) checkNameBudget(ot *overlay.Tool) {
	server := c.raw.Name
	over := model.Over(server, ot.Name)
	if over == "" || !validName(ot.Name) {
		return
	}
	budget := model.NameBudget(server)
	c.diags.Warnf(ot.Pos, "", "tool name `%s` is %d characters: too long for %s with the server named `%s`; every major client passes names of up to %d characters whole: name it `%s`, or give the server a shorter name (server.name)",
		ot.Name, len(ot.Name), over, server, budget, model.FitName(ot.Name, budget))
}

// validName applies the raw tools' naming rules to a curated name.
func validName(name string) bool { return model.ValidToolName(name) }

// checkScopes warns about an overlay scope the spec's OAuth flows do not
// declare: most likely a typo, and no token carries it, so the tool would
// be listed to no one. Specs that declare none (or use OpenID Connect,
// whose scopes the identity provider defines) are not checked.
func (c *curator) checkScopes(ot *overlay.Tool) {
	declared := c.raw.DeclaredScopes
	if declared == nil {
		return
	}
	for i, s := range ot.Scopes {
		if !slices.Contains(declared, s) {
			c.diags.Warnf(ot.ScopesAt[i], "", "tool `%s` needs scope `%s`, which the spec's OAuth flows do not declare: only callers whose identity provider defines it will see the tool%s", ot.Name, s, diag.Suggest(s, declared))
		}
	}
}

// scopes are the OAuth scopes a caller needs for t: the overlay's, else
// its operation's, else (a composed tool) every step's, since a call runs
// them all.
func scopes(t *ir.Tool, ot *overlay.Tool) []string {
	if ot.Scopes != nil {
		return ir.SortedSet(ot.Scopes)
	}
	lists := [][]string{}
	if t.Call != nil {
		lists = append(lists, t.Call.Scopes)
	}
	for _, st := range t.Steps {
		lists = append(lists, st.Call.Scopes)
	}
	return ir.SortedSet(lists...)
}
