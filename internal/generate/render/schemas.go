package render

import (
	"bytes"
	"encoding/json"
	"strconv"
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
	// JSON is the schema as the generator wrote it (compact).
	JSON string
}

// Literal is the constant's value as Go (appendSchemaLiteral).
func (sc schemaConst) Literal() string { return string(appendSchemaLiteral(nil, sc.JSON)) }

// appendSchemaLiteral appends a schema's constant as Go: its JSON indented
// with tabs, one member or element per line, as json.Indent(schema, "",
// "\t") writes it, printed as appendRawLiteral prints that text. It does
// both in one pass over the compact JSON the generator writes: apart, they
// took stripe 30 ms and kubernetes 60 ms of CPU (encoding/json's scanner
// in json.Indent alone took kubernetes 45 ms). TestSchemaLiteral compares
// it with the two apart on the corpus's JSON. Anything but compact JSON
// goes to json.Indent and appendRawLiteral.
//
// Lines nested deeper than maxIndent levels are indented as that level: a
// tab a level would make a schema nested n levels deep n² bytes (a spec of
// 20 operations 1,000 levels deep wrote a 262 MB file).
func appendSchemaLiteral(b []byte, schema string) []byte {
	start := len(b)
	notCompact := func() []byte { return appendRawLiteral(b[:start], jsonIndent(schema)) }
	w := rawWriter{b: b}
	newline := func(depth int) {
		depth = min(depth, maxIndent)
		w.b = append(w.b, '\n')
		for ; depth > len(tabs); depth -= len(tabs) {
			w.b = append(w.b, tabs...)
		}
		w.b = append(w.b, tabs[:depth]...)
	}
	depth, inString := 0, false
	for i := 0; i < len(schema); {
		c := schema[i]
		if inString {
			j := i
			for j < len(schema) && plainInString[schema[j]] {
				j++
			}
			if j > i {
				w.safe(schema[i:j])
				i = j
				continue
			}
			switch c {
			case '"':
				w.safe(`"`)
				inString = false
				i++
			case '\\':
				w.safe(`\`)
				i++
				if i < len(schema) {
					i += w.char(schema, i) // escaped: whatever it is, it stays in the string
				}
			default:
				i += w.char(schema, i)
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			w.safe(`"`)
		case '{', '[':
			if i+1 < len(schema) && (schema[i+1] == '}' || schema[i+1] == ']') {
				w.safe(schema[i : i+2]) // empty: {} and [] stay as they are
				i += 2
				continue
			}
			w.begin()
			w.b = append(w.b, c)
			depth++
			newline(depth)
		case '}', ']':
			depth--
			if depth < 0 {
				return notCompact()
			}
			w.begin()
			newline(depth)
			w.b = append(w.b, c)
		case ',':
			w.begin()
			w.b = append(w.b, c)
			newline(depth)
		case ':':
			w.safe(": ")
		case ' ', '\t', '\n', '\r':
			return notCompact()
		default:
			i += w.char(schema, i)
			continue
		}
		i++
	}
	if depth != 0 || inString {
		return notCompact()
	}
	return w.end()
}

// maxIndent is the deepest indentation of a schema constant, in tabs; the
// corpus's deepest schema (stripe's) is indented 18.
const maxIndent = 64

// tabs is indentation written at once.
const tabs = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t"

// plainInString are the bytes of a JSON string that go into a raw string
// as they are and do not end the string: printable ASCII but the backquote,
// the quote and the backslash.
var plainInString = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '`' && c != '"' && c != '\\'
	}
	return t
}()

func jsonIndent(schema string) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(schema), "", "\t"); err != nil {
		return schema // the generator's own JSON; never happens
	}
	return buf.String()
}

// appendRawLiteral appends s as Go: raw strings, joined with + to the
// quoted characters a raw string cannot hold (a backquote, a carriage
// return or another control character but tab and newline, a byte order
// mark, bytes that are not UTF-8). The compiler joins them; the text reads
// as it is.
func appendRawLiteral(b []byte, s string) []byte {
	w := rawWriter{b: b}
	for i := 0; i < len(s); {
		i += w.char(s, i)
	}
	return w.end()
}

// rawWriter appends a text as appendRawLiteral prints it, as it comes: raw
// strings, and the characters they cannot hold quoted, joined with +.
type rawWriter struct {
	b []byte
	// open says a raw string is started and not yet closed; parts counts
	// the raw strings and quoted characters written.
	open  bool
	parts int
}

// begin makes sure a raw string is open, for what comes next.
func (w *rawWriter) begin() {
	if !w.open {
		if w.parts > 0 {
			w.b = append(w.b, " + "...)
		}
		w.b = append(w.b, '`')
		w.open = true
		w.parts++
	}
}

// safe writes text a raw string holds.
func (w *rawWriter) safe(s string) {
	w.begin()
	w.b = append(w.b, s...)
}

// char writes the character at s[i], raw or quoted, and returns its size.
func (w *rawWriter) char(s string, i int) int {
	if c := s[i]; c < utf8.RuneSelf {
		if c >= 0x20 && c < 0x7f && c != '`' || c == '\n' || c == '\t' {
			w.begin()
			w.b = append(w.b, c)
		} else {
			w.quoted(s[i : i+1])
		}
		return 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if rawSafe(r, size) {
		w.safe(s[i : i+size])
	} else {
		w.quoted(s[i : i+size])
	}
	return size
}

// quoted writes a character a raw string cannot hold, as a Go string.
func (w *rawWriter) quoted(s string) {
	if w.open {
		w.b = append(w.b, '`')
		w.open = false
	}
	if w.parts > 0 {
		w.b = append(w.b, " + "...)
	}
	w.b = strconv.AppendQuote(w.b, s)
	w.parts++
}

// end closes the literal and returns what was appended to: two
// backquotes for an empty text.
func (w *rawWriter) end() []byte {
	if w.open {
		return append(w.b, '`')
	} else if w.parts == 0 {
		return append(w.b, "``"...)
	}
	return w.b
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

// size is about how many bytes of schemas.go the constant takes.
