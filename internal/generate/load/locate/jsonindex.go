package locate

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	sjson "github.com/segmentio/encoding/json"
)

// jsonIndex is where every member and element of a JSON text is, found in
// one pass of a tokenizer, for the locator to place JSON pointers in
// (locate.go). It is small beside the text (kubernetes' 4 MB: 70,000
// nodes, 1.7 MB).
type jsonIndex struct {
	data  []byte
	nodes []jsonNode // nodes[0] is the document's value; the rest in document order
	// byKey holds the members of the large objects place looked in, by
	// key (keyed); the Locator's lock guards it.
	byKey map[int32]map[string][]int32
}

// jsonNode is a value of the text: the document, a member of an object or
// an element of an array.
type jsonNode struct {
	keyAt, keyEnd int32 // a member's key, its quotes included; keyAt < 0 for an element or the document
	at, end       int32 // the value
	next          int32 // the container's next member or element; 0 after the last
	n             int32 // a container's members or elements, the first at this node's index + 1
	kind          byte  // '{', '[', or 0 for a scalar
}

// newJSONIndex indexes data, or returns nil when it is not one JSON value
// the tokenizer can read. The tokenizer checks tokens, not the grammar
// between them (a missing colon passes): it is asked only about texts
// kin-openapi has read.
func newJSONIndex(data []byte) *jsonIndex {
	x := &jsonIndex{data: data, nodes: make([]jsonNode, 0, 1+bytes.Count(data, []byte{':'}))}
	type open struct{ node, last int32 }
	var stack []open
	keyAt, keyEnd := int32(-1), int32(-1)
	t := sjson.NewTokenizer(data)
	for t.Next() {
		end := int32(len(data) - t.Remaining())
		at := end - int32(len(t.Value))
		switch t.Delim {
		case ':', ',':
			continue
		case '}', ']':
			if len(stack) == 0 {
				return nil
			}
			x.nodes[stack[len(stack)-1].node].end = end
			stack = stack[:len(stack)-1]
			continue
		}
		if t.IsKey {
			keyAt, keyEnd = at, end
			continue
		}
		if len(stack) == 0 && len(x.nodes) > 0 {
			return nil // a second value
		}
		i := int32(len(x.nodes))
		node := jsonNode{keyAt: -1, keyEnd: -1, at: at, end: end}
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			if x.nodes[top.node].kind == '{' {
				node.keyAt, node.keyEnd = keyAt, keyEnd
			}
			if top.last > 0 {
				x.nodes[top.last].next = i
			}
			top.last = i
			x.nodes[top.node].n++
		}
		keyAt, keyEnd = -1, -1
		if t.Delim == '{' || t.Delim == '[' {
			node.kind = byte(t.Delim)
			stack = append(stack, open{node: i})
		}
		x.nodes = append(x.nodes, node)
	}
	if t.Err != nil || len(stack) > 0 || len(x.nodes) == 0 {
		return nil
	}
	return x
}

// children calls fn for each member or element of node i, in order, until
// fn returns false.
func (x *jsonIndex) children(i int32, fn func(c int32) bool) {
	if x.nodes[i].n == 0 {
		return
	}
	for c := i + 1; ; c = x.nodes[c].next {
		if !fn(c) || x.nodes[c].next == 0 {
			return
		}
	}
}

// rawKey is node i's key as written, without its quotes.
func (x *jsonIndex) rawKey(i int32) []byte {
	return x.data[x.nodes[i].keyAt+1 : x.nodes[i].keyEnd-1]
}

// plainKey reports whether node i's key reads as written: no escape, and
// valid UTF-8 (encoding/json replaces what is not).
func (x *jsonIndex) plainKey(i int32) bool {
	k := x.rawKey(i)
	return bytes.IndexByte(k, '\\') < 0 && utf8.Valid(k)
}

// key is node i's key as encoding/json reads it.
func (x *jsonIndex) key(i int32) string {
	if x.plainKey(i) {
		return string(x.rawKey(i))
	}
	var s string
	if json.Unmarshal(x.data[x.nodes[i].keyAt:x.nodes[i].keyEnd], &s) != nil {
		return string(x.rawKey(i))
	}
	return s
}

// keyIs reports whether node i's key reads as name.
func (x *jsonIndex) keyIs(i int32, name string) bool {
	if x.plainKey(i) {
		return string(x.rawKey(i)) == name
	}
	return x.key(i) == name
}

// place finds the node a JSON pointer's tokens lead to, or the deepest one
// on their way (0 when not even the first is there): of a path written
// twice, the last. An array's element is named by its index as written by
// strconv.Itoa.
func (x *jsonIndex) place(toks []string) int32 {
	best, depth := int32(0), 0
	var walk func(n int32, d int)
	visit := func(c int32, d int) {
		if d+1 > depth || d+1 == depth && c > best {
			best, depth = c, d+1
		}
		walk(c, d+1)
	}
	walk = func(n int32, d int) {
		if d == len(toks) {
			return
		}
		tok := toks[d]
		if x.nodes[n].kind == '{' && x.nodes[n].n >= bigObject {
			for _, c := range x.keyed(n)[tok] {
				visit(c, d)
			}
			return
		}
		i := -1
		x.children(n, func(c int32) bool {
			i++
			switch x.nodes[n].kind {
			case '{':
				if !x.keyIs(c, tok) {
					return true
				}
			case '[':
				if strconv.Itoa(i) != tok {
					return true
				}
			}
			visit(c, d)
			return true
		})
	}
	walk(0, 0)
	return best
}

// bigObject is how many members an object has before place finds a key
// among them in a map (keyed) rather than by reading each: a warning for
// each path of a spec with thousands of them read every path for each
// (8,000: a second).
const bigObject = 64

// keyed is object n's members by key, each key's in order, made the first
// time it is asked for.
func (x *jsonIndex) keyed(n int32) map[string][]int32 {
	if m, ok := x.byKey[n]; ok {
		return m
	}
	m := make(map[string][]int32, x.nodes[n].n)
	x.children(n, func(c int32) bool {
		k := x.key(c)
		m[k] = append(m[k], c)
		return true
	})
	if x.byKey == nil {
		x.byKey = map[int32]map[string][]int32{}
	}
	x.byKey[n] = m
	return m
}
