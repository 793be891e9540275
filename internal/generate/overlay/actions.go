package overlay

import (
	"fmt"
	"sort"
	"strings"

	"github.com/theory/jsonpath"
	"github.com/theory/jsonpath/spec"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/jsonv"
)

// ApplyActions applies the overlay's OpenAPI Overlay actions (1.0: update,
// remove; 1.1: copy) to a spec decoded as plain JSON values, in order.
// Targets are JSONPath expressions (RFC 9535, github.com/theory/jsonpath).
// Updates merge objects recursively (the update wins for other values) and
// append to arrays. An action whose target matches nothing is a warning, or
// an error when strict.
func ApplyActions(doc any, actions []*Action, strict bool) (any, []diag.Diagnostic) {
	l := &diag.List{}
	for i, a := range actions {
		p, err := jsonpath.Parse(a.Target)
		if err != nil {
			l.Errorf(a.Pos, "", "actions[%d]: target %q is not a JSONPath expression: %v%s", i, a.Target, err, quoteHint(a.Target))
			continue
		}
		nodes := p.SelectLocated(doc)
		if len(nodes) == 0 {
			msg := fmt.Sprintf("actions[%d]: target %s matches nothing in the spec", i, a.Target)
			if strict {
				l.Errorf(a.Pos, "", "%s", msg)
			} else {
				l.Warnf(a.Pos, "", "%s (the action does nothing)", msg)
			}
			continue
		}
		switch {
		case a.Remove:
			// Remove deepest and last first, so earlier paths stay valid.
			paths := make([]spec.NormalizedPath, 0, len(nodes))
			for _, n := range nodes {
				paths = append(paths, n.Path)
			}
			sort.Slice(paths, func(i, j int) bool { return paths[i].Compare(paths[j]) > 0 })
			for _, np := range paths {
				if len(np) == 0 {
					l.Errorf(a.Pos, "", "actions[%d]: cannot remove the whole spec", i)
					continue
				}
				doc = removeAt(doc, np)
			}
		default:
			update := a.Update
			if a.Copy != "" {
				src, err := jsonpath.Parse(a.Copy)
				if err != nil {
					l.Errorf(a.Pos, "", "actions[%d]: copy %q is not a JSONPath expression: %v%s", i, a.Copy, err, quoteHint(a.Copy))
					continue
				}
				vals := src.Select(doc)
				if len(vals) != 1 {
					l.Errorf(a.Pos, "", "actions[%d]: copy %s must select exactly one value, it selects %d", i, a.Copy, len(vals))
					continue
				}
				update = jsonv.DeepCopy(vals[0])
			}
			bad := false
			for _, n := range nodes {
				if _, isObj := n.Node.(map[string]any); isObj {
					if _, ok := update.(map[string]any); !ok {
						l.Errorf(a.Pos, "", "actions[%d]: %s selects an object (%s), so the update must be an object of fields to merge", i, a.Target, n.Path)
						bad = true
						break
					}
				}
			}
			if bad {
				continue
			}
			for _, n := range nodes {
				doc = setAt(doc, n.Path, merge(n.Node, jsonv.DeepCopy(update)))
			}
		}
	}
	return doc, l.All()
}

// quoteHint is advice for a target with an unquoted path name: in
// JSONPath, names with / or { } must be quoted, as in $.paths['/orders'].
func quoteHint(target string) string {
	if strings.Contains(target, "[/") || strings.Contains(target, "./") {
		return " (quote names that contain / or { }, as in $.paths['/orders/{id}'].get)"
	}
	return ""
}

// merge applies an update to a target value.
func merge(target, update any) any {
	switch t := target.(type) {
	case map[string]any:
		u, ok := update.(map[string]any)
		if !ok {
			return update
		}
		for k, v := range u {
			if old, exists := t[k]; exists {
				t[k] = merge(old, v)
			} else {
				t[k] = v
			}
		}
		return t
	case []any:
		if u, ok := update.([]any); ok {
			return append(t, u...)
		}
		return append(t, update)
	}
	return update
}

func setAt(doc any, np spec.NormalizedPath, v any) any {
	if len(np) == 0 {
		return v
	}
	parent := walk(doc, np[:len(np)-1])
	switch last := np[len(np)-1].(type) {
	case spec.Name:
		if m, ok := parent.(map[string]any); ok {
			m[string(last)] = v
		}
	case spec.Index:
		if l, ok := parent.([]any); ok && int(last) < len(l) {
			l[int(last)] = v
		}
	}
	return doc
}

func removeAt(doc any, np spec.NormalizedPath) any {
	parentPath := np[:len(np)-1]
	parent := walk(doc, parentPath)
	switch last := np[len(np)-1].(type) {
	case spec.Name:
		if m, ok := parent.(map[string]any); ok {
			delete(m, string(last))
		}
	case spec.Index:
		if l, ok := parent.([]any); ok && int(last) < len(l) {
			l = append(l[:int(last)], l[int(last)+1:]...)
			doc = setAt(doc, parentPath, l)
		}
	}
	return doc
}

func walk(doc any, np spec.NormalizedPath) any {
	cur := doc
	for _, sel := range np {
		switch s := sel.(type) {
		case spec.Name:
			m, _ := cur.(map[string]any)
			cur = m[string(s)]
		case spec.Index:
			l, _ := cur.([]any)
			if int(s) < len(l) {
				cur = l[int(s)]
			} else {
				cur = nil
			}
		}
	}
	return cur
}
