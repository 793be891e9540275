package load

import (
	"bytes"
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
)

// Some warnings know the JSON pointer of what they are about but not its
// line: kin-openapi keeps no positions through its Swagger 2.0 conversion,
// and a few of its validation messages name a path or a component only.
// The locator finds those pointers in the spec's text, once per load and
// only when a warning needs it. A JSON spec's pointers are placed in the
// index of its members (jsonindex.go: one pass of a tokenizer, kubernetes'
// 4 MB in ~10 ms, where a YAML parse of it takes ~230 ms; the Swagger 2.0
// decode made it already); in a YAML spec, and for a schema's keyword in
// any, pointers are walked in the index of the tree the loader
// decoded (posindex.go) or, without one, in the spec parsed here, $refs on
// the way (a path item in another file) followed.

type locator struct {
	path    string
	data    []byte
	swagger bool
	// layout points OpenAPI 3 pointers back into a Swagger 2.0 spec
	// (swagger2_layout.go); nil when its decode did not give one.
	layout *swagger2Layout
	fetch  *fetcher
	loc    *url.URL
	// tree is the text as the loader parsed it (tree.go), nil when it did
	// not, until it is indexed (posindex.go); data is then nil for YAML.
	// indexing is set when the index is under way (read by the loading
	// goroutine only).
	tree     *yaml.Node
	index    *posIndex
	indexing bool
	// pieces is a large YAML text cut to be read in pieces (stream.go),
	// in place of tree; nil once read.
	pieces []piece
	// json is a JSON spec's index (jsonindex.go), from the Swagger 2.0
	// decode or made when first asked.
	json *jsonIndex

	mu sync.Mutex
	r  *repairer // its files and $ref resolution, for the YAML side
}

// Locate gives each diagnostic about the root spec that has a JSON
// pointer but no line the position of that pointer, or of the nearest
// part of it the spec has (an OpenAPI 3 pointer into what Swagger 2.0
// wrote differently). It is safe for concurrent use.
func (s *Spec) Locate(ds []diag.Diagnostic) []diag.Diagnostic {
	if s.locate == nil {
		return ds
	}
	var want []string
	for _, d := range ds {
		if d.Pos.Line == 0 && d.Pointer != "" && (d.Pos.File == "" || d.Pos.File == s.Path) {
			want = append(want, d.Pointer)
		}
	}
	if len(want) == 0 {
		return ds
	}
	found := s.locate.find(want)
	for i, d := range ds {
		if d.Pos.Line == 0 && d.Pointer != "" && (d.Pos.File == "" || d.Pos.File == s.Path) {
			if p, ok := found[d.Pointer]; ok {
				ds[i].Pos = p
			}
		}
	}
	return ds
}

// find returns the positions of the pointers it could place.
func (l *locator) find(ptrs []string) map[string]diag.Pos {
	l.mu.Lock()
	defer l.mu.Unlock()
	tokens := map[string][]string{}
	for _, p := range ptrs {
		if _, ok := tokens[p]; !ok {
			tokens[p] = l.tokens(p)
		}
	}
	if l.json == nil && l.data != nil && looksLikeJSON(l.data) {
		l.json = newJSONIndex(l.data)
	}
	if l.json != nil {
		return l.findJSON(l.json, tokens)
	}
	// Text the index cannot read is read as YAML, as kin-openapi read it.
	return l.walkYAML(tokens)
}

// tokens splits a pointer, spelled as in OpenAPI 3, into the tokens of the
// spec as written.
func (l *locator) tokens(ptr string) []string {
	ptr = strings.TrimPrefix(ptr, "#")
	if ptr == "" || ptr == "/" {
		return nil
	}
	toks := strings.Split(ptr[1:], "/")
	for i, t := range toks {
		toks[i] = unescapeToken(t)
	}
	if l.swagger {
		toks = l.layout.rewrite(toks)
	}
	return toks
}

// indexInBackground indexes the tree on another goroutine, which holds
// the lock until the index is there, and lets the tree go.
func (l *locator) indexInBackground() {
	l.indexing = true
	tree := l.tree
	l.mu.Lock()
	go func() {
		defer l.mu.Unlock()
		l.index, l.tree = newPosIndex(tree), nil
		tree = nil // the decode lets its parts go once this returns (decodeDoc)
		if !looksLikeJSON(l.data) {
			l.data = nil // a JSON spec's text is scanned for pointers, a YAML one's no more
		}
	}()
}

// waitIndexed returns once the index under way is made: the indexing
// goroutine holds the lock until then.
func (l *locator) waitIndexed() {
	l.mu.Lock()
	defer l.mu.Unlock()
}

// root is the spec's parsed text, or nil when it does not parse.
func (l *locator) root() *rfile {
	if l.r == nil {
		l.r = &repairer{fetch: l.fetch, specPath: l.path, files: map[string]*rfile{}}
		root := &rfile{loc: l.loc, key: locKey(l.loc), show: l.path, data: l.data, doc: l.tree}
		l.r.files[root.key] = root
	}
	root := l.r.files[locKey(l.loc)]
	if l.r.parse(root) != nil {
		return nil
	}
	return root
}

// walkYAML places each pointer in the parsed spec, following $refs.
func (l *locator) walkYAML(want map[string][]string) map[string]diag.Pos {
	if l.index != nil {
		out := map[string]diag.Pos{}
		for ptr, toks := range want {
			if at := l.index.place(toks); at >= 0 {
				n := l.index.nodes[at]
				out[ptr] = diag.Pos{File: l.path, Line: int(n.line), Col: int(n.col)}
			}
		}
		return out
	}
	root := l.root()
	if root == nil {
		return nil
	}
	out := map[string]diag.Pos{}
	for ptr, toks := range want {
		f, n := root, root.doc.Content[0]
		var at *yaml.Node
		atFile := f
		for i, hops := 0, 0; i < len(toks) && hops < 32; {
			n = deref(n)
			if n == nil {
				break
			}
			var next, key *yaml.Node
			switch n.Kind {
			case yaml.MappingNode:
				if j := keyIndex(n, toks[i]); j >= 0 {
					key, next = n.Content[j], n.Content[j+1]
				} else if _, ref := refOf(n); ref != nil {
					t, holder, _, err := l.r.resolve(f, ref.Value)
					if err != nil {
						break
					}
					f, n = t, *holder
					hops++
					continue
				}
			case yaml.SequenceNode:
				if j, err := strconv.Atoi(toks[i]); err == nil && j >= 0 && j < len(n.Content) {
					key, next = n.Content[j], n.Content[j]
					if next.Kind == yaml.MappingNode && len(next.Content) > 0 {
						// Where its first member is, as kin-openapi places
						// an object of a list: `{` of a flow mapping is not.
						key = next.Content[0]
					}
				}
			}
			if next == nil {
				break
			}
			at, atFile, n = key, f, next
			i++
		}
		if at != nil {
			out[ptr] = diag.Pos{File: atFile.show, Line: at.Line, Col: at.Column}
		}
	}
	return out
}

// findJSON places each pointer in a JSON spec's index, as a pass over its
// tokens would: at the key (or array element) it names or the deepest one
// on its way, without following $refs; of a path the text writes twice
// (a member twice), the last.
func (l *locator) findJSON(x *jsonIndex, want map[string][]string) map[string]diag.Pos {
	type placed struct {
		ptr string
		at  int32
	}
	var found []placed
	for ptr, toks := range want {
		if n := x.place(toks); n > 0 {
			at := x.nodes[n].keyAt
			if at < 0 {
				at = x.nodes[n].at
			}
			found = append(found, placed{ptr, at})
		}
	}
	slices.SortFunc(found, func(a, b placed) int { return cmp.Compare(a.at, b.at) })
	out := make(map[string]diag.Pos, len(found))
	cur := lineCursor{data: x.data, line: 1, col: 1}
	for _, f := range found {
		out[f.ptr] = cur.at(l.path, int(f.at))
	}
	return out
}

// lineCursor turns increasing byte offsets into lines and columns (in
// runes, as YAML's marks count them), in one pass over the text: the
// lines are counted a line break at a time (a break is never part of a
// longer rune), the runes only on the last line.
type lineCursor struct {
	data      []byte
	off       int
	line, col int
}

func (c *lineCursor) at(file string, off int) diag.Pos {
	if end := min(off, len(c.data)); c.off < end {
		if nl := bytes.LastIndexByte(c.data[c.off:end], '\n'); nl >= 0 {
			c.line += bytes.Count(c.data[c.off:c.off+nl], []byte{'\n'}) + 1
			c.col = 1
			c.off += nl + 1
		}
	}
	for c.off < off && c.off < len(c.data) {
		r, size := utf8.DecodeRune(c.data[c.off:])
		if r == '\n' {
			c.line, c.col = c.line+1, 1
		} else {
			c.col++
		}
		c.off += size
	}
	return diag.Pos{File: file, Line: c.line, Col: c.col}
}
