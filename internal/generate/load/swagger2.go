package load

import (
	"encoding/json"
	"errors"
	"slices"

	"github.com/getkin/kin-openapi/openapi2"
	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/parallel"
)

// unmarshalSwagger2 decodes a Swagger 2.0 description as
// openapi2.UnmarshalFromData does, faster: JSON one level at a time on
// both cores (unmarshalSwagger2Split), YAML through the loader's parse
// into that JSON (swagger2YAMLAsJSON). Anything else, and any error, is
// kin-openapi's own decode, so that messages are kin-openapi's. The index
// of a JSON text's members comes back for the locator, or nil; valid, when
// not nil, is that index, of a text known to be valid JSON (sniff made it).
func unmarshalSwagger2(data []byte, doc *openapi2.T, valid *jsonIndex) (*jsonIndex, error) {
	if x, err := unmarshalSwagger2Split(data, doc, valid); err == nil {
		return x, nil
	}
	if j := swagger2YAMLAsJSON(data); j != nil {
		*doc = openapi2.T{}
		// json.Marshal writes valid JSON: the index is all it needs.
		if _, err := unmarshalSwagger2Split(j, doc, newJSONIndex(j)); err == nil {
			return nil, nil
		}
	}
	*doc = openapi2.T{}
	return nil, openapi2.UnmarshalFromData(data, doc)
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

// unmarshalSwagger2Split decodes a Swagger 2.0 JSON text one level at a
// time. kin-openapi's types decode their whole subtree at every level of
// it (for their fields, and again into a map for their extensions), so a
// description string five objects deep is read ten times over; here each
// object of a kin-openapi type is given only its own level: its members
// that hold other such objects (an operation's parameters and responses,
// a schema's properties) are left out of the text it decodes, decoded the
// same way on their own, and set in the fields it would have set them in.
// Those members are ones its UnmarshalJSON drops from its extensions, so
// what it makes of the rest is what it made of the whole. An object where
// the split could read differently (a member twice, a name that matches a
// field in another case only: encoding/json matches names regardless of
// case) is decoded whole by kin-openapi, as is a map with a key twice. The
// document's path items and definitions are decoded as jobs on both
// cores, beside the rest of the document and, unless valid is the text's
// index already, a check that the text is valid JSON (the index reads
// tokens, not the grammar between them).
func unmarshalSwagger2Split(data []byte, doc *openapi2.T, valid *jsonIndex) (*jsonIndex, error) {
	if !looksLikeJSON(data) {
		return nil, errNoSplit
	}
	x := valid
	if x == nil {
		x = newJSONIndex(data)
	}
	if x == nil || x.nodes[0].kind != '{' {
		return nil, errNoSplit
	}
	parts, whole := splitMembers(x, 0, docFields)
	if whole {
		return nil, errNoSplit
	}
	var top openapi2.T
	var paths, definitions int32 = -1, -1
	var jobs []func(*levels) error
	if valid == nil {
		jobs = append(jobs, func(*levels) error {
			if !json.Valid(data) {
				return errNoSplit
			}
			return nil
		})
	}
	var rest []part
	for _, p := range parts {
		switch docFields[p.field].name {
		case "paths":
			paths = p.node
		case "definitions":
			definitions = p.node
		default:
			rest = append(rest, p)
		}
	}
	jobs = append(jobs, func(l *levels) error {
		if err := l.decodeRest(&top, 0, parts); err != nil {
			return err
		}
		for _, p := range rest {
			if err := docFields[p.field].set(l, &top, p.node); err != nil {
				return err
			}
		}
		return nil
	})
	var makePaths func() map[string]*openapi2.PathItem
	var makeDefinitions func() map[string]*openapi2.SchemaRef
	if paths >= 0 {
		makePaths = mapJobs(x, paths, (*levels).pathItem, &jobs)
	}
	if definitions >= 0 {
		makeDefinitions = mapJobs(x, definitions, (*levels).schemaRef, &jobs)
	}
	errs := make([]error, len(jobs))
	params := &paramMemo{m: map[string]*openapi2.Parameter{}}
	parallel.For(len(jobs), func(i int) { errs[i] = jobs[i](&levels{x: x, params: params}) })
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if makePaths != nil {
		top.Paths = makePaths()
	}
	if makeDefinitions != nil {
		top.Definitions = makeDefinitions()
	}
	*doc = top
	return x, nil
}

// mapJobs adds to jobs one for each member of object n, decoding its
// value, and returns what makes the map of them once the jobs have run: in
// document order, so that of a name written twice the last wins, as in
// encoding/json.
func mapJobs[V any](x *jsonIndex, n int32, decode func(*levels, int32) (*V, error), jobs *[]func(*levels) error) func() map[string]*V {
	var names []string
	var nodes []int32
	x.children(n, func(c int32) bool {
		names, nodes = append(names, x.key(c)), append(nodes, c)
		return true
	})
	values := make([]*V, len(nodes))
	for i, c := range nodes {
		*jobs = append(*jobs, func(l *levels) (err error) {
			values[i], err = single(l, c, decode)
			return err
		})
	}
	return func() map[string]*V {
		m := make(map[string]*V, len(names))
		for i, name := range names {
			m[name] = values[i]
		}
		return m
	}
}
