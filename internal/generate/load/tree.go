package load

import (
	"bytes"
	"errors"
	"maps"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	yaml "go.yaml.in/yaml/v4"
)

// An OpenAPI 3 spec in one file is parsed once. kin-openapi reads a spec,
// YAML or JSON, by parsing it into a go-yaml node tree and decoding that
// tree through its types' UnmarshalYAML methods; warnings need the same
// tree for their positions (locate.go). Parsing the text twice cost as much
// as the whole decode (stripe: 0.16 s of CPU each), and the two trees sat
// in memory one after the other. Here the tree is parsed by the loader,
// prepared the way kin-openapi prepares its own (prepareTree), decoded
// with kin-openapi's own methods, and kept for the locator as an index
// (posindex.go).
//
// Whatever kin-openapi would read differently from its own parse (text
// go-yaml does not read, a U+0085 in JSON, aliases, scalars or keys its
// preparation refuses) is loaded by kin-openapi itself; what it refuses
// (any decode or $ref error) goes to the repair pass, and when nothing
// can be repaired kin-openapi loads the text itself, so that the message
// is its own (load.go).

// parseTree parses a spec's text into a node tree, or returns nil when
// kin-openapi would not read the text through this parse or this tree
// would not be what it decodes.
func parseTree(data []byte) *yaml.Node {
	// kin-openapi reads JSON with a raw U+0085 (a line break to YAML) with
	// encoding/json instead.
	if bytes.Contains(data, []byte("\u0085")) {
		return nil
	}
	if root := parseSplit(data); root != nil {
		return root
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || !isMappingDoc(&root) || !prepareTree(&root) {
		return nil
	}
	return &root
}

// prepareTree retags scalars as kin-openapi does before it decodes its
// tree (prepareScalars in its native_yaml.go), so that the decode reads
// what it reads: a scalar with an application's own tag (!md) and a
// date-shaped one are strings, a scalar mapping key is named by its text.
// It returns false, leaving the tree to be discarded, for what that
// preparation refuses (a null key, an infinite or NaN number) or rewrites
// beyond a tag (an alias, which can also loop): kin-openapi then loads the
// text itself and says so in its own words.
func prepareTree(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.AliasNode:
		return false
	case yaml.ScalarNode:
		if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") || n.Tag == "!!timestamp" {
			n.Tag = "!!str"
		}
		if n.Tag == "!!float" {
			switch strings.ToLower(strings.TrimLeft(n.Value, "+-")) {
			case ".inf", ".nan":
				return false
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!str" || isMergeKey(k) {
				continue
			}
			if k.Tag == "!!null" {
				return false
			}
			k.Tag = "!!str"
		}
	}
	for _, c := range n.Content {
		if !prepareTree(c) {
			return false
		}
	}
	return true
}

// isMergeKey reports whether k is YAML's merge key (<<, plain), which is
// an instruction, not a name.
func isMergeKey(k *yaml.Node) bool {
	return k.Tag == "!!merge" || k.Value == "<<" && k.Style == 0 && (k.Tag == "" || k.Tag == "!!str")
}

// decodeTree decodes a locator's prepared tree into a document and
// resolves its $refs, as loader.LoadFromDataWithPath does with the tree it
// parses. The tree is indexed for the locator on another goroutine while
// it is decoded, and each part of it decoded is let go once the index is
// made (decodeDoc): the tree (stripe: 26 MiB) and the document (20 MiB)
// are never both whole in memory.
func decodeTree(loader *openapi3.Loader, l *locator, location *url.URL) (*openapi3.T, error) {
	// Loading an empty document at the spec's location first gives the
	// loader what LoadFromDataWithPath records before it decodes: the
	// root's location (against which discriminator mappings are told to be
	// in the root document or not), the document as the one at that
	// location (a $ref naming the root file by name reaches it), and the
	// document's own URL. The spec is then decoded into that document.
	doc, err := loader.LoadFromDataWithPath([]byte("{}"), location)
	if err != nil {
		return nil, err
	}
	root := l.tree.Content[0]
	l.indexInBackground()
	if err := decodeDoc(doc, root, l.waitIndexed); err != nil {
		return nil, err
	}
	if err := loader.ResolveRefsIn(doc, location); err != nil {
		return nil, err
	}
	internLeaves(doc)
	return doc, nil
}

// decodeDoc decodes the document's mapping into doc on both cores: the
// document without its paths and the first of them on one, the rest of
// the paths on the other, as many lines of the spec each, then joined.
// kin-openapi decodes each path item on its own (Paths.UnmarshalYAML), and
// a later path of the same name wins, as it does here. A mapping that
// cannot be split so (few paths, paths twice, paths merged in with <<) is
// decoded whole. Once indexed returns, the tree's parts are let go as
// they are decoded (the document's other members, then the paths a few at
// a time), so root is not whole afterwards; what fails to decode is
// refused as it is (the caller has kin-openapi load the text and say why).
func decodeDoc(doc *openapi3.T, root *yaml.Node, indexed func()) error {
	at, next := -1, 0
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch k := root.Content[i]; {
		case isMergeKey(k):
			return doc.UnmarshalYAML(root)
		case k.Value == "paths" && at >= 0:
			return doc.UnmarshalYAML(root)
		case k.Value == "paths":
			at, next = i, i+2
		}
	}
	if at < 0 || root.Content[at+1].Kind != yaml.MappingNode || len(root.Content[at+1].Content) < 64 {
		return doc.UnmarshalYAML(root)
	}
	paths := root.Content[at+1]
	for i := 0; i < len(paths.Content); i += 2 {
		if isMergeKey(paths.Content[i]) {
			return doc.UnmarshalYAML(root)
		}
	}

	// The paths run from the line of their first key to the line of the
	// document's next key (or its end); the rest of the document is the
	// other lines. The first part takes paths until it has half.
	first, last := paths.Content[0].Line, lastLine(root)
	end := last
	if next < len(root.Content) {
		end = root.Content[next].Line
	}
	cut := len(paths.Content) / 2 &^ 1
	if end > first {
		others := last - (end - first)
		for cut = 0; cut < len(paths.Content) && others+paths.Content[cut].Line-first < (last+1)/2; cut += 2 {
		}
	}
	rest := *root
	rest.Content = append(append(make([]*yaml.Node, 0, len(root.Content)-2), root.Content[:at]...), root.Content[at+2:]...)
	schemas := holdSchemas(&rest)

	var tailParts []*openapi3.Paths
	var tailErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tailParts, tailErr = decodePaths(paths, paths.Content[cut:], indexed)
	}()
	var headParts []*openapi3.Paths
	err := doc.UnmarshalYAML(&rest)
	if err == nil {
		indexed()
		clear(rest.Content)
		clear(root.Content[:at])
		clear(root.Content[at+2:])
		if schemas != nil {
			if doc.Components == nil || doc.Components.Schemas == nil {
				err = errors.New("the component schemas did not decode to a map") // not expected: the empty mapping does
			} else {
				err = decodeSchemas(doc.Components.Schemas, schemas, indexed)
			}
		}
	}
	if err == nil {
		headParts, err = decodePaths(paths, paths.Content[:cut], indexed)
	}
	wg.Wait()
	if err != nil {
		return err
	}
	if tailErr != nil {
		return tailErr
	}
	doc.Paths = joinPaths(append(headParts, tailParts...))
	// The tree is garbage now. Collected at once, the heap's next goal is
	// set without it, instead of at twice what the last collection saw
	// with it, which the stages that follow would fill.
	go runtime.GC()
	return nil
}

// holdSchemas takes the component schemas out of rest, a copy of the
// document's mapping, leaving an empty mapping in their place, and
// returns their mapping (nil when there is nothing to take). They are a
// large spec's other half (stripe: 40,000 of its 112,000 lines), decoded
// a few at a time afterwards (decodeSchemas) so that their nodes can be
// let go as the paths' are. A mapping the decode of it whole reads its own
// way (a merge key, a name twice, components or schemas twice) stays.
func holdSchemas(rest *yaml.Node) *yaml.Node {
	components := onlyMember(rest, "components")
	if components == nil {
		return nil
	}
	schemas := onlyMember(components, "schemas")
	if schemas == nil || len(schemas.Content) < 4*atOnce {
		return nil
	}
	names := make(map[string]bool, len(schemas.Content)/2)
	for i := 0; i < len(schemas.Content); i += 2 {
		k := schemas.Content[i]
		if k.Kind != yaml.ScalarNode || isMergeKey(k) || names[k.Value] {
			return nil
		}
		names[k.Value] = true
	}
	empty := *schemas
	empty.Content = nil
	held := *components
	held.Content = slices.Clone(components.Content)
	for i := 0; i < len(held.Content); i += 2 {
		if held.Content[i+1] == schemas {
			held.Content[i+1] = &empty
		}
	}
	for i := 0; i < len(rest.Content); i += 2 {
		if rest.Content[i+1] == components {
			rest.Content[i+1] = &held
		}
	}
	return schemas
}

// onlyMember is the mapping value of the one member of mapping m named
// key, or nil when m has none, more than one, or a merge key.
func onlyMember(m *yaml.Node, key string) *yaml.Node {
	var found *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		switch k := m.Content[i]; {
		case isMergeKey(k):
			return nil
		case k.Value == key && found != nil:
			return nil
		case k.Value == key:
			found = m.Content[i+1]
		}
	}
	if found == nil || found.Kind != yaml.MappingNode {
		return nil
	}
	return found
}

// joinPaths joins paths decoded in parts, in order (a later path of the
// same name wins).
func joinPaths(parts []*openapi3.Paths) *openapi3.Paths {
	size, extensions := 0, 0
	for _, part := range parts {
		size, extensions = size+part.Len(), extensions+len(part.Extensions)
	}
	joined := openapi3.NewPathsWithCapacity(size)
	joined.Extensions = make(map[string]any, extensions)
	for _, part := range parts {
		maps.Copy(joined.Extensions, part.Extensions)
		for path, item := range part.Map() {
			joined.Set(path, item)
		}
	}
	return joined
}

// decodeSchemas decodes the members of a mapping of component schemas
// (those holdSchemas took), a few at a time, into the map into, letting
// each one's nodes go once indexed returns.
func decodeSchemas(into openapi3.Schemas, schemas *yaml.Node, indexed func()) error {
	members := schemas.Content
	for len(members) > 0 {
		n := min(len(members), 2*atOnce)
		some := *schemas
		some.Content = members[:n]
		var part openapi3.Schemas
		if err := some.Decode(&part); err != nil {
			return err
		}
		maps.Copy(into, part)
		indexed()
		clear(members[:n])
		members = members[n:]
	}
	return nil
}

// atOnce is how many path items (decodePaths) or schemas (decodeSchemas)
// are decoded before their nodes are let go.
const atOnce = 32

// decodePaths decodes the members of the paths mapping, a few path items
// at a time, each as a Paths of its own (in order: a later path of the
// same name wins), letting each one's nodes go once indexed returns.
func decodePaths(paths *yaml.Node, members []*yaml.Node, indexed func()) ([]*openapi3.Paths, error) {
	var parts []*openapi3.Paths
	for len(members) > 0 {
		n := min(len(members), 2*atOnce)
		some := *paths
		some.Content = members[:n]
		part := &openapi3.Paths{}
		if err := part.UnmarshalYAML(&some); err != nil {
			return nil, err
		}
		parts = append(parts, part)
		indexed()
		clear(members[:n])
		members = members[n:]
	}
	return parts, nil
}

// lastLine is the line of the last node in n.
func lastLine(n *yaml.Node) int {
	for len(n.Content) > 0 {
		n = n.Content[len(n.Content)-1]
	}
	return n.Line
}
