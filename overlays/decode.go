package overlays

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/tailormcp/tailor/generator/diag"
)

// decoder walks the YAML node tree, checking keys and types as it goes and
// collecting every problem rather than stopping at the first.
type decoder struct {
	path  string
	diags *diag.List
	lines []string // of the file, to place text inside string values
}

func (d *decoder) pos(n *yaml.Node) diag.Pos {
	return diag.Pos{File: d.path, Line: n.Line, Col: n.Column}
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	d.diags.Errorf(d.pos(n), "", format, args...)
}

// fields walks a mapping, calling the handler of each known key; unknown
// keys are errors that suggest the nearest known one.
func (d *decoder) fields(n *yaml.Node, where string, handlers map[string]func(key, val *yaml.Node)) {
	n = resolveAlias(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s must be a mapping, not %s", where, kindName(n))
		return
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolveAlias(n.Content[i+1])
		h, ok := handlers[k.Value]
		if !ok {
			known := make([]string, 0, len(handlers))
			for name := range handlers {
				known = append(known, name)
			}
			d.errorf(k, "unknown key `%s` in %s%s", k.Value, where, suggest(k.Value, known))
			continue
		}
		if first := seen[k.Value]; first != nil {
			d.errorf(k, "`%s` appears twice in %s (first at line %d)", k.Value, where, first.Line)
			continue
		}
		seen[k.Value] = k
		h(k, v)
	}
}

// entries walks a mapping whose keys are names chosen by the user.
func (d *decoder) entries(n *yaml.Node, where string, each func(key, val *yaml.Node)) {
	n = resolveAlias(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s must be a mapping, not %s", where, kindName(n))
		return
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if first := seen[k.Value]; first != nil {
			d.errorf(k, "`%s` appears twice in %s (first at line %d)", k.Value, where, first.Line)
			continue
		}
		seen[k.Value] = k
		each(k, resolveAlias(n.Content[i+1]))
	}
}

func (d *decoder) str(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.errorf(n, "%s must be a string, not %s", what, kindName(n))
		return "", false
	}
	if n.Tag != "!!str" && n.Tag != "" {
		// Numbers and booleans are accepted where text is expected only when
		// quoted, so that `name: 0123` does not silently change meaning.
		d.errorf(n, "%s must be a string; quote it: \"%s\"", what, n.Value)
		return "", false
	}
	return n.Value, true
}

func (d *decoder) strPtr(n *yaml.Node, what string) *string {
	if s, ok := d.str(n, what); ok {
		return &s
	}
	return nil
}

func (d *decoder) boolean(n *yaml.Node, what string) (bool, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		d.errorf(n, "%s must be true or false, not %s", what, describe(n))
		return false, false
	}
	b, _ := strconv.ParseBool(n.Value)
	return b, true
}

func (d *decoder) boolPtr(n *yaml.Node, what string) *bool {
	if b, ok := d.boolean(n, what); ok {
		return &b
	}
	return nil
}

func (d *decoder) number(n *yaml.Node, what string) *float64 {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		d.errorf(n, "%s must be a number, not %s", what, describe(n))
		return nil
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil {
		d.errorf(n, "%s: %q is not a number", what, n.Value)
		return nil
	}
	return &f
}

func (d *decoder) integer(n *yaml.Node, what string) *int {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		d.errorf(n, "%s must be a whole number, not %s", what, describe(n))
		return nil
	}
	i, err := strconv.Atoi(strings.ReplaceAll(n.Value, "_", ""))
	if err != nil || i < 0 {
		d.errorf(n, "%s must be a whole number of zero or more, not %s", what, n.Value)
		return nil
	}
	return &i
}

// value decodes any YAML value into JSON-compatible Go values.
func (d *decoder) value(n *yaml.Node) *Value {
	var v any
	if err := n.Decode(&v); err != nil {
		d.errorf(n, "cannot read value: %v", err)
		return nil
	}
	return &Value{V: jsonable(v), Pos: d.pos(n)}
}

func (d *decoder) list(n *yaml.Node, what string) []any {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "%s must be a list, not %s", what, kindName(n))
		return nil
	}
	var out []any
	for _, e := range n.Content {
		if v := d.value(e); v != nil {
			out = append(out, v.V)
		}
	}
	return out
}

// text reads a string that the curate stage looks into (a template, a
// path), noting where its characters are in the file.
func (d *decoder) text(n *yaml.Node, what string) (Text, bool) {
	s, ok := d.str(n, what)
	if !ok {
		return Text{}, false
	}
	t := Text{S: s, Pos: d.pos(n), Start: d.pos(n)}
	lines := strings.Split(s, "\n")
	switch {
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		// The text starts on the line after the indicator, at the block's
		// indentation: that of its first non-blank line, less the spaces
		// the text itself has there.
		t.Start.Line++
		t.Start.Col = 1
		for i, l := range lines {
			if strings.TrimSpace(l) == "" {
				continue
			}
			if fl, ok := d.line(t.Start.Line + i); ok && leadingSpaces(fl) >= leadingSpaces(l) {
				t.Start.Col = 1 + leadingSpaces(fl) - leadingSpaces(l)
			}
			break
		}
	case len(lines) > 1:
		// Line breaks in a quoted or plain string come from escapes or
		// folding: its lines are not the file's.
		return t, true
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		t.Start.Col++
	}
	// Check against the file rather than reason about escapes and folding:
	// each line of the text must be there, from Start's column.
	for len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the block's final line breaks
	}
	t.Exact = true
	for i, l := range lines {
		fl, ok := d.line(t.Start.Line + i)
		if !ok {
			t.Exact = false
			break
		}
		if l == "" && strings.TrimSpace(fl) == "" {
			continue
		}
		if rest, ok := fromColumn(fl, t.Start.Col); !ok || !strings.HasPrefix(rest, l) {
			t.Exact = false
			break
		}
	}
	return t, true
}

// line returns line n (1-based) of the file.
func (d *decoder) line(n int) (string, bool) {
	if n < 1 || n > len(d.lines) {
		return "", false
	}
	return d.lines[n-1], true
}

// fromColumn returns the rest of line from column col (1-based, in
// characters, as yaml counts them).
func fromColumn(line string, col int) (string, bool) {
	i := 0
	for c := 1; c < col; c++ {
		if i >= len(line) {
			return "", false
		}
		_, size := utf8.DecodeRuneInString(line[i:])
		i += size
	}
	return line[i:], true
}

func leadingSpaces(s string) int {
	return len(s) - len(strings.TrimLeft(s, " "))
}

func (d *decoder) texts(n *yaml.Node, what string) []Text {
	if n.Kind == yaml.ScalarNode {
		if t, ok := d.text(n, what); ok {
			return []Text{t}
		}
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "%s must be a list of strings, not %s", what, kindName(n))
		return nil
	}
	var out []Text
	for _, e := range n.Content {
		if t, ok := d.text(e, what+" entries"); ok {
			out = append(out, t)
		}
	}
	return out
}

// JSONable converts values decoded by yaml.v3 into the shapes
// encoding/json produces (map[string]any, float64), in place.
func JSONable(v any) any { return jsonable(v) }

// jsonable converts YAML-decoded values (map[string]any from yaml.v3, ints)
// into the shapes encoding/json produces.
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonable(e)
		}
		return x
	case map[any]any:
		m := map[string]any{}
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonable(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = jsonable(e)
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

func resolveAlias(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return describe(n)
	}
	return "empty"
}

func describe(n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode {
		return kindName(n)
	}
	switch n.Tag {
	case "!!null":
		return "empty"
	case "!!str":
		return fmt.Sprintf("the text %q", n.Value)
	case "!!bool":
		return "the boolean " + n.Value
	case "!!int", "!!float":
		return "the number " + n.Value
	}
	return strconv.Quote(n.Value)
}

// suggest returns " (did you mean `x`?)" for the known name nearest to s,
// or "" when none is close, or the list of names when there are few.
func suggest(s string, known []string) string {
	if best := Nearest(s, known); best != "" {
		return fmt.Sprintf("; did you mean `%s`?", best)
	}
	if len(known) > 0 && len(known) <= 20 {
		sort.Strings(known)
		return "; expected one of: " + strings.Join(known, ", ")
	}
	return ""
}

// Nearest returns the candidate closest to s by edit distance, when close
// enough to be a likely typo, else "".
func Nearest(s string, candidates []string) string {
	best, bestDist := "", 1<<30
	for _, c := range candidates {
		dist := levenshtein(strings.ToLower(s), strings.ToLower(c))
		if dist < bestDist || dist == bestDist && c < best {
			best, bestDist = c, dist
		}
	}
	limit := max(2, len(s)/3)
	if bestDist <= limit && bestDist < len(s) {
		return best
	}
	// A name cut short (`desc`, `customer` for customer_id) is far from
	// the whole by edit distance; suggest the one name it begins.
	prefixed := ""
	for _, c := range candidates {
		if len(s) >= 3 && strings.HasPrefix(strings.ToLower(c), strings.ToLower(s)) {
			if prefixed != "" && prefixed != c {
				return ""
			}
			prefixed = c
		}
	}
	return prefixed
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// nameProblem says what is wrong with a name toolName rejects.
func nameProblem(name string) string {
	if n := utf8.RuneCountInString(name); n > 64 {
		return fmt.Sprintf("it is %d characters long and MCP clients accept at most 64", n)
	}
	if name == "" {
		return "it is empty: use 1 to 64 of a-z A-Z 0-9 _ -"
	}
	var bad []string
	for _, r := range name {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			if q := strconv.QuoteRune(r); !slices.Contains(bad, q) {
				bad = append(bad, q)
			}
		}
	}
	return "it contains " + strings.Join(bad, ", ") + "; use only a-z A-Z 0-9 _ -"
}

var argName = regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,64}$`)

var stepName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]{0,39}$`)

var statusPattern = regexp.MustCompile(`^[1-5]([0-9]{2}|XX)$`)

// Suggest is the "did you mean" of a name that is not one of known, as
// overlay errors phrase it, for tailor's other YAML files (scenarios).
func Suggest(s string, known []string) string { return suggest(s, known) }

// Describe names what a YAML node holds ("a mapping", "the number 3"), for
// "must be X, not Y" messages.
func Describe(n *yaml.Node) string { return kindName(resolveAlias(n)) }
