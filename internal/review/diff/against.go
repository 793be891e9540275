package diff

import (
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/overlay"
)

// Impact is what a new version of the spec does to the curated tools of
// the old one.
type Impact struct {
	OldSpec string `json:"old_spec"`
	NewSpec string `json:"new_spec"`
	// Tools lists the affected curated tools, one entry per operation.
	Tools []*OpImpact `json:"tools"`
	// OverlayErrors are the errors the overlay has against the new spec
	// (what `tailor generate` would print), with positions.
	OverlayErrors []string `json:"overlay_errors"`
}

// OpImpact is what changed in one operation a curated tool calls.
type OpImpact struct {
	Tool      string `json:"tool"`
	Operation Op     `json:"operation"`
	// Vanished: the operation is not in the new spec; MovedTo is set when
	// its operationId now names another method and path.
	Vanished bool   `json:"vanished,omitempty"`
	MovedTo  string `json:"moved_to,omitempty"`
	// Arguments of the raw tool (parameters and body fields).
	ParamsAdded   []string `json:"params_added,omitempty"`
	ParamsRemoved []string `json:"params_removed,omitempty"`
	MadeRequired  []string `json:"params_made_required,omitempty"`
	// FieldsRemoved are response fields (paths such as items[].price) the
	// new response no longer has; FieldsUsed those of them that the
	// overlay's templates or keep/drop paths read.
	FieldsRemoved []string `json:"response_fields_removed,omitempty"`
	FieldsUsed    []string `json:"response_fields_used_removed,omitempty"`
}

// Against compares the operations the curated tools of oldCurated call
// in oldRaw with the same operations in newRaw. newErrs are the
// diagnostics of curating the new spec with the overlay (its errors are
// kept). ov may be nil.
func Against(oldRaw, oldCurated, newRaw *ir.API, ov *overlay.Overlay, newErrs []diag.Diagnostic) *Impact {
	im := &Impact{OldSpec: oldRaw.Source.SpecPath, NewSpec: newRaw.Source.SpecPath, Tools: []*OpImpact{}, OverlayErrors: []string{}}
	for _, d := range newErrs {
		if d.Severity == diag.Error {
			im.OverlayErrors = append(im.OverlayErrors, d.String())
		}
	}
	oldByOp, newByOp, newByID := map[string]*ir.Tool{}, map[string]*ir.Tool{}, map[string]*ir.Tool{}
	for _, t := range oldRaw.Tools {
		oldByOp[opKey(t.Call)] = t
	}
	for _, t := range newRaw.Tools {
		newByOp[opKey(t.Call)] = t
		if t.Call.OperationID != "" {
			newByID[t.Call.OperationID] = t
		}
	}
	entries := map[string]*overlay.Tool{}
	if ov != nil {
		for _, t := range ov.Tools {
			entries[t.Name] = t
		}
	}
	for _, t := range oldCurated.Tools {
		idents := overlayIdents(entries[t.Name])
		if t.Quote != nil && t.Quote.ConfirmTool != "" {
			// The confirm tool's steps read the quote's response.
			for id := range overlayIdents(entries[t.Quote.ConfirmTool]) {
				idents[id] = true
			}
		}
		calls := []*ir.Call{t.Call}
		steps := []string{""}
		if t.Call == nil {
			calls, steps = nil, nil
			for _, st := range t.Steps {
				calls, steps = append(calls, st.Call), append(steps, st.Name)
			}
		}
		for i, c := range calls {
			old := oldByOp[opKey(c)]
			if old == nil {
				continue
			}
			oi := &OpImpact{Tool: t.Name, Operation: opOf(c, old.Name, steps[i])}
			nw := newByOp[opKey(c)]
			if nw == nil {
				oi.Vanished = true
				if m := newByID[c.OperationID]; c.OperationID != "" && m != nil {
					oi.MovedTo = opKey(m.Call)
					nw = m
				}
			}
			if nw != nil {
				compareInputs(oi, old, nw)
				oldFields, newFields := fieldPaths(old), fieldPaths(nw)
				for _, p := range oldFields {
					if !sortedContains(newFields, p) {
						oi.FieldsRemoved = append(oi.FieldsRemoved, p)
						if usesPath(idents, p) {
							oi.FieldsUsed = append(oi.FieldsUsed, p)
						}
					}
				}
			}
			if oi.Vanished || len(oi.ParamsAdded)+len(oi.ParamsRemoved)+len(oi.MadeRequired)+len(oi.FieldsRemoved) > 0 {
				im.Tools = append(im.Tools, oi)
			}
		}
	}
	return im
}

// Breaking reports whether the impact breaks a curated tool: an operation
// vanished, a parameter was removed or became required, a used response
// field disappeared, or the overlay no longer applies.
func (im *Impact) Breaking() bool {
	if len(im.OverlayErrors) > 0 {
		return true
	}
	for _, t := range im.Tools {
		if (t.Vanished && t.MovedTo == "") || len(t.ParamsRemoved)+len(t.MadeRequired)+len(t.FieldsUsed) > 0 {
			return true
		}
	}
	return false
}

func compareInputs(oi *OpImpact, old, nw *ir.Tool) {
	op, oreq := inputArgs(old.InputSchema)
	np, nreq := inputArgs(nw.InputSchema)
	for a := range np {
		if !op[a] {
			if nreq[a] {
				oi.ParamsAdded = append(oi.ParamsAdded, a+" (required)")
			} else {
				oi.ParamsAdded = append(oi.ParamsAdded, a)
			}
		}
	}
	for a := range op {
		if !np[a] {
			oi.ParamsRemoved = append(oi.ParamsRemoved, a)
		} else if nreq[a] && !oreq[a] {
			oi.MadeRequired = append(oi.MadeRequired, a)
		}
	}
	sort.Strings(oi.ParamsAdded)
	sort.Strings(oi.ParamsRemoved)
	sort.Strings(oi.MadeRequired)
}

func inputArgs(raw json.RawMessage) (props, required map[string]bool) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	_ = json.Unmarshal(raw, &s)
	props, required = map[string]bool{}, map[string]bool{}
	for k := range s.Properties {
		props[k] = true
	}
	for _, k := range s.Required {
		required[k] = true
	}
	return props, required
}

// fieldPaths lists the response body's fields as paths (order_id,
// items[].price), to a depth of 4, following $defs.
func fieldPaths(t *ir.Tool) []string {
	if len(t.OutputSchema) == 0 {
		return nil
	}
	var root map[string]any
	if err := json.Unmarshal(t.OutputSchema, &root); err != nil {
		return nil
	}
	defs, _ := root["$defs"].(map[string]any)
	var body any = root
	if w := t.Call.Result.Wrap; w != "" {
		if props, ok := root["properties"].(map[string]any); ok {
			body = props[w]
		}
	}
	var out []string
	var walk func(s any, prefix string, depth int, seen map[string]bool)
	walk = func(s any, prefix string, depth int, seen map[string]bool) {
		m, ok := s.(map[string]any)
		if !ok || depth > 4 {
			return
		}
		if ref, ok := m["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/$defs/")
			if seen[name] {
				return
			}
			next := map[string]bool{name: true}
			for k := range seen {
				next[k] = true
			}
			walk(defs[name], prefix, depth, next)
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			if l, ok := m[k].([]any); ok {
				for _, e := range l {
					walk(e, prefix, depth, seen)
				}
			}
		}
		if items, ok := m["items"]; ok {
			walk(items, prefix+"[]", depth, seen)
		}
		if props, ok := m["properties"].(map[string]any); ok {
			for name, p := range props {
				path := name
				if prefix != "" {
					path = prefix + "." + name
				}
				out = append(out, path)
				walk(p, path, depth+1, seen)
			}
		}
	}
	walk(body, "", 0, map[string]bool{})
	sort.Strings(out)
	return dedupe(out)
}

var identRe = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_-]*`)

// overlayIdents collects the names the overlay entry's result (keep, drop,
// text) and step templates mention.
func overlayIdents(t *overlay.Tool) map[string]bool {
	out := map[string]bool{}
	if t == nil {
		return out
	}
	var texts []string
	if r := t.Result; r != nil {
		for _, k := range append(append([]overlay.Text{}, r.Keep...), r.Drop...) {
			texts = append(texts, k.S)
		}
		if r.Text != nil {
			texts = append(texts, r.Text.S)
		}
	}
	for _, st := range t.Steps {
		if st.ForEach != nil {
			texts = append(texts, st.ForEach.S)
		}
		for _, a := range st.Args {
			if a.Value != nil {
				if s, ok := a.Value.V.(string); ok {
					texts = append(texts, s)
				}
			}
		}
	}
	if t.Approval != nil {
		texts = append(texts, t.Approval.Message.S)
	}
	for _, s := range texts {
		for _, id := range identRe.FindAllString(s, -1) {
			out[id] = true
		}
	}
	return out
}

// usesPath reports whether every name of path is among idents.
func usesPath(idents map[string]bool, path string) bool {
	for _, seg := range strings.Split(strings.ReplaceAll(path, "[]", ""), ".") {
		if !idents[seg] {
			return false
		}
	}
	return true
}

// sortedContains reports whether the sorted list holds s.
func sortedContains(sorted []string, s string) bool {
	_, found := slices.BinarySearch(sorted, s)
	return found
}
