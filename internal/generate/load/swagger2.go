package load

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/parallel"
)

// unmarshalSwagger2 decodes a Swagger 2.0 description as
// openapi2.UnmarshalFromData does, faster for JSON. kin-openapi's types
// decode JSON through UnmarshalJSON methods that each decode their whole
// subtree twice (once for the fields, once more into a map for the
// extensions), so the document's own level decodes all of it into a map
// only to drop what is not an extension, and encoding/json checks each
// subtree again at every level. Here the top level is split first: its
// two large members, paths and definitions, are decoded on their own, on
// both cores, and the rest of the document (what kin-openapi reads its
// extensions from) without them. Text where the split could read
// differently (not a JSON object, a member twice, or a name that differs
// from paths or definitions in case only: encoding/json matches field
// names regardless of case) is decoded whole, as is any error, so that
// messages are kin-openapi's.
func unmarshalSwagger2(data []byte, doc *openapi2.T) error {
	if err := unmarshalSwagger2Split(data, doc); err == nil {
		return nil
	}
	if j := swagger2YAMLAsJSON(data); j != nil {
		*doc = openapi2.T{}
		if err := unmarshalSwagger2Split(j, doc); err == nil {
			return nil
		}
	}
	*doc = openapi2.T{}
	return openapi2.UnmarshalFromData(data, doc)
}

// swagger2YAMLAsJSON is a Swagger 2.0 YAML text as the JSON kin-openapi
// decodes it, or nil. kin-openapi's 2.0 types read YAML through JSON: it
// parses the text, names every mapping key by its text, makes date-shaped
// scalars strings, decodes the tree into plain values and encodes those as
// JSON, then decodes that (on one core). Here the text is parsed by the
// loader's parse (on both cores when large, split.go) and the JSON is
// decoded as separate jobs too (unmarshalSwagger2Split). Where the loader's
// preparation of the tree could read differently from kin-openapi's (a tag
// written out, a merge key, and what prepareTree refuses: aliases, null
// keys, infinite numbers), nil leaves the text to kin-openapi.
func swagger2YAMLAsJSON(data []byte) []byte {
	if looksLikeJSON(data) {
		return nil
	}
	root := parseTree(data)
	if root == nil || !plainForJSON(root) {
		return nil
	}
	var generic any
	if err := root.Decode(&generic); err != nil {
		return nil
	}
	j, err := json.Marshal(generic)
	if err != nil {
		return nil
	}
	return j
}

// plainForJSON reports whether a prepared tree reads as kin-openapi's own
// preparation of it would: no tag written out and no merge key.
func plainForJSON(n *yaml.Node) bool {
	if n.Style&yaml.TaggedStyle != 0 || n.Kind == yaml.MappingNode && slices.ContainsFunc(n.Content, isMergeKey) {
		return false
	}
	for _, c := range n.Content {
		if !plainForJSON(c) {
			return false
		}
	}
	return true
}

var errNoSplit = jsonSplitError("the document is not split")

type jsonSplitError string

func (e jsonSplitError) Error() string { return string(e) }

// member is one member of a JSON object, its value as written.
type member struct {
	name  string
	value json.RawMessage
}

// members lists the members of a JSON object (null has none), or fails
// for anything else, or a member named twice.
func members(obj json.RawMessage) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok == nil {
		return nil, nil
	}
	if tok != json.Delim('{') {
		return nil, errNoSplit
	}
	var out []member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		if seen[name] {
			return nil, errNoSplit
		}
		seen[name] = true
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		out = append(out, member{name, value})
	}
	return out, nil
}

func unmarshalSwagger2Split(data []byte, doc *openapi2.T) error {
	if !looksLikeJSON(data) {
		return errNoSplit
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errNoSplit
	}
	var paths, definitions json.RawMessage
	rest := bytes.NewBufferString("{")
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return err
		}
		folded := strings.ToLower(name)
		if seen[folded] {
			return errNoSplit
		}
		seen[folded] = true
		switch {
		case name == "paths":
			paths = value
		case name == "definitions":
			definitions = value
		case folded == "paths" || folded == "definitions":
			return errNoSplit
		default:
			if rest.Len() > 1 {
				rest.WriteByte(',')
			}
			key, _ := json.Marshal(name)
			rest.Write(key)
			rest.WriteByte(':')
			rest.Write(value)
		}
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	if _, err := dec.Token(); err == nil {
		return errNoSplit // something after the object
	}
	rest.WriteByte('}')
	var err error

	// Each path item and each definition is a job; the rest of the
	// document is one more.
	var pathJobs, defJobs []member
	if paths != nil {
		if pathJobs, err = members(paths); err != nil {
			return err
		}
	}
	if definitions != nil {
		if defJobs, err = members(definitions); err != nil {
			return err
		}
	}
	items := make([]*openapi2.PathItem, len(pathJobs))
	defs := make([]*openapi2.SchemaRef, len(defJobs))
	var top openapi2.T
	jobs := make([]func() error, 0, len(pathJobs)+len(defJobs)+1)
	jobs = append(jobs, func() error { return json.Unmarshal(rest.Bytes(), &top) })
	for i, m := range pathJobs {
		jobs = append(jobs, func() error { return json.Unmarshal(m.value, &items[i]) })
	}
	for i, m := range defJobs {
		jobs = append(jobs, func() error { return json.Unmarshal(m.value, &defs[i]) })
	}
	errs := make([]error, len(jobs))
	parallel.For(len(jobs), func(i int) { errs[i] = jobs[i]() })
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if paths != nil && !bytes.Equal(bytes.TrimSpace(paths), []byte("null")) {
		doc.Paths = make(map[string]*openapi2.PathItem, len(pathJobs))
		for i, m := range pathJobs {
			doc.Paths[m.name] = items[i]
		}
	}
	if definitions != nil && !bytes.Equal(bytes.TrimSpace(definitions), []byte("null")) {
		doc.Definitions = make(map[string]*openapi2.SchemaRef, len(defJobs))
		for i, m := range defJobs {
			doc.Definitions[m.name] = defs[i]
		}
	}
	top.Paths, top.Definitions = doc.Paths, doc.Definitions
	*doc = top
	return nil
}
