// Package locate finds where a JSON pointer is written in a spec's text.
// Some warnings know the pointer of what they are about but not its line:
// kin-openapi keeps no positions through its Swagger 2.0 conversion, a
// spec in one file is loaded without its origins (they cost as much as the
// load), and a few of its validation messages name a path or a component
// only. The locator finds those pointers in the text, parsed once with the
// YAML parser kin-openapi reads it with, $refs on the way followed; a JSON
// spec's are placed in the index of its members instead (jsonindex.go:
// kubernetes' 4 MB in ~10 ms and 2 MB, where a YAML parse takes ~0.6 s and
// ~100 MB).
package locate

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

	"github.com/go-openapi/jsonpointer"
	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/load/specfile"
)

// Locator places pointers in the text of one spec. It is safe for
// concurrent use.
type Locator struct {
	path    string
	data    []byte
	swagger bool
	// Layout points OpenAPI 3 pointers back into a Swagger 2.0 spec
	// (swagger2_layout.go); nil when its decode did not give one.
	Layout *Swagger2Layout
	fetch  *specfile.Reader
	loc    *url.URL
	// json indexes a JSON spec's members (jsonindex.go), made when first
	// asked: a JSON text's pointers are placed in it, in a fraction of a
	// YAML parse's time and memory.
	json *jsonIndex

	mu    sync.Mutex
	files *specfile.Set // its files and $ref resolution
}

// New is the locator of the spec at path (loc as a URL) whose text is
// data, its $refs read through reader; swagger says it is Swagger 2.0,
// whose pointers are spelled as in OpenAPI 3 and rewritten through Layout.
func New(path string, data []byte, swagger bool, reader *specfile.Reader, loc *url.URL) *Locator {
	return &Locator{path: path, data: data, swagger: swagger, fetch: reader, loc: loc}
}

// Find returns the positions of the pointers it could place.
func (l *Locator) Find(ptrs []string) map[string]diag.Pos {
	l.mu.Lock()
	defer l.mu.Unlock()
	tokens := map[string][]string{}
	for _, p := range ptrs {
		if _, ok := tokens[p]; !ok {
			tokens[p] = l.tokens(p)
		}
	}
	if l.json == nil && specfile.LooksLikeJSON(l.data) {
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
func (l *Locator) tokens(ptr string) []string {
	ptr = strings.TrimPrefix(ptr, "#")
	if ptr == "" || ptr == "/" {
		return nil
	}
	toks := strings.Split(ptr[1:], "/")
	for i, t := range toks {
		toks[i] = jsonpointer.Unescape(t)
	}
	if l.swagger {
		toks = l.Layout.rewrite(toks)
	}
	return toks
}

// Prepare readies what the warnings' positions will be read from, on the
// other core while the stages that follow run: for a JSON text the index
// find reads. A YAML text is parsed when a warning first needs a position
// (find): its nodes are ~12 times the text (a 50,000-operation spec's
// 22 MB, 250 MB more at the peak beside the document and the model), and
// most runs place few warnings or none.
func (l *Locator) Prepare() {
	l.mu.Lock()
	go func() {
		defer l.mu.Unlock()
		l.prepare()
	}()
}

func (l *Locator) prepare() {
	if specfile.LooksLikeJSON(l.data) {
		l.json = newJSONIndex(l.data)
	}
}

// root is the spec's parsed text, or nil when it does not parse.
func (l *Locator) root() *specfile.File {
	if l.files == nil {
		l.files = specfile.NewSet(l.fetch, l.path, &specfile.File{Loc: l.loc, Key: specfile.Key(l.loc), Show: l.path, Data: l.data})
	}
	root := l.files.ByKey[specfile.Key(l.loc)]
	if l.files.Parse(root) != nil {
		return nil
	}
	return root
}

// walkYAML places each pointer in the parsed spec, following $refs.
func (l *Locator) walkYAML(want map[string][]string) map[string]diag.Pos {
	root := l.root()
	if root == nil {
		return nil
	}
	out := map[string]diag.Pos{}
	// A large mapping's keys are looked up in a map of them, made the
	// first time (as in the JSON index's place).
	keyed := map[*yaml.Node]map[string]int{}
	keyIndex := func(n *yaml.Node, key string) int {
		if len(n.Content) < 2*bigObject {
			return specfile.KeyIndex(n, key)
		}
		m, ok := keyed[n]
		if !ok {
			m = make(map[string]int, len(n.Content)/2)
			for j := len(n.Content)&^1 - 2; j >= 0; j -= 2 {
				m[n.Content[j].Value] = j // the first of a key written twice, as KeyIndex
			}
			keyed[n] = m
		}
		if j, ok := m[key]; ok {
			return j
		}
		return -1
	}
	for ptr, toks := range want {
		f, n := root, root.Doc.Content[0]
		var at *yaml.Node
		atFile := f
		for i, hops := 0, 0; i < len(toks) && hops < 32; {
			n = specfile.Deref(n)
			if n == nil {
				break
			}
			var next, key *yaml.Node
			switch n.Kind {
			case yaml.MappingNode:
				if j := keyIndex(n, toks[i]); j >= 0 {
					key, next = n.Content[j], n.Content[j+1]
				} else if _, ref := specfile.RefOf(n); ref != nil {
					t, holder, _, err := l.files.Resolve(f, ref.Value)
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
			out[ptr] = diag.Pos{File: atFile.Show, Line: at.Line, Col: at.Column}
		}
	}
	return out
}

// findJSON places each pointer in a JSON spec's index, as a pass over its
// tokens would: at the key (or array element) it names or the deepest one
// on its way, without following $refs; of a path the text writes twice
// (a member twice), the last.
func (l *Locator) findJSON(x *jsonIndex, want map[string][]string) map[string]diag.Pos {
	type placed struct {
		ptr string
		at  int32
	}
	var found []placed
	for ptr, toks := range want {
		if n := x.place(toks); n > 0 {
			if x.nodes[n].keyAt < 0 && x.nodes[n].kind == '{' && x.nodes[n].n > 0 {
				// Where its first member is, as kin-openapi places an
				// object of a list (and walkYAML does).
				n++
			}
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
