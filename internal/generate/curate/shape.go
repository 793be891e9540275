package curate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/theory/jsonpath"
	"github.com/theory/jsonpath/spec"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/generate/schema"
	"github.com/tailormcp/tailor/internal/generate/tmplcheck"
)

// shape applies `result`: projection (keep/drop), the text template and the
// size bound, and makes the outputSchema describe the projected result.
func (c *curator) shape(t *ir.Tool, ot *overlay.Tool) {
	r := ot.Result
	if r == nil {
		return
	}
	where := fmt.Sprintf("tool `%s`, result", ot.Name)
	sh := &ir.Shape{MaxBytes: r.MaxBytes}
	var trie *pathTrie
	parse := func(list []overlay.Text) []string {
		var out []string
		for _, e := range list {
			q := PathExpr(e.S)
			p, err := jsonpath.Parse(q)
			if err != nil {
				c.errorf(e.Pos, "%s: %q is not a JSONPath expression (RFC 9535): %v", where, e.S, err)
				continue
			}
			if trie == nil {
				trie = &pathTrie{}
			}
			trie.add(p)
			out = append(out, q)
		}
		return out
	}
	sh.Keep, sh.Drop = parse(r.Keep), parse(r.Drop)

	if t.OutputSchema != nil && trie != nil {
		root, err := decodeSchema(t.OutputSchema)
		if err != nil {
			c.errorf(r.Pos, "%s: cannot read the output schema: %v", where, err)
			return
		}
		o := &outputSchema{schema.OutputDoc{Root: root.root, Wrap: t.Call.Result.Wrap}}
		body := o.Body()
		if len(sh.Keep) > 0 {
			c.checkPaths(trie, body, o, r.Keep, where)
			body = o.keep(body, trie)
		} else {
			c.checkPaths(trie, body, o, r.Drop, where)
			body = o.drop(body, trie)
		}
		t.OutputSchema = encodeSchema(o.withBody(body))
	}
	if r.Text != nil {
		sh.Text = r.Text.S
		scope := resultScope(t)
		if reads := c.reads[t.Name]; reads != nil {
			scope["steps"] = tmplcheck.Map("a read this tool runs before holding the quote (reads:)", reads)
		}
		c.checkTemplate(r.Text, where+" text", scope)
	}
	t.Shape = sh
}

// PathExpr turns a keep/drop entry into a JSONPath query: a plain field
// name "order_id" means $['order_id'].
func PathExpr(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "$") {
		return s
	}
	return "$['" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "']"
}

// pathTrie holds the simple steps of keep/drop paths: names, and [*] or an
// index for arrays. A path with other selectors (filters, slices,
// descendants) marks its node complex: the schema below it is not
// narrowed, only made permissive.
type pathTrie struct {
	leaf     bool
	complex  bool
	names    map[string]*pathTrie
	elements *pathTrie
}

func (t *pathTrie) add(p *jsonpath.Path) {
	node := t
	for _, seg := range p.Query().Segments() {
		sels := seg.Selectors()
		if seg.IsDescendant() || len(sels) != 1 {
			node.complex = true
			return
		}
		switch s := sels[0].(type) {
		case spec.Name:
			if node.names == nil {
				node.names = map[string]*pathTrie{}
			}
			if node.names[string(s)] == nil {
				node.names[string(s)] = &pathTrie{}
			}
			node = node.names[string(s)]
		case spec.WildcardSelector, spec.Index:
			if node.elements == nil {
				node.elements = &pathTrie{}
			}
			node = node.elements
		default:
			node.complex = true
			return
		}
	}
	node.leaf = true
}

// outputSchema is a tool's outputSchema being projected.
type outputSchema struct {
	schema.OutputDoc
}

// withBody makes a root schema around a projected body schema, keeping
// only the $defs still referred to.
func (o *outputSchema) withBody(body any) map[string]any {
	var root map[string]any
	if o.Wrap == "" {
		root, _ = body.(map[string]any)
		if root == nil {
			root = map[string]any{}
		}
		root["type"] = "object"
	} else {
		root = map[string]any{"type": "object", "properties": map[string]any{o.Wrap: body}}
	}
	defs, _ := o.Root["$defs"].(map[string]any)
	used := map[string]bool{}
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "$ref" {
					if s, ok := e.(string); ok && strings.HasPrefix(s, "#/$defs/") {
						name := strings.TrimPrefix(s, "#/$defs/")
						if !used[name] {
							used[name] = true
							visit(defs[name])
						}
					}
					continue
				}
				if k != "$defs" {
					visit(e)
				}
			}
		case []any:
			for _, e := range x {
				visit(e)
			}
		}
	}
	visit(root)
	if len(used) > 0 {
		kept := map[string]any{}
		for n := range used {
			kept[n] = defs[n]
		}
		root["$defs"] = kept
	} else {
		delete(root, "$defs")
	}
	return root
}

// keep narrows s to the kept paths. Objects lose their `required` (a kept
// field may be absent in a response) and every field not kept.
func (o *outputSchema) keep(s any, t *pathTrie) any {
	if t.leaf {
		return s
	}
	if t.complex {
		return map[string]any{}
	}
	props, _, items, known := o.Resolve(s)
	out := map[string]any{}
	if m, ok := s.(map[string]any); ok {
		if d, ok := m["description"]; ok {
			out["description"] = d
		}
	}
	if len(t.names) > 0 {
		if !known || props == nil {
			return map[string]any{}
		}
		kept := map[string]any{}
		for name, child := range t.names {
			if p, ok := props[name]; ok {
				kept[name] = o.keep(p, child)
			}
		}
		out["type"] = []any{"object", "null"}
		out["properties"] = kept
	}
	if t.elements != nil {
		if items == nil {
			return map[string]any{}
		}
		out["type"] = []any{"array", "null"}
		out["items"] = o.keep(items, t.elements)
	}
	return out
}

// drop removes the dropped paths from s, inlining referenced components
// along the way so that shared $defs are not changed for other fields.
func (o *outputSchema) drop(s any, t *pathTrie) any {
	if t.leaf {
		return nil
	}
	if t.complex {
		return map[string]any{}
	}
	props, required, items, known := o.Resolve(s)
	if !known {
		return map[string]any{}
	}
	out := map[string]any{}
	if m, ok := s.(map[string]any); ok {
		for _, k := range []string{"description", "type", "title"} {
			if v, ok := m[k]; ok {
				out[k] = v
			}
		}
	}
	if props != nil {
		np := map[string]any{}
		for name, p := range props {
			child, ok := t.names[name]
			if !ok {
				np[name] = p
				continue
			}
			if v := o.drop(p, child); v != nil {
				np[name] = v
			}
		}
		out["properties"] = np
		var req []any
		for _, r := range required {
			if name, ok := r.(string); ok {
				if _, still := np[name]; still {
					req = append(req, name)
				}
			}
		}
		if len(req) > 0 {
			out["required"] = dedupe(req)
		}
	}
	if items != nil {
		if t.elements != nil {
			out["items"] = o.drop(items, t.elements)
		} else {
			out["items"] = items
		}
	}
	return out
}

func dedupe(l []any) []any {
	seen := map[string]bool{}
	var out []any
	for _, v := range l {
		s := fmt.Sprint(v)
		if !seen[s] {
			seen[s] = true
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

// checkPaths reports keep/drop names that the response schema does not
// have, with a suggestion.
func (c *curator) checkPaths(t *pathTrie, body any, o *outputSchema, entries []overlay.Text, where string) {
	var walk func(node *pathTrie, s any, prefix string)
	walk = func(node *pathTrie, s any, prefix string) {
		props, _, items, known := o.Resolve(s)
		for name, child := range node.names {
			if !known || props == nil {
				return
			}
			p, ok := props[name]
			if !ok {
				names := make([]string, 0, len(props))
				for n := range props {
					names = append(names, n)
				}
				sort.Strings(names)
				hint := diag.DidYouMean(name, names)
				c.errorf(entryPos(entries, name).Pos, "%s: the response has no field `%s%s`%s", where, prefix, name, hint)
				continue
			}
			walk(child, p, prefix+name+".")
		}
		if node.elements != nil && items != nil {
			walk(node.elements, items, strings.TrimSuffix(prefix, ".")+"[*].")
		}
	}
	walk(t, body, "")
}

func entryPos(entries []overlay.Text, name string) overlay.Text {
	for _, e := range entries {
		if strings.Contains(e.S, name) {
			return e
		}
	}
	return entries[0]
}
