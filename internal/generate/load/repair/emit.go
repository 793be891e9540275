package repair

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"
)

// emitInPlace writes a YAML node tree as flow-style YAML (JSON, as long as
// the tree uses nothing JSON lacks) in which every node that carries a
// position starts on the line it had in the file it was read from, and at
// its column when the text before it on that line leaves room. The repair
// pass hands kin-openapi files it rewrote in this form, so that the
// positions kin-openapi records, and every warning and error built from
// them, still point into the user's file. Nodes without a position (built
// or copied by the repair pass) follow on from wherever the text is.
// Comments are left out.
func emitInPlace(doc *yaml.Node) []byte {
	e := &emitter{line: 1, col: 1}
	root := doc
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return []byte("{}\n")
		}
		root = doc.Content[0]
	}
	if blockRoot(root) {
		e.block(root)
	} else {
		e.node(root, 0)
	}
	e.buf.WriteByte('\n')
	return e.buf.Bytes()
}

type emitter struct {
	buf       bytes.Buffer
	line, col int // where the next byte goes, 1-based; col counts runes as YAML's marks do
	// minCol is the column flow content must start at or after: inside
	// a block mapping, a continuation line must be indented.
	minCol int
}

// blockRoot reports whether root is a block mapping whose keys start
// lines at column 1, as written YAML's top level does. Such a root is
// written as a block mapping, so that its first key, too, keeps its
// column (a flow mapping's brace would take it).
func blockRoot(root *yaml.Node) bool {
	if root.Kind != yaml.MappingNode || root.Style&yaml.FlowStyle != 0 || root.Anchor != "" || len(root.Content) == 0 {
		return false
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Kind != yaml.ScalarNode || k.Column != 1 || k.ShortTag() == "!!merge" || k.Anchor != "" || utf8.RuneCountInString(k.Value) >= 1000 {
			return false
		}
	}
	return true
}

// block writes root as a block mapping of flow values.
func (e *emitter) block(root *yaml.Node) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		e.minCol = 1
		k, v := root.Content[i], root.Content[i+1]
		if i > 0 && (k.Line <= e.line || e.col > 1) {
			e.buf.WriteByte('\n')
			e.line, e.col = e.line+1, 1
		}
		e.moveTo(k)
		// In a block mapping ":" needs a space after it.
		e.scalar(k)
		e.write(": ")
		e.minCol = 2
		e.value(v, 1)
	}
}

// maxEmitDepth bounds nesting, as the YAML parser itself does.
const maxEmitDepth = 10000

// moveTo advances to n's line and column, when it has them and they are
// still ahead.
func (e *emitter) moveTo(n *yaml.Node) {
	if n.Line <= 0 {
		return
	}
	if e.line < n.Line {
		e.buf.WriteString(strings.Repeat("\n", n.Line-e.line))
		e.line, e.col = n.Line, 1
	}
	if e.line == n.Line && e.col < max(n.Column, e.minCol) {
		col := max(n.Column, e.minCol)
		e.buf.WriteString(strings.Repeat(" ", col-e.col))
		e.col = col
	}
}

// write appends text that holds no line break.
func (e *emitter) write(s string) {
	e.buf.WriteString(s)
	e.col += utf8.RuneCountInString(s)
}

func (e *emitter) node(n *yaml.Node, depth int) {
	if depth > maxEmitDepth {
		e.write("null")
		return
	}
	e.moveTo(n)
	if n.Anchor != "" && n.Kind != yaml.AliasNode {
		e.write("&" + n.Anchor + " ")
	}
	switch n.Kind {
	case yaml.AliasNode:
		e.write("*" + n.Value)
	case yaml.ScalarNode:
		e.scalar(n)
	case yaml.MappingNode:
		e.write("{")
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				e.write(",")
			}
			k, v := n.Content[i], n.Content[i+1]
			if k.Line <= 0 {
				e.write(" ")
			}
			e.key(k, depth)
			e.write(":")
			// A value on this line needs a space before it (a plain key's
			// ":" is only an indicator when one follows); one on a later
			// line starts after the line break.
			if v.Line <= 0 || v.Line <= e.line || isCollection(v) {
				e.write(" ")
			}
			e.value(v, depth)
		}
		e.write("}")
	case yaml.SequenceNode:
		e.write("[")
		for i, c := range n.Content {
			if i > 0 {
				e.write(",")
				if c.Line <= 0 {
					e.write(" ")
				}
			}
			e.value(c, depth)
		}
		e.write("]")
	case yaml.DocumentNode:
		if len(n.Content) > 0 {
			e.node(n.Content[0], depth+1)
		} else {
			e.write("null")
		}
	default:
		e.write("null")
	}
}

// value writes a mapping's value or a sequence's item. A collection's
// bracket goes right where the text is, so that its first entry can still
// reach its own line and column.
func (e *emitter) value(v *yaml.Node, depth int) {
	if isCollection(v) {
		saved := v.Line
		v.Line = 0
		e.node(v, depth+1)
		v.Line = saved
		return
	}
	e.node(v, depth+1)
}

// isCollection reports whether value writes v starting with its bracket.
func isCollection(v *yaml.Node) bool {
	return (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode) && v.Anchor == "" && len(v.Content) > 0
}

// key writes a mapping key: a merge key as itself, a scalar as scalar
// values are written, anything else (and a long key: YAML limits implicit
// keys to 1024 characters) as an explicit key.
func (e *emitter) key(k *yaml.Node, depth int) {
	switch {
	case k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge":
		e.moveTo(k)
		e.write("<<")
	case k.Kind == yaml.ScalarNode && k.Anchor == "" && utf8.RuneCountInString(k.Value) < 1000:
		e.moveTo(k)
		e.scalar(k)
	default:
		// YAML limits implicit keys to 1024 characters on one line.
		e.write("? ")
		e.node(k, depth+1)
		e.write(" ")
	}
}

// scalar writes a scalar so that it reads back with the same tag and value:
// strings quoted; numbers, booleans, null and timestamps as written (a
// plain scalar YAML resolved to that tag resolves so again, and they hold
// no flow indicator); anything else with its tag.
func (e *emitter) scalar(n *yaml.Node) {
	tag := n.ShortTag()
	plain := n.Style&(yaml.TaggedStyle|yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0
	switch {
	case tag == "!!str":
		e.write(quote(n.Value))
	case tag == "!!null" && n.Value == "":
		e.write("null")
	case plain && (tag == "!!null" || tag == "!!bool" || tag == "!!int" || tag == "!!float" || tag == "!!timestamp"):
		e.write(n.Value)
	case safeTag(tag):
		e.write(tag + " " + quote(n.Value))
	default:
		e.write(quote(n.Value))
	}
}

// safeTag reports whether a tag can be written back as it is; one that
// cannot (escapes of control characters) is left out, as kin-openapi
// drops local tags anyway.
func safeTag(tag string) bool {
	for _, r := range tag {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!:/._~-", r)) {
			return false
		}
	}
	return tag != "" && tag != "!"
}

// quote writes s as a double-quoted scalar that JSON reads the same way:
// line breaks (YAML's included: U+0085, U+2028, U+2029), other control
// characters and the byte order mark escaped.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == utf8.RuneError {
				fmt.Fprintf(&b, `\u%04x`, r)
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
