package load

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// posIndex is what the locator needs of a spec's node tree, kept once
// kin-openapi has decoded the tree: each mapping's keys, each list's
// elements, where each is written and each mapping's $ref. The tree itself
// (stripe: 174,000 nodes of 160 bytes, 26 MiB) would stay in memory through
// every later stage for the handful of warnings that need a position; the
// index is a fifth of that. It places a pointer exactly as walkYAML does
// on the tree (TestPosIndexPlacesAsTheTree), for a spec in one file: a $ref
// to another file is not followed.
type posIndex struct {
	nodes []posNode // nodes[0] is the document's mapping
	refs  []string  // the mappings' $refs; refs[0] is no $ref
	// names are the keys, each once: a node holds its key's number (most
	// of stripe's 100,000 keys are a few dozen keywords).
	names []string
	// keys numbers each key while the index is made.
	keys map[string]uint32
}

// key is the number of key k, given one the first time k is seen.
func (x *posIndex) key(k string) uint32 {
	if id, ok := x.keys[k]; ok {
		return id
	}
	if x.keys == nil {
		x.keys = map[string]uint32{}
	}
	id := uint32(len(x.names))
	x.names = append(x.names, k)
	x.keys[k] = id
	return id
}

// posNode is a mapping's member, or a list's element, and its value: 24
// bytes, as stripe's index has about 100,000 of them and it stays in
// memory for the whole run.
type posNode struct {
	key       uint32 // the member's key: names[key]; 0 for an element
	line, col int32  // where the member's key is; an element's first key, or the element
	first, n  int32  // the value's members or elements: nodes[first : first+n]
	// refKind is the value's $ref, refs[refKind&refMask] when not 0,
	// and its yaml.Kind in the bits above.
	refKind uint32
}

const (
	refMask   = 1<<kindShift - 1
	kindShift = 28
)

// ref is the number of the value's $ref in refs (0: none).
func (n posNode) ref() int { return int(n.refKind & refMask) }

// kind is the value's yaml.Kind.
func (n posNode) kind() yaml.Kind { return yaml.Kind(n.refKind >> kindShift) }

// setKind records the value's yaml.Kind.
func (n *posNode) setKind(k yaml.Kind) { n.refKind = n.refKind&refMask | uint32(k)<<kindShift }

// setRef gives node i the $ref ref.
func (x *posIndex) setRef(i int, ref string) {
	if len(x.refs) > refMask {
		return // past 2^28 $refs a mapping's is not recorded: it is not followed
	}
	x.nodes[i].refKind = x.nodes[i].refKind&^refMask | uint32(len(x.refs))
	x.refs = append(x.refs, ref)
}

// newPosIndex indexes a document node.
func newPosIndex(doc *yaml.Node) *posIndex {
	x := &posIndex{nodes: make([]posNode, 1, 1+countMembers(doc.Content[0])), refs: []string{""}, names: []string{""}}
	x.fill(0, doc.Content[0])
	x.keys = nil
	return x
}

// countMembers counts the members and elements under n, for the index to
// be allocated once.
func countMembers(n *yaml.Node) int {
	count := 0
	switch n.Kind {
	case yaml.MappingNode:
		count = len(n.Content) / 2
		for i := 1; i < len(n.Content); i += 2 {
			count += countMembers(n.Content[i])
		}
	case yaml.SequenceNode:
		count = len(n.Content)
		for _, e := range n.Content {
			count += countMembers(e)
		}
	}
	return count
}

// fill describes n as the value of nodes[i], its members or elements
// after the ones there are.
func (x *posIndex) fill(i int, n *yaml.Node) {
	x.nodes[i].setKind(n.Kind)
	switch n.Kind {
	case yaml.MappingNode:
		first, count := len(x.nodes), len(n.Content)/2
		x.nodes[i].first, x.nodes[i].n = int32(first), int32(count)
		x.nodes = x.nodes[:first+count]
		for j := range count {
			k, v := n.Content[2*j], n.Content[2*j+1]
			x.nodes[first+j].key = x.key(k.Value)
			x.nodes[first+j].line, x.nodes[first+j].col = int32(k.Line), int32(k.Column)
			if k.Value == "$ref" && v.Kind == yaml.ScalarNode && x.nodes[i].ref() == 0 {
				x.setRef(i, v.Value)
			}
		}
		for j := range count {
			x.fill(first+j, n.Content[2*j+1])
		}
	case yaml.SequenceNode:
		first, count := len(x.nodes), len(n.Content)
		x.nodes[i].first, x.nodes[i].n = int32(first), int32(count)
		x.nodes = x.nodes[:first+count]
		for j, e := range n.Content {
			at := e
			if e.Kind == yaml.MappingNode && len(e.Content) > 0 {
				at = e.Content[0] // as walkYAML places an element
			}
			x.nodes[first+j].line, x.nodes[first+j].col = int32(at.Line), int32(at.Column)
		}
		for j, e := range n.Content {
			x.fill(first+j, e)
		}
	}
}

// member returns the index of the first member of mapping i named key,
// or -1.
func (x *posIndex) member(i int, key string) int {
	n := x.nodes[i]
	for j := n.first; j < n.first+n.n; j++ {
		if x.names[x.nodes[j].key] == key {
			return int(j)
		}
	}
	return -1
}

// element returns the index of list i's element tok, or -1.
func (x *posIndex) element(i int, tok string) int {
	n := x.nodes[i]
	if j, err := strconv.Atoi(tok); err == nil && j >= 0 && j < int(n.n) {
		return int(n.first) + j
	}
	return -1
}

// place is walkYAML for one pointer: the node of the deepest token found,
// following $refs, or -1.
func (x *posIndex) place(toks []string) int {
	at, cur := -1, 0
	for i, hops := 0, 0; i < len(toks) && hops < 32; {
		next := -1
		switch n := x.nodes[cur]; n.kind() {
		case yaml.MappingNode:
			if next = x.member(cur, toks[i]); next < 0 && n.ref() != 0 {
				target := x.resolve(x.refs[n.ref()], 0)
				if target < 0 {
					return at
				}
				cur = target
				hops++
				continue
			}
		case yaml.SequenceNode:
			next = x.element(cur, toks[i])
		}
		if next < 0 {
			break
		}
		at, cur = next, next
		i++
	}
	return at
}

// resolve is repairer.resolve for a $ref within the document: the node it
// points at, or -1.
func (x *posIndex) resolve(ref string, depth int) int {
	if depth > 32 {
		return -1
	}
	p, frag, _ := strings.Cut(ref, "#")
	if p != "" {
		return -1 // another file
	}
	if frag == "" {
		return 0
	}
	if frag[0] != '/' {
		return -1
	}
	return x.resolveFrom(0, strings.Split(frag[1:], "/"), depth)
}

// resolveFrom resolves the tokens left of a pointer from node cur, which
// a $ref on the way led to.
func (x *posIndex) resolveFrom(cur int, toks []string, depth int) int {
	if depth > 32 {
		return -1
	}
	for i, tok := range toks {
		tok = unescapeToken(tok)
		if u, err := url.PathUnescape(tok); err == nil {
			tok = u
		}
		next := -1
		switch n := x.nodes[cur]; n.kind() {
		case yaml.MappingNode:
			if next = x.member(cur, tok); next < 0 && n.ref() != 0 {
				via := x.resolve(x.refs[n.ref()], depth+1)
				if via < 0 {
					return -1
				}
				return x.resolveFrom(via, toks[i:], depth+1)
			}
		case yaml.SequenceNode:
			next = x.element(cur, tok)
		}
		if next < 0 {
			return -1
		}
		cur = next
	}
	return cur
}

// indexBuilder makes the index of a tree given in pieces, as the tree the
// pieces join to (joinMappings) would be indexed (newPosIndex), without
// that tree ever being whole (stream.go). A piece's nodes are indexed as
// they come; the mappings the pieces share (the document's, and those the
// cuts are in: `paths`, `components` and `schemas`) collect their members
// from each piece and are laid out when the last has come.
type indexBuilder struct {
	x    *posIndex
	root *sharedMapping
}

// sharedMapping is a mapping whose members come from more than one piece.
type sharedMapping struct{ members []sharedMember }

// sharedMember is a member of a shared mapping: the index of its node
// (key and position, and its value when that is in one piece), and the
// shared mapping that is its value otherwise; ref is a "$ref" member's
// scalar value.
type sharedMember struct {
	at     int
	shared *sharedMapping
	ref    string
	isRef  bool
}

// newIndexBuilder starts an index with room for about size nodes.
func newIndexBuilder(size int) *indexBuilder {
	return &indexBuilder{x: &posIndex{nodes: make([]posNode, 1, 1+size), refs: []string{""}, names: []string{""}}, root: &sharedMapping{}}
}

// add indexes a piece's mapping (the document's, holding the keys of its
// start chain, those of its end chain, and what lies between the two
// cuts): the first member down the start chain continues the previous
// piece's last, and the last down the end chain goes on in the next.
func (b *indexBuilder) add(m *yaml.Node, start, end []string) {
	b.x.nodes = slices.Grow(b.x.nodes, countMembers(m))
	b.addMembers(b.root, m, 0, start, end, true, true)
}

func (b *indexBuilder) addMembers(s *sharedMapping, m *yaml.Node, depth int, start, end []string, onStart, onEnd bool) {
	last := len(m.Content)/2 - 1
	for j := 0; j <= last; j++ {
		k, v := m.Content[2*j], m.Content[2*j+1]
		continues := onStart && j == 0 && depth < len(start)
		goesOn := onEnd && j == last && depth < len(end)
		if continues {
			b.addMembers(s.members[len(s.members)-1].shared, v, depth+1, start, end, true, goesOn)
			continue
		}
		at := len(b.x.nodes)
		b.x.nodes = append(b.x.nodes, posNode{key: b.x.key(k.Value), line: int32(k.Line), col: int32(k.Column)})
		member := sharedMember{at: at}
		if k.Value == "$ref" && v.Kind == yaml.ScalarNode {
			member.ref, member.isRef = v.Value, true
		}
		if goesOn {
			member.shared = &sharedMapping{}
			s.members = append(s.members, member)
			b.addMembers(member.shared, v, depth+1, start, end, false, true)
			continue
		}
		b.x.fill(at, v)
		s.members = append(s.members, member)
	}
}

// index lays out the shared mappings and returns the index.
func (b *indexBuilder) index() *posIndex {
	b.layout(0, b.root)
	b.x.keys = nil
	return b.x
}

// layout makes nodes[i] the shared mapping s: its members copied after
// the nodes there are, as fill lays out a mapping.
func (b *indexBuilder) layout(i int, s *sharedMapping) {
	first := len(b.x.nodes)
	n := &b.x.nodes[i]
	n.first, n.n = int32(first), int32(len(s.members))
	n.setKind(yaml.MappingNode)
	for _, m := range s.members {
		if m.isRef {
			b.x.setRef(i, m.ref)
			break
		}
	}
	for _, m := range s.members {
		b.x.nodes = append(b.x.nodes, b.x.nodes[m.at])
	}
	for j, m := range s.members {
		if m.shared != nil {
			b.layout(first+j, m.shared)
		}
	}
}
