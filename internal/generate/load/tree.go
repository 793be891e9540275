package load

import (
	"bytes"
	"net/url"
	"strings"

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
// with kin-openapi's own methods, and kept for the locator.
//
// Whatever kin-openapi would read differently from its own parse (text
// go-yaml does not read, a U+0085 in JSON, aliases, scalars or keys its
// preparation refuses) or refuses (any decode error) is loaded by
// kin-openapi itself, so that its messages stay kin-openapi's.

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
// parses. The tree is indexed for the locator on the other core while the
// $refs are resolved, and is garbage once the document is loaded.
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
	if err := doc.UnmarshalYAML(l.tree.Content[0]); err != nil {
		return nil, err
	}
	l.indexInBackground()
	if err := loader.ResolveRefsIn(doc, location); err != nil {
		return nil, err
	}
	return doc, nil
}
