package load

import (
	"bytes"
	"errors"
	"net/url"
	"runtime"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
	yaml "go.yaml.in/yaml/v4"
)

// A large YAML spec is read in pieces, so that its node tree is never
// whole in memory (stripe: 26 MiB of nodes beside a document of 20 MiB,
// which set the generator's peak). The text is cut at mapping keys
// (split.go) into pieces of about pieceSize; the pieces are parsed in
// order on both cores, and each, as it comes, is indexed for the locator
// (indexBuilder), its path items and component schemas decoded with
// kin-openapi's own methods, and its nodes let go. What is left of the
// pieces (the document without its paths and schemas: info, servers,
// other components) is joined and decoded last, as decodeDoc decodes it.
// Anything the pieces cannot be read as (a piece that does not parse or
// join, a merge key, paths, components or schemas twice, a schema named
// twice) makes the loader read the text whole (tree.go), which reads or
// refuses it as before; what kin-openapi refuses is refused as the whole
// tree's decode refuses it.

// pieceSize is about how much text a piece holds. Up to three pieces'
// nodes are held at once (one decoded, two parsed ahead), and the heap
// grows to about twice what it holds: 128 KiB pieces lowered stripe's
// peak by 3 MiB from 256 KiB ones, at the same wall time.
const pieceSize = 128 << 10

// minStreamed is the smallest text read in pieces: below it the whole
// tree is small, and decodeTree reads it at no more cost.
const minStreamed = 512 << 10

// errNotStreamed is a text the pieces could not be read as.
var errNotStreamed = errors.New("the spec is not read in pieces")

// piece is one piece of a text: from a cut (nil: the text's start) to the
// offset to, with the chains of keys down to the mappings the cuts before
// and after it are in.
type piece struct {
	from       *cutPoint
	to         int
	start, end []string
}

// text is the piece's text as a document of its own: the keys of its start
// chain on the lines above its first (cutPoint.prefix), so that its nodes
// are where they are in the whole text.
func (p piece) text(data []byte) []byte {
	if p.from == nil {
		return data[:p.to]
	}
	return append(p.from.prefix(p.to-p.from.start), data[p.from.start:p.to]...)
}

// cutPieces cuts a large block-style YAML text into pieces, or returns nil
// when it is not one or no cut is found.
func cutPieces(data []byte) []piece {
	if len(data) < minStreamed || !cuttableYAML(data) || !plainLineBreaks(data) || bytes.Contains(data, []byte("\u0085")) {
		return nil
	}
	cuts := pieceCuts(data)
	if len(cuts) == 0 {
		return nil
	}
	pieces := make([]piece, 0, len(cuts)+1)
	pieces = append(pieces, piece{to: cuts[0].start, end: cuts[0].keys()})
	for i, c := range cuts {
		p := piece{from: c, to: len(data), start: pieces[i].end}
		if i+1 < len(cuts) {
			p.to, p.end = cuts[i+1].start, cuts[i+1].keys()
		}
		pieces = append(pieces, p)
	}
	return pieces
}

// pieceCuts finds where to cut data into pieces of about pieceSize: at
// the first line past each piece's size that cutAt would cut at, and that
// is a member of the document's mapping, of its paths, of its components
// or of their schemas, so that each path item and component schema is in
// one piece. One pass over the lines keeps the chain of the lines each is
// under (each nearest line indented less), as cutAt finds it going up.
func pieceCuts(data []byte) []*cutPoint {
	var cuts []*cutPoint
	var above []line // the chain of the current line, outermost first
	next, prevIndent := pieceSize, -1
	for off, lineNo := 0, 0; off < len(data); lineNo++ {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += off
		}
		if l := lineAt(data, off); !l.blank() {
			for len(above) > 0 && above[len(above)-1].indent >= l.indent {
				above = above[:len(above)-1]
			}
			// A key that is not its mapping's first (the line before is
			// not above it), under keys alone on their lines.
			if off >= next && prevIndent >= l.indent && isKeyLine(l.text) && bulkChain(above) {
				c := &cutPoint{start: off, indent: l.indent, lineNo: lineNo}
				for i := len(above) - 1; i >= 0; i-- {
					c.chain = append(c.chain, above[i])
				}
				cuts = append(cuts, c)
				next = off + pieceSize
			}
			above = append(above, l)
			prevIndent = l.indent
		}
		off = end + 1
	}
	if len(cuts) > 0 && len(data)-cuts[len(cuts)-1].start < pieceSize/4 {
		cuts = cuts[:len(cuts)-1] // a last piece not worth its own
	}
	return cuts
}

// bulkChain reports whether the lines above a cut are keys alone on
// their lines leading to the document's mapping, its paths, its
// components or their schemas.
func bulkChain(above []line) bool {
	keys := make([]string, 0, 2)
	for _, l := range above {
		key, ok := aloneKey(l.text)
		if !ok || len(keys) == 2 {
			return false
		}
		keys = append(keys, key)
	}
	switch len(keys) {
	case 0:
		return true
	case 1:
		return keys[0] == "paths" || keys[0] == "components"
	}
	return keys[0] == "components" && keys[1] == "schemas"
}

// parsePieces parses the pieces of data on both cores, each handing them
// over in order as the receiver is ready for them; a piece that does not
// parse as one mapping, or that prepareTree refuses, is handed over as
// nil. Closing done stops it.
func parsePieces(data []byte, pieces []piece, done <-chan struct{}) []chan *yaml.Node {
	const workers = 2
	out := make([]chan *yaml.Node, workers)
	for w := range out {
		out[w] = make(chan *yaml.Node)
		go func() {
			for i := w; i < len(pieces); i += workers {
				var doc yaml.Node
				var root *yaml.Node
				if yaml.Unmarshal(pieces[i].text(data), &doc) == nil && prepareTree(&doc) && isMappingDoc(&doc) {
					root = doc.Content[0]
				}
				select {
				case out[w] <- root:
				case <-done:
					return
				}
			}
		}()
	}
	return out
}

// decodeStream decodes a spec cut in pieces (l.pieces) into a document and
// resolves its $refs, as decodeTree does with the whole tree, and leaves
// the locator its index. It returns errNotStreamed for anything the pieces
// cannot be read as, and errTreeRefused, as decodeTree would, for what
// kin-openapi's decode or $ref resolution refuses (the same methods on the
// same nodes: reading the text whole would refuse it too).
func decodeStream(loader *openapi3.Loader, l *locator, location *url.URL) (*openapi3.T, error) {
	pieces := l.pieces
	l.pieces = nil
	done := make(chan struct{})
	defer close(done)
	parsed := parsePieces(l.data, pieces, done)

	build := newIndexBuilder(bytes.Count(l.data, []byte{'\n'}) + 1)
	var skeleton *yaml.Node // the pieces joined, without their paths' and schemas' members
	var pathParts []*openapi3.Paths
	schemas := openapi3.Schemas{}
	names := map[string]bool{}
	pathsTaken, schemasTaken := false, false
	in := newInterner()
	for i, p := range pieces {
		m := <-parsed[i%len(parsed)]
		if m == nil {
			return nil, errNotStreamed
		}
		build.add(m, p.start, p.end)
		if i == 0 {
			skeleton = m
		} else {
			var ok bool
			if skeleton, ok = joinMappings(skeleton, m, p.start, p.from.indent); !ok {
				return nil, errNotStreamed
			}
		}
		paths, components, ok := bulkOf(skeleton)
		if !ok {
			return nil, errNotStreamed
		}
		if paths != nil && len(paths.Content) > 0 {
			for i := 0; i < len(paths.Content); i += 2 {
				if isMergeKey(paths.Content[i]) {
					return nil, errNotStreamed
				}
			}
			parts, err := decodePaths(paths, paths.Content, func() {})
			if err != nil {
				return nil, errTreeRefused
			}
			for _, part := range parts {
				in.piece(part, nil, nil)
			}
			pathParts, pathsTaken = append(pathParts, parts...), true
			paths.Content = nil
		}
		if components == nil {
			continue
		}
		held, ok := onlyOne(components, "schemas")
		if !ok {
			return nil, errNotStreamed
		}
		if held == nil || held.Kind != yaml.MappingNode || len(held.Content) == 0 {
			continue
		}
		decoded := make([]string, 0, len(held.Content)/2)
		for i := 0; i < len(held.Content); i += 2 {
			k := held.Content[i]
			if k.Kind != yaml.ScalarNode || isMergeKey(k) || names[k.Value] {
				return nil, errNotStreamed
			}
			names[k.Value] = true
			decoded = append(decoded, k.Value)
		}
		if decodeSchemas(schemas, held, func() {}) != nil {
			return nil, errTreeRefused
		}
		in.piece(nil, schemas, decoded)
		schemasTaken = true
		held.Content = nil
	}

	l.index, l.indexing = build.index(), true
	l.data = nil // a YAML spec's text is read for pointers no more
	// As decodeTree does:
	doc, err := loader.LoadFromDataWithPath([]byte("{}"), location)
	if err != nil {
		return nil, errTreeRefused
	}
	rest := *skeleton
	if pathsTaken {
		rest.Content = slices.Clone(skeleton.Content)
		for i := 0; i < len(rest.Content); i += 2 {
			if rest.Content[i].Value == "paths" {
				rest.Content = slices.Delete(rest.Content, i, i+2)
				break
			}
		}
	}
	if err := doc.UnmarshalYAML(&rest); err != nil {
		return nil, errTreeRefused
	}
	if schemasTaken {
		if doc.Components == nil || doc.Components.Schemas == nil {
			return nil, errTreeRefused // not expected: the empty mapping decodes to a map
		}
		doc.Components.Schemas = schemas
	}
	if pathsTaken {
		doc.Paths = joinPaths(pathParts)
	}
	if err := loader.ResolveRefsIn(doc, location); err != nil {
		return nil, errTreeRefused
	}
	if !in.finish(doc, l.index.refs) {
		// A $ref points inside a schema, at a place piece shared: read
		// whole, the document shares only what nothing points at.
		return nil, errNotStreamed
	}
	// Collected now, the heap's next goal is set by the document, not by
	// the pieces' garbage. And collected before the stages that follow
	// start: what they allocate during a concurrent collection counts as
	// live, and would set the goal that much higher (stripe: the goal from
	// 34 MB "live" instead of the document's 28, and a peak RSS 9 MiB
	// higher, for the 3-5 % of wall time the collection takes alone).
	runtime.GC()
	return doc, nil
}

// bulkOf returns the document mapping's paths (when a mapping) and its
// components, each the only member of its name; ok is false when either
// is written twice or the mapping has a merge key, which the pieces are
// not read with.
func bulkOf(doc *yaml.Node) (paths, components *yaml.Node, ok bool) {
	if paths, ok = onlyOne(doc, "paths"); !ok {
		return nil, nil, false
	}
	if components, ok = onlyOne(doc, "components"); !ok {
		return nil, nil, false
	}
	if paths != nil && paths.Kind != yaml.MappingNode {
		paths = nil
	}
	if components != nil && components.Kind != yaml.MappingNode {
		components = nil
	}
	return paths, components, true
}

// onlyOne is the value of mapping m's member named key (nil when it has
// none); ok is false when m has two or a merge key.
func onlyOne(m *yaml.Node, key string) (found *yaml.Node, ok bool) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		switch k := m.Content[i]; {
		case isMergeKey(k):
			return nil, false
		case k.Value == key && found != nil:
			return nil, false
		case k.Value == key:
			found = m.Content[i+1]
		}
	}
	return found, true
}
