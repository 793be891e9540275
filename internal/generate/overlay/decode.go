package overlay

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/yamlwalk"
)

// decoder walks the overlay's YAML node tree (yamlwalk: keys and types
// checked as it goes, every problem collected), into the typed values.
type decoder struct {
	yamlwalk.Walker
	lines []string // of the file, to place text inside string values
}

func (d *decoder) strPtr(n *yaml.Node, what string) *string {
	if s, ok := d.Str(n, what); ok {
		return &s
	}
	return nil
}

func (d *decoder) boolPtr(n *yaml.Node, what string) *bool {
	if b, ok := d.Bool(n, what); ok {
		return &b
	}
	return nil
}

func (d *decoder) number(n *yaml.Node, what string) *float64 {
	if f, ok := d.Number(n, what); ok {
		return &f
	}
	return nil
}

func (d *decoder) integer(n *yaml.Node, what string) *int {
	if i, ok := d.Count(n, what); ok {
		return &i
	}
	return nil
}

// value decodes any YAML value into JSON-compatible Go values.
func (d *decoder) value(n *yaml.Node) *Value {
	if v, ok := d.Value(n); ok {
		return &Value{V: v, Pos: d.Pos(n)}
	}
	return nil
}

func (d *decoder) list(n *yaml.Node, what string) []any {
	var out []any
	for _, e := range d.Items(n, what) {
		if v := d.value(e); v != nil {
			out = append(out, v.V)
		}
	}
	return out
}

// text reads a string that the curate stage looks into (a template, a
// path), noting where its characters are in the file.
func (d *decoder) text(n *yaml.Node, what string) (Text, bool) {
	s, ok := d.Str(n, what)
	if !ok {
		return Text{}, false
	}
	t := Text{S: s, Pos: d.Pos(n), Start: d.Pos(n)}
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
		d.Errorf(n, "%s must be a list of strings, not %s", what, diag.Describe(n))
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

// namePattern is a name's characters and its longest length, checked
// apart: a bounded repetition ({1,64}) compiles into as many copies of its
// class, a quarter of a megabyte and a millisecond at every start of
// tailor.
type namePattern struct {
	chars *regexp.Regexp // the whole name, one or more characters
	max   int            // bytes
}

func (p namePattern) MatchString(s string) bool { return len(s) <= p.max && p.chars.MatchString(s) }

// String is the pattern as one expression, as messages show it:
// `^[a-z]+$` of at most 64 is `^[a-z]{1,64}$`.
func (p namePattern) String() string {
	expr := p.chars.String()
	if rest, ok := strings.CutSuffix(expr, "+$"); ok {
		return fmt.Sprintf("%s{1,%d}$", rest, p.max)
	}
	return expr
}

var toolName = namePattern{regexp.MustCompile(`^[a-zA-Z0-9_-]+$`), 64}

// toolsetName is a toolset's name: a word of a comma-separated flag value.
var toolsetName = toolName

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

var argName = namePattern{regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`), 64}

var stepName = namePattern{regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`), 40}

var statusPattern = regexp.MustCompile(`^[1-5]([0-9]{2}|XX)$`)

// scopes reads a tool's OAuth scopes: scope tokens as RFC 6749 section 3.3
// defines them (printable ASCII without space, `"` or `\`), and where each
// one is written.
func (d *decoder) scopes(n *yaml.Node) (out []string, at []diag.Pos) {
	out = []string{}
	for _, item := range d.Items(n, "scopes") {
		s, ok := d.Str(item, "a scope")
		if !ok {
			continue
		}
		if !scopeToken.MatchString(s) {
			d.Errorf(item, "scope %q is not an OAuth scope token: use printable ASCII without spaces, quotes or backslashes (list several scopes as separate items)", s)
			continue
		}
		out = append(out, s)
		at = append(at, d.Pos(item))
	}
	return out, at
}

var scopeToken = regexp.MustCompile(`^[\x21\x23-\x5B\x5D-\x7E]+$`)
