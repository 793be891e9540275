package load

import (
	"bytes"
	"sync"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"
)

// A large spec's text is parsed on both cores: it is cut in two at a
// mapping key near its middle (a path, a schema), each half is parsed on
// its own, and the two trees are joined into the tree of the whole. The
// second half is parsed as a document of its own whose lines are where
// they are in the spec: the lines before the cut are empty but for the
// keys of the mappings the cut is in (`paths:`, or `components:` and
// `  schemas:`), copied onto the lines just above it, so that every node
// has the line and column the whole text gives it. What the halves cannot
// be (a half that does not parse, a key that turns out not to be one of
// the mapping's, an anchor used across the cut) makes the text be parsed
// whole, as before.

// minSplit is the size below which a text is parsed whole: two goroutines
// and a join cost more than they save on a small spec.
const minSplit = 256 << 10

// cut is a text cut in two: head is the text before the cut; tail the
// text after it, with the chain of keys of the mappings the cut is in on
// the lines above it.
type cut struct {
	head, tail []byte
	chain      []string // keys from the document's mapping to the one cut
	indent     int      // the column (0-based) of the cut mapping's keys; -1 in JSON, where any is
}

// parseSplit parses and prepares data on two cores, or returns nil when it
// cannot be cut, or its halves cannot be joined or prepared.
func parseSplit(data []byte) *yaml.Node {
	if len(data) < minSplit || !plainLineBreaks(data) {
		return nil
	}
	c := cutYAML(data)
	if looksLikeJSON(data) {
		c = cutJSON(data)
	}
	if c == nil {
		return nil
	}
	var head yaml.Node
	var headOK bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		headOK = yaml.Unmarshal(c.head, &head) == nil && prepareTree(&head)
	}()
	var tail yaml.Node
	tailOK := yaml.Unmarshal(c.tail, &tail) == nil && prepareTree(&tail)
	wg.Wait()
	if !headOK || !tailOK || !isMappingDoc(&head) || !isMappingDoc(&tail) {
		return nil
	}
	root, ok := joinMappings(head.Content[0], tail.Content[0], c.chain, c.indent)
	if !ok {
		return nil
	}
	doc := head
	doc.Content = []*yaml.Node{root}
	return &doc
}

// plainLineBreaks reports whether every line break YAML sees in data is a
// \n (or \r\n), which the second half's empty lines stand for: a lone \r,
// or U+2028 or U+2029, breaks a line too.
func plainLineBreaks(data []byte) bool {
	return bytes.Count(data, []byte("\r")) == bytes.Count(data, []byte("\r\n")) &&
		!bytes.Contains(data, []byte("\u2028")) && !bytes.Contains(data, []byte("\u2029"))
}

func isMappingDoc(n *yaml.Node) bool {
	return n.Kind == yaml.DocumentNode && len(n.Content) == 1 && n.Content[0].Kind == yaml.MappingNode
}

// joinMappings joins the mapping a, whose last key is chain[0] (when there
// is a chain), with b, whose first key is the same, down the chain; at its
// end the members of b's mapping follow a's, and each must be a key at the
// cut's column. a and b are left as they are.
func joinMappings(a, b *yaml.Node, chain []string, indent int) (*yaml.Node, bool) {
	if a.Kind != yaml.MappingNode || b.Kind != yaml.MappingNode {
		return nil, false
	}
	joined := *a
	if len(chain) == 0 {
		for i := 0; i < len(b.Content) && indent >= 0; i += 2 {
			if b.Content[i].Column != indent+1 {
				return nil, false
			}
		}
		joined.Content = append(append(make([]*yaml.Node, 0, len(a.Content)+len(b.Content)), a.Content...), b.Content...)
		return &joined, true
	}
	n := len(a.Content)
	if n < 2 || len(b.Content) < 2 || a.Content[n-2].Value != chain[0] || b.Content[0].Value != chain[0] ||
		a.Content[n-2].Kind != yaml.ScalarNode || b.Content[0].Kind != yaml.ScalarNode {
		return nil, false
	}
	inner, ok := joinMappings(a.Content[n-1], b.Content[1], chain[1:], indent)
	if !ok {
		return nil, false
	}
	joined.Content = make([]*yaml.Node, 0, n+len(b.Content)-2)
	joined.Content = append(joined.Content, a.Content[:n-1]...)
	joined.Content = append(joined.Content, inner)
	joined.Content = append(joined.Content, b.Content[2:]...)
	return &joined, true
}

// line is one line of a text: where it starts, its indentation, and its
// text past that (without the line break).
type line struct {
	start, indent int
	text          []byte
}

// lineAt returns the line that starts at off.
func lineAt(data []byte, off int) line {
	end := bytes.IndexByte(data[off:], '\n')
	if end < 0 {
		end = len(data)
	} else {
		end += off
	}
	text := bytes.TrimRight(data[off:end], "\r")
	indent := 0
	for indent < len(text) && text[indent] == ' ' {
		indent++
	}
	return line{start: off, indent: indent, text: text[indent:]}
}

// blank reports whether a line holds nothing but a comment.
func (l line) blank() bool { return len(l.text) == 0 || l.text[0] == '#' }

// cutYAML finds where to cut a block-style YAML text: at the first line
// past its middle that is a key of a mapping whose enclosing keys are
// each alone on their line (`paths:`), searching on for a while when the
// line there is not.
func cutYAML(data []byte) *cut {
	if !cuttableYAML(data) {
		return nil
	}
	at := nextCut(data, len(data)/2)
	if at == nil {
		return nil
	}
	c := &cut{head: data[:at.start], chain: at.keys(), indent: at.indent}
	c.tail = append(at.prefix(len(data)-at.start), data[at.start:]...)
	return c
}

// cuttableYAML reports whether data is a large block-style YAML text of
// one document, which cutPoints may cut.
func cuttableYAML(data []byte) bool {
	if len(data) < minSplit || looksLikeJSON(data) || bytes.HasPrefix(data, []byte("\ufeff")) ||
		bytes.HasPrefix(data, []byte("%")) || bytes.Contains(data, []byte("\n---")) ||
		bytes.Contains(data, []byte("\n...")) || bytes.Contains(data, []byte("\n%")) {
		return false // directives or more than one document
	}
	if bytes.HasPrefix(data, []byte("---")) && !bytes.HasPrefix(data, []byte("---\n")) && !bytes.HasPrefix(data, []byte("---\r\n")) {
		return false // a document on the line of its marker
	}
	return true
}

// cutPoint is a place a YAML text can be cut: before the line at start,
// a key of the mapping the chain of keys leads to.
type cutPoint struct {
	start, indent int    // the line's offset and the key's column (0-based)
	lineNo        int    // the line's number, from 0
	chain         []line // the keys of the enclosing mappings, innermost first
}

// nextCut finds the first line starting past off where data can be cut,
// searching on for a while, or returns nil.
func nextCut(data []byte, off int) *cutPoint {
	next := bytes.IndexByte(data[off:], '\n')
	if next < 0 {
		return nil
	}
	off += next + 1
	for tries := 0; tries < 1000 && off < len(data); tries++ {
		l := lineAt(data, off)
		if c := cutAt(data, l); c != nil {
			return c
		}
		off += l.indent + len(l.text) + 1
		if off < len(data) && data[off-1] == '\r' {
			off++
		}
		for off < len(data) && data[off-1] != '\n' {
			off++
		}
	}
	return nil
}

// cutAt is the cut before l when l is a key whose enclosing mappings'
// keys are each alone on their line, or nil.
func cutAt(data []byte, l line) *cutPoint {
	if l.blank() || !isKeyLine(l.text) {
		return nil
	}
	// The enclosing keys: going up, each nearest line indented less than
	// the one below it.
	var chain []line
	indent := l.indent
	sibling := false // a key of the same mapping comes before l
	for off := l.start; indent > 0 || !sibling; {
		if off == 0 {
			return nil
		}
		start := bytes.LastIndexByte(data[:off-1], '\n') + 1
		p := lineAt(data, start)
		off = start
		if p.blank() {
			continue
		}
		if p.indent >= indent {
			sibling = true
			continue
		}
		if !sibling {
			return nil // l is its mapping's first key: the head would end in a key without a value
		}
		if _, ok := aloneKey(p.text); !ok {
			return nil // a block scalar, a flow collection, a list: not a mapping of keys
		}
		chain = append(chain, p)
		indent = p.indent
	}
	lineNo := bytes.Count(data[:l.start], []byte{'\n'})
	if lineNo < len(chain) {
		return nil
	}
	return &cutPoint{start: l.start, indent: l.indent, lineNo: lineNo, chain: chain}
}

// keys are the keys of the chain, outermost first.
func (c *cutPoint) keys() []string {
	keys := make([]string, 0, len(c.chain))
	for i := len(c.chain) - 1; i >= 0; i-- {
		key, _ := aloneKey(c.chain[i].text)
		keys = append(keys, key)
	}
	return keys
}

// prefix is what a text starting at the cut begins with, room for more
// bytes after it: empty lines but for the chain's keys on the lines just
// above the cut, so that every node after it is where the whole text has
// it.
func (c *cutPoint) prefix(more int) []byte {
	size := c.lineNo - len(c.chain)
	for _, l := range c.chain {
		size += l.indent + len(l.text) + 1
	}
	b := make([]byte, 0, size+more)
	for range c.lineNo - len(c.chain) {
		b = append(b, '\n')
	}
	for i := len(c.chain) - 1; i >= 0; i-- {
		b = append(b, bytes.Repeat([]byte{' '}, c.chain[i].indent)...)
		b = append(b, c.chain[i].text...)
		b = append(b, '\n')
	}
	return b
}

// isKeyLine reports whether a line's text (past its indentation) reads as
// a mapping key: a plain or quoted scalar followed by a colon, then a
// space or the line's end.
func isKeyLine(text []byte) bool {
	_, rest, ok := splitKey(text)
	return ok && (len(rest) == 0 || rest[0] == ' ')
}

// aloneKey returns the key of a line that is a key with nothing after it
// but a comment (a mapping follows on the lines below).
func aloneKey(text []byte) (string, bool) {
	key, rest, ok := splitKey(text)
	rest = bytes.TrimLeft(rest, " ")
	if !ok || len(rest) > 0 && rest[0] != '#' {
		return "", false
	}
	return key, true
}

// splitKey reads a plain key or a quoted key without escapes, and what
// follows its colon.
func splitKey(text []byte) (key string, rest []byte, ok bool) {
	if len(text) == 0 {
		return "", nil, false
	}
	switch q := text[0]; q {
	case '"', '\'':
		end := bytes.IndexByte(text[1:], q)
		if end < 0 || bytes.IndexByte(text[1:end+1], '\\') >= 0 {
			return "", nil, false
		}
		after := text[end+2:]
		if len(after) == 0 || after[0] != ':' {
			return "", nil, false
		}
		return string(text[1 : end+1]), after[1:], true
	case '-', '?', '[', ']', '{', '}', ',', '#', '&', '*', '!', '|', '>', '%', '@', '`':
		return "", nil, false
	}
	for i := 0; i < len(text); i++ {
		if text[i] == ':' && (i+1 == len(text) || text[i+1] == ' ') {
			key := bytes.TrimRight(text[:i], " ")
			if bytes.Contains(key, []byte(" #")) {
				return "", nil, false
			}
			return string(key), text[i+1:], true
		}
	}
	return "", nil, false
}

// cutJSON finds where to cut a JSON text: before the first member past
// its middle of an object that only objects enclose. The head is closed
// with the braces still open there; the tail opens them again, on its
// first line, as `{"paths":{`, before the member's line and column.
// Text that is not plainly JSON (a comment, a quote YAML reads) is not
// cut.
func cutJSON(data []byte) *cut {
	if len(data) < minSplit {
		return nil
	}
	type level struct {
		object bool
		key    []byte // an object's last key
	}
	var stack []level
	inString, escaped, wantKey := false, false, false
	keyStart := 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				if wantKey {
					stack[len(stack)-1].key = data[keyStart+1 : i]
					wantKey = false
				}
			}
			continue
		}
		switch c {
		case '"':
			inString, keyStart = true, i
		case '{':
			stack = append(stack, level{object: true})
			wantKey = true
		case '[':
			stack = append(stack, level{})
		case '}', ']':
			if len(stack) == 0 {
				return nil
			}
			stack = stack[:len(stack)-1]
			wantKey = false
		case ',':
			if len(stack) == 0 || !stack[len(stack)-1].object {
				continue
			}
			wantKey = true
			if i < len(data)/2 {
				continue
			}
			chain := make([]string, 0, len(stack)-1)
			for _, l := range stack[:len(stack)-1] {
				if !l.object || bytes.IndexByte(l.key, '\\') >= 0 {
					chain = nil
					break
				}
				chain = append(chain, string(l.key))
			}
			if chain != nil {
				return cutJSONAt(data, i, chain)
			}
		case ':', ' ', '\t', '\n':
		case '\r':
			if i+1 == len(data) || data[i+1] != '\n' {
				return nil // a line break JSON does not have
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '+' || c == '-') {
				return nil
			}
		}
	}
	return nil
}

// cutJSONAt cuts data at the comma at i, between two members of the
// object that chain leads to.
func cutJSONAt(data []byte, comma int, chain []string) *cut {
	start := comma + 1
	for start < len(data) && bytes.IndexByte([]byte(" \t\r\n"), data[start]) >= 0 {
		start++
	}
	head := make([]byte, 0, comma+len(chain)+1)
	head = append(head, data[:comma]...)
	head = append(head, bytes.Repeat([]byte{'}'}, len(chain)+1)...)

	open := []byte{'{'}
	for _, key := range chain {
		open = append(open, '"')
		open = append(open, key...)
		open = append(open, '"', ':', '{')
	}
	lineStart := bytes.LastIndexByte(data[:start], '\n') + 1
	lines := bytes.Count(data[:lineStart], []byte{'\n'})
	col := utf8.RuneCount(data[lineStart:start])
	tail := make([]byte, 0, len(open)+lines+col+len(data)-start)
	tail = append(tail, open...)
	if lines == 0 {
		if col < utf8.RuneCount(open) {
			return nil
		}
		col -= utf8.RuneCount(open)
	}
	tail = append(tail, bytes.Repeat([]byte{'\n'}, lines)...)
	tail = append(tail, bytes.Repeat([]byte{' '}, col)...)
	tail = append(tail, data[start:]...)
	return &cut{head: head, tail: tail, chain: chain, indent: -1}
}
