package mcpkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"text/template"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/theory/jsonpath"
	"github.com/theory/jsonpath/spec"

	"github.com/tailormcp/tailor/internal/jsonv"
)

// shaper holds a tool's parsed result shaping, built on first use.
type shaper struct {
	once  sync.Once
	keep  []*jsonpath.Path
	drop  []*jsonpath.Path
	text  *template.Template
	rules []*template.Template
	err   error
}

var shapers sync.Map // *Tool → *shaper

func (t *Tool) shaper() *shaper {
	v, _ := shapers.LoadOrStore(t, &shaper{})
	sh := v.(*shaper)
	sh.once.Do(func() {
		for _, q := range t.Keep {
			p, err := jsonpath.Parse(q)
			if err != nil {
				sh.err = err
				return
			}
			sh.keep = append(sh.keep, p)
		}
		for _, q := range t.Drop {
			p, err := jsonpath.Parse(q)
			if err != nil {
				sh.err = err
				return
			}
			sh.drop = append(sh.drop, p)
		}
		if t.Text != "" {
			if sh.text, sh.err = ParseTemplate(t.Name, t.Text); sh.err != nil {
				return
			}
		}
		for i, r := range t.Errors {
			tm, err := ParseTemplate(fmt.Sprintf("%s.errors[%d]", t.Name, i), r.Text)
			if err != nil {
				sh.err = err
				return
			}
			sh.rules = append(sh.rules, tm)
		}
	})
	return sh
}

// shapeJSON builds the result of a successful JSON response: projection,
// the overlay's text, and the size bound.
func (c *Call) shapeJSON(status int, body []byte, v any) *mcp.CallToolResult {
	t := c.tool
	sh := t.shaper()
	if sh.err != nil {
		c.logger().Error("result shaping unusable; showing the response as is", "tool", t.Name, "error", sh.err.Error())
		sh = &shaper{}
	}
	changed := false
	if len(sh.keep) > 0 || len(sh.drop) > 0 {
		changed = true
		// Select on a float64 copy (JSONPath filters compare numbers), take
		// the values from the exact copy by their normalized paths.
		var plain any
		_ = json.Unmarshal(body, &plain)
		if len(sh.keep) > 0 {
			v = keep(v, plain, sh.keep)
		} else {
			v = drop(v, plain, sh.drop)
		}
	}
	limit := c.resultLimit()
	var cuts string
	if !fitsSurely(body, limit) {
		v, cuts = fit(v, limit)
	}
	note := ""
	if cuts != "" {
		note = c.say("result_trimmed", M{"limit": limit, "cuts": cuts})
	}
	var text string
	if changed || note != "" {
		text = jsonv.Text(v)
	} else {
		// Untouched: the backend's own JSON, compacted (its key order).
		text = compactJSON(body)
	}
	if len(text) > limit {
		note = c.say("result_cut", M{"limit": limit, "size": len(text)})
		text = truncate(text, limit)
	}
	if !t.ReadOnly && c.sent != nil {
		c.audit.Created = append(c.audit.Created, createdIDs(v, c.sent)...)
	}
	var quote map[string]any
	if t.Quote != nil {
		var err error
		if quote, err = c.saveQuote(v); err != nil {
			return c.quoteNotSaved(err)
		}
	}
	var content []mcp.Content
	if sh.text != nil {
		var buf bytes.Buffer
		data := map[string]any{"args": c.args, "body": v, "status": status}
		if quote != nil {
			data["quote"] = quote
		}
		if err := executeTemplate(sh.text, &buf, data); err != nil {
			// The model is told, and gets the data below; the operator
			// finds the template's error in the log.
			c.logger().Error("result template failed", "tool", t.Name, "error", c.redact(err.Error()))
			content = append(content, &mcp.TextContent{Text: c.say("result_text_failed", M{"error": templateError(err)})})
		} else if s := strings.TrimSpace(buf.String()); s != "" {
			content = append(content, &mcp.TextContent{Text: s})
		}
	}
	if quote != nil {
		content = append(content, &mcp.TextContent{Text: c.say("quote_ready", M{"id": quote["id"], "expires_at": quote["expires_at"], "confirm_tool": t.Quote.ConfirmTool})})
	}
	if note != "" {
		content = append(content, &mcp.TextContent{Text: note})
	}
	content = append(content, &mcp.TextContent{Text: text})
	res := &mcp.CallToolResult{Content: content}
	if t.OutputSchema != "" {
		var sc map[string]any
		if t.Wrap != "" {
			sc = map[string]any{t.Wrap: v}
		} else if m, isObj := v.(map[string]any); isObj {
			sc = m
			if quote != nil {
				sc = make(map[string]any, len(m)+2)
				for k, e := range m {
					sc[k] = e
				}
			}
		}
		if sc != nil {
			if quote != nil {
				sc["quote_id"], sc["quote_expires_at"] = quote["id"], quote["expires_at"]
			}
			res.StructuredContent = sc
		}
	}
	return res
}

// fitsSurely reports whether a JSON body's value, however it is projected
// and encoded again (jsonv.Text), fits in limit bytes: the encoding writes
// at most 6 bytes for a byte of the body (an invalid UTF-8 byte becomes
// \ufffd; U+2028 and U+2029, 3 bytes, become 6; the rest is written as
// the body wrote it, or shorter). Such a body, most of them, is not
// encoded again only to be measured.
func fitsSurely(body []byte, limit int) bool { return len(body) <= limit/6 }

// keep builds a document holding only the selected values, at their
// places; array elements keep their order.
func keep(exact, plain any, paths []*jsonpath.Path) any {
	root := &tree{}
	for _, p := range paths {
		for _, n := range p.SelectLocated(plain) {
			if val, ok := at(exact, n.Path); ok {
				root.put(n.Path, val)
			}
		}
	}
	if root.empty() {
		if _, isObj := exact.(map[string]any); isObj {
			return map[string]any{}
		}
		if _, isArr := exact.([]any); isArr {
			return []any{}
		}
		return nil
	}
	return root.value()
}

// drop removes the selected values.
func drop(exact, plain any, paths []*jsonpath.Path) any {
	var all []spec.NormalizedPath
	for _, p := range paths {
		for _, n := range p.SelectLocated(plain) {
			all = append(all, n.Path)
		}
	}
	// Deepest and last first, so removing one does not move another.
	sort.Slice(all, func(i, j int) bool { return all[i].Compare(all[j]) > 0 })
	out := jsonv.DeepCopy(exact)
	for _, np := range all {
		out = removePath(out, np)
	}
	return out
}

type tree struct {
	val    any
	set    bool
	fields map[string]*tree
	elems  map[int]*tree
}

func (t *tree) empty() bool { return !t.set && len(t.fields) == 0 && len(t.elems) == 0 }

func (t *tree) put(np spec.NormalizedPath, v any) {
	node := t
	for _, sel := range np {
		switch s := sel.(type) {
		case spec.Name:
			if node.fields == nil {
				node.fields = map[string]*tree{}
			}
			if node.fields[string(s)] == nil {
				node.fields[string(s)] = &tree{}
			}
			node = node.fields[string(s)]
		case spec.Index:
			if node.elems == nil {
				node.elems = map[int]*tree{}
			}
			if node.elems[int(s)] == nil {
				node.elems[int(s)] = &tree{}
			}
			node = node.elems[int(s)]
		}
	}
	node.val, node.set = v, true
}

func (t *tree) value() any {
	if t.set {
		return t.val
	}
	if t.fields != nil {
		m := make(map[string]any, len(t.fields))
		for k, c := range t.fields {
			m[k] = c.value()
		}
		return m
	}
	idx := make([]int, 0, len(t.elems))
	for i := range t.elems {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	l := make([]any, 0, len(idx))
	for _, i := range idx {
		l = append(l, t.elems[i].value())
	}
	return l
}

func at(v any, np spec.NormalizedPath) (any, bool) {
	for _, sel := range np {
		switch s := sel.(type) {
		case spec.Name:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[string(s)]; !ok {
				return nil, false
			}
		case spec.Index:
			l, ok := v.([]any)
			if !ok || int(s) >= len(l) {
				return nil, false
			}
			v = l[int(s)]
		}
	}
	return v, true
}

func removePath(v any, np spec.NormalizedPath) any {
	if len(np) == 0 {
		return nil
	}
	parent, ok := at(v, np[:len(np)-1])
	if !ok {
		return v
	}
	switch s := np[len(np)-1].(type) {
	case spec.Name:
		if m, ok := parent.(map[string]any); ok {
			delete(m, string(s))
		}
	case spec.Index:
		if l, ok := parent.([]any); ok && int(s) < len(l) {
			l = append(l[:int(s)], l[int(s)+1:]...)
			if len(np) == 1 {
				return l
			}
			gp, _ := at(v, np[:len(np)-2])
			switch g := np[len(np)-2].(type) {
			case spec.Name:
				gp.(map[string]any)[string(g)] = l
			case spec.Index:
				gp.([]any)[int(g)] = l
			}
		}
	}
	return v
}

// fit cuts the largest arrays of v until its JSON fits in limit bytes, and
// says which were cut and how much (for the result_trimmed message).
// Cutting array elements keeps v valid against its schema.
func fit(v any, limit int) (any, string) {
	if len(jsonv.Text(v)) <= limit {
		return v, ""
	}
	v = jsonv.DeepCopy(v)
	var notes []string
	for round := 0; round < 8 && len(jsonv.Text(v)) > limit; round++ {
		path, arr := largestArray(v, nil)
		if len(arr) == 0 {
			break
		}
		total := len(arr)
		lo, hi := 0, total-1 // the largest count that fits, by bisection
		for lo < hi {
			mid := (lo + hi + 1) / 2
			v = setAt(v, path, arr[:mid])
			if len(jsonv.Text(v)) <= limit {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		v = setAt(v, path, arr[:lo])
		where := "the result"
		if len(path) > 0 {
			where = "`" + pathString(path) + "`"
		}
		notes = append(notes, fmt.Sprintf("%s shows %d of %d items (%d left out)", where, lo, total, total-lo))
	}
	if len(notes) == 0 {
		return v, ""
	}
	return v, strings.Join(notes, "; ")
}

// largestArray finds the non-empty array whose JSON is largest.
func largestArray(v any, path []any) ([]any, []any) {
	var bestPath []any
	var best []any
	bestSize := -1
	var visit func(v any, path []any)
	visit = func(v any, path []any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				visit(e, append(append([]any(nil), path...), k))
			}
		case []any:
			if size := len(jsonv.Text(x)); size > bestSize && len(x) > 0 {
				bestSize, bestPath, best = size, path, x
			}
			for i, e := range x {
				visit(e, append(append([]any(nil), path...), i))
			}
		}
	}
	visit(v, path)
	return bestPath, best
}

// setAt replaces the value at path (keys and indexes) and returns the root.
func setAt(root any, path []any, val any) any {
	if len(path) == 0 {
		return val
	}
	parent := root
	for _, step := range path[:len(path)-1] {
		switch s := step.(type) {
		case string:
			parent = parent.(map[string]any)[s]
		case int:
			parent = parent.([]any)[s]
		}
	}
	switch s := path[len(path)-1].(type) {
	case string:
		parent.(map[string]any)[s] = val
	case int:
		parent.([]any)[s] = val
	}
	return root
}

func pathString(path []any) string {
	var b strings.Builder
	for _, step := range path {
		switch s := step.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s)
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		}
	}
	return b.String()
}
