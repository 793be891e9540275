package load

import (
	"bytes"
	"encoding/json"
	"net/url"
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
// only when a warning needs it. A JSON spec is scanned with encoding/json's
// tokenizer, for all the pointers at once (kubernetes' 4 MB: ~50 ms, where
// a YAML parse of it takes ~230 ms); in a YAML spec, and for a schema's
// keyword in any, pointers are walked in the index of the tree the loader
// decoded (posindex.go) or, without one, in the spec parsed here, $refs on
// the way (a path item in another file) followed.

type locator struct {
	path    string
	data    []byte
	swagger bool
	fetch   *fetcher
	loc     *url.URL
	// tree is the text as the loader parsed it (tree.go), nil when it did
	// not, until it is indexed (posindex.go); data is then nil for YAML.
	// indexing is set when the index is under way (read by the loading
	// goroutine only).
	tree     *yaml.Node
	index    *posIndex
	indexing bool

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
	if l.data != nil && looksLikeJSON(l.data) {
		return l.scanJSON(tokens)
	}
	return l.walkYAML(tokens)
}

// tokens splits a pointer, spelled as in OpenAPI 3, into the tokens of the
// spec as written.
func (l *locator) tokens(ptr string) []string {
	ptr = strings.TrimPrefix(ptr, "#")
	if l.swagger {
		for v3, v2 := range map[string]string{"/components/schemas/": "/definitions/", "/components/parameters/": "/parameters/",
			"/components/responses/": "/responses/", "/components/securitySchemes/": "/securityDefinitions/"} {
			if rest, ok := strings.CutPrefix(ptr, v3); ok {
				ptr = v2 + rest
			}
		}
	}
	if ptr == "" || ptr == "/" {
		return nil
	}
	toks := strings.Split(ptr[1:], "/")
	for i, t := range toks {
		toks[i] = unescapeToken(t)
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

// scanJSON places each pointer in a JSON spec in one pass over its tokens,
// at the key (or array element) it names or the deepest one on its way.
func (l *locator) scanJSON(want map[string][]string) map[string]diag.Pos {
	// Every prefix of a wanted pointer, as a path of tokens joined by NUL.
	prefixes := map[string]bool{"": true}
	for _, toks := range want {
		for i := 1; i <= len(toks); i++ {
			prefixes[strings.Join(toks[:i], "\x00")] = true
		}
	}
	found := map[string]diag.Pos{}
	cur := lineCursor{data: l.data, line: 1, col: 1}
	dec := json.NewDecoder(bytes.NewReader(l.data))
	dec.UseNumber()

	// A frame is an open object or array: its path (tokens joined by NUL),
	// whether that path leads to a wanted pointer (else its contents are
	// only read past), and what comes next in it.
	type frame struct {
		path    string
		wanted  bool
		object  bool
		wantKey bool   // an object: a key comes next
		child   string // an object: the path of the value after the key
		index   int    // an array: the next element's index
	}
	var stack []frame
	join := func(path, tok string) string {
		if path == "" {
			return tok
		}
		return path + "\x00" + tok
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey && tok != json.Delim('}') {
			top := &stack[n-1]
			top.wantKey = false
			k, _ := tok.(string)
			top.child = join(top.path, k)
			if top.wanted && prefixes[top.child] {
				found[top.child] = cur.at(l.path, tokenStart(l.data, int(start)))
			}
			continue
		}
		if tok == json.Delim('}') || tok == json.Delim(']') {
			stack = stack[:len(stack)-1]
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].wantKey = true
			}
			continue
		}
		// A value: of the document, of an object's key, or an array's next.
		path, wanted := "", true
		if n := len(stack); n > 0 {
			top := &stack[n-1]
			if top.object {
				path = top.child
				top.wantKey = true
			} else {
				path = join(top.path, strconv.Itoa(top.index))
				top.index++
				if top.wanted && prefixes[path] {
					found[path] = cur.at(l.path, tokenStart(l.data, int(start)))
				}
			}
			wanted = top.wanted && prefixes[path]
		}
		if tok == json.Delim('{') || tok == json.Delim('[') {
			stack = append(stack, frame{path: path, wanted: wanted, object: tok == json.Delim('{'), wantKey: tok == json.Delim('{')})
		}
	}
	out := map[string]diag.Pos{}
	for ptr, toks := range want {
		for i := len(toks); i > 0; i-- {
			if p, ok := found[strings.Join(toks[:i], "\x00")]; ok {
				out[ptr] = p
				break
			}
		}
	}
	return out
}

// tokenStart is where the token read from offset start begins, past the
// whitespace and separators before it.
func tokenStart(data []byte, start int) int {
	for start < len(data) && strings.IndexByte(" \t\r\n,:", data[start]) >= 0 {
		start++
	}
	return start
}

// lineCursor turns increasing byte offsets into lines and columns (in
// runes, as YAML's marks count them), in one pass over the text.
type lineCursor struct {
	data      []byte
	off       int
	line, col int
}

func (c *lineCursor) at(file string, off int) diag.Pos {
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
