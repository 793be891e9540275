package render

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The tools' schemas go to schemas.go, one constant each, as indented JSON
// in raw strings: a change to a schema shows in a pull request as the lines
// that changed, not as a new 2,000-character line of tools.go. The server
// still lists them compact: encoding/json compacts what a json.Marshaler
// (mcpkit's rawSchema) returns as it encodes tools/list, which it did for
// the compact text too, so only the indentation is scanned on top.

// schemaConst is one schema constant of schemas.go.
type schemaConst struct {
	Name string
	// Tool and Kind ("inputSchema", "outputSchema") say whose it is.
	Tool, Kind string
	// Literal is the constant's value as Go.
	Literal string
	// Canonical says the constant prints in gofmt's form (parts.go): the
	// tool's name in its comment is kept by gofmt's doc comment printer.
	Canonical bool
}

// indented is a schema's JSON indented with tabs, one member or element
// per line: json.Indent(schema, "", "\t") for the compact JSON the
// generator writes, in one pass without encoding/json's scanner, which
// took 45 ms over kubernetes' 8 MB of schemas (TestIndentedIsJSONIndent
// compares the two on the corpus's JSON; the goldens' schemas.go too).
// Anything but compact JSON goes to json.Indent.
func indented(schema string) string {
	var b strings.Builder
	b.Grow(len(schema) + len(schema)/4)
	newline := func(depth int) {
		b.WriteByte('\n')
		for range depth {
			b.WriteByte('\t')
		}
	}
	depth, inString := 0, false
	for i := 0; i < len(schema); i++ {
		c := schema[i]
		if inString {
			b.WriteByte(c)
			switch c {
			case '\\':
				if i+1 < len(schema) {
					i++
					b.WriteByte(schema[i])
				}
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			b.WriteByte(c)
		case '{', '[':
			b.WriteByte(c)
			if i+1 < len(schema) && (schema[i+1] == '}' || schema[i+1] == ']') {
				i++
				b.WriteByte(schema[i]) // empty: {} and [] stay as they are
				continue
			}
			depth++
			newline(depth)
		case '}', ']':
			depth--
			newline(depth)
			b.WriteByte(c)
		case ',':
			b.WriteByte(c)
			newline(depth)
		case ':':
			b.WriteString(": ")
		case ' ', '\t', '\n', '\r':
			return jsonIndent(schema) // not compact
		default:
			b.WriteByte(c)
		}
	}
	if depth != 0 || inString {
		return jsonIndent(schema)
	}
	return b.String()
}

func jsonIndent(schema string) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(schema), "", "\t"); err != nil {
		return schema // the generator's own JSON; never happens
	}
	return buf.String()
}

// rawLiteral is s as Go: raw strings, joined with + to the quoted
// characters a raw string cannot hold (a backquote, a carriage return or
// another control character but tab and newline, a byte order mark, bytes
// that are not UTF-8). The compiler joins them; the text reads as it is.
func rawLiteral(s string) string {
	if safe := strings.IndexFunc(s, func(r rune) bool { return !rawSafe(r, utf8.RuneLen(r)) }); safe < 0 && utf8.ValidString(s) {
		return "`" + s + "`" // the common case
	}
	var parts []string
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b >= 0x20 && b < 0x7f && b != '`' || b == '\n' || b == '\t' {
			i++ // the common case: printable ASCII
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if rawSafe(r, size) {
			i += size
			continue
		}
		if start < i {
			parts = append(parts, "`"+s[start:i]+"`")
		}
		parts = append(parts, strconv.Quote(s[i:i+size]))
		i += size
		start = i
	}
	if start < len(s) || len(parts) == 0 {
		parts = append(parts, "`"+s[start:]+"`")
	}
	return strings.Join(parts, " + ")
}

func rawSafe(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1, r == '`', r == '\uFEFF':
		return false
	case r == '\n' || r == '\t':
		return true
	}
	return r >= 0x20 && r != 0x7f && !(r >= 0x80 && r < 0xa0)
}
