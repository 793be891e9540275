// Package yamlwalk reads tailor's own YAML files (the overlay, scenario
// files) node by node: it checks keys and types as it goes, places every
// problem at its line and column, and collects them all rather than
// stopping at the first. The overlay and scenario parsers are built on it,
// so that both files answer mistakes alike.
package yamlwalk

import (
	"fmt"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
)

// Walker holds the file being read and the problems found so far.
type Walker struct {
	Path  string
	Diags *diag.List
	// Keys, when not nil, records every key a Fields call knows, so that a
	// test can compare the parser with the file's JSON Schema.
	Keys map[string]bool
}

// New is a Walker of the file at path with no problems yet.
func New(path string) Walker { return Walker{Path: path, Diags: &diag.List{}} }

// Pos is where n is in the file.
func (w *Walker) Pos(n *yaml.Node) diag.Pos {
	return diag.Pos{File: w.Path, Line: n.Line, Col: n.Column}
}

// Errorf records a problem at n.
func (w *Walker) Errorf(n *yaml.Node, format string, args ...any) {
	w.Diags.Errorf(w.Pos(n), "", format, args...)
}

// Resolve follows aliases to the node they name.
func Resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// Fields walks a mapping, calling the handler of each known key with its
// key and (alias-resolved) value; an unknown key is an error suggesting
// the nearest known one, a repeated key an error naming the first. It
// reports whether n is a mapping.
func (w *Walker) Fields(n *yaml.Node, where string, handlers map[string]func(key, val *yaml.Node)) bool {
	n = Resolve(n)
	if n.Kind != yaml.MappingNode {
		w.Errorf(n, "%s must be a mapping, not %s", where, diag.Describe(n))
		return false
	}
	if w.Keys != nil {
		for name := range handlers {
			w.Keys[name] = true
		}
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], Resolve(n.Content[i+1])
		h, ok := handlers[k.Value]
		if !ok {
			known := make([]string, 0, len(handlers))
			for name := range handlers {
				known = append(known, name)
			}
			w.Errorf(k, "unknown key `%s` in %s%s", k.Value, where, diag.Suggest(k.Value, known))
			continue
		}
		if first := seen[k.Value]; first != nil {
			w.Errorf(k, "`%s` appears twice in %s (first at line %d)", k.Value, where, first.Line)
			continue
		}
		seen[k.Value] = k
		h(k, v)
	}
	return true
}

// Entries walks a mapping whose keys are names chosen by the user.
func (w *Walker) Entries(n *yaml.Node, where string, each func(key, val *yaml.Node)) {
	n = Resolve(n)
	if n.Kind != yaml.MappingNode {
		w.Errorf(n, "%s must be a mapping, not %s", where, diag.Describe(n))
		return
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if first := seen[k.Value]; first != nil {
			w.Errorf(k, "`%s` appears twice in %s (first at line %d)", k.Value, where, first.Line)
			continue
		}
		seen[k.Value] = k
		each(k, Resolve(n.Content[i+1]))
	}
}

// Items are the (alias-resolved) entries of a list.
func (w *Walker) Items(n *yaml.Node, what string) []*yaml.Node {
	if n.Kind != yaml.SequenceNode {
		w.Errorf(n, "%s must be a list, not %s", what, diag.Describe(n))
		return nil
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, e := range n.Content {
		out[i] = Resolve(e)
	}
	return out
}

// Str reads a string. Numbers and booleans are accepted where text is
// expected only when quoted, so that `name: 0123` does not silently change
// meaning.
func (w *Walker) Str(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		w.Errorf(n, "%s must be a string, not %s", what, diag.Describe(n))
		return "", false
	}
	if n.Tag != "!!str" && n.Tag != "" {
		w.Errorf(n, "%s must be a string; quote it: \"%s\"", what, n.Value)
		return "", false
	}
	return n.Value, true
}

// Bool reads true or false.
func (w *Walker) Bool(n *yaml.Node, what string) (bool, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		w.Errorf(n, "%s must be true or false, not %s", what, diag.Describe(n))
		return false, false
	}
	b, _ := strconv.ParseBool(n.Value)
	return b, true
}

// Number reads a number.
func (w *Walker) Number(n *yaml.Node, what string) (float64, bool) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		w.Errorf(n, "%s must be a number, not %s", what, diag.Describe(n))
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil {
		w.Errorf(n, "%s: %q is not a number", what, n.Value)
		return 0, false
	}
	return f, true
}

// Count reads a whole number of zero or more.
func (w *Walker) Count(n *yaml.Node, what string) (int, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		w.Errorf(n, "%s must be a whole number, not %s", what, diag.Describe(n))
		return 0, false
	}
	i, err := strconv.Atoi(strings.ReplaceAll(n.Value, "_", ""))
	if err != nil || i < 0 {
		w.Errorf(n, "%s must be a whole number of zero or more, not %s", what, n.Value)
		return 0, false
	}
	return i, true
}

// Value reads any YAML value as encoding/json would have decoded it.
func (w *Walker) Value(n *yaml.Node) (any, bool) {
	var v any
	if err := n.Decode(&v); err != nil {
		w.Errorf(n, "cannot read value: %v", err)
		return nil, false
	}
	return JSONable(v), true
}

// JSONable converts values decoded from YAML into the shapes encoding/json
// produces (map[string]any, float64), in place.
func JSONable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = JSONable(e)
		}
		return x
	case map[any]any:
		m := map[string]any{}
		for k, e := range x {
			m[fmt.Sprint(k)] = JSONable(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = JSONable(e)
		}
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	}
	return v
}
