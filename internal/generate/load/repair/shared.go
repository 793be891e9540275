package repair

import (
	"path"
	"strings"

	"github.com/go-openapi/jsonpointer"
	"github.com/tailormcp/tailor/internal/generate/load/specfile"
	yaml "go.yaml.in/yaml/v4"
)

// Specs split over many files usually give each schema a file of its own
// and point at it whole ($ref: ./Customer.yaml). kin-openapi reads and
// resolves such a file again for every $ref to it, and so again for every
// $ref inside it: the work grows with the number of paths through the
// schema graph, not with its size (rebilly's 1,760 files: over a minute).
// A schema kin-openapi finds inline in a document's components is
// resolved once and shared. So each file that is only ever used as a
// schema is handed to kin-openapi as a document holding that schema as
// its one component, every $ref into it pointing there:
//
//	Customer.yaml:  type: object ...
//	  becomes       {components: {schemas: {Customer: {type: object ...}}}}
//	$ref: ./Customer.yaml
//	  becomes       $ref: ./Customer.yaml#/components/schemas/Customer
//
// The schema keeps its lines (emitInPlace), and its $defs name, which is
// the file's name either way.

// use is a $ref the pass saw: the file it is written in, its value's node,
// the fragment it points at, and the kind of object it stands for.
type use struct {
	in   *specfile.File
	val  *yaml.Node
	frag string
	k    kind
}

// noteUse records a $ref from f to t.
func (r *repairer) noteUse(f *specfile.File, val *yaml.Node, t *specfile.File, frag string, k kind) {
	if r.uses == nil {
		r.uses = map[*specfile.File][]use{}
		r.used = map[*yaml.Node]bool{}
	}
	if r.used[val] {
		return
	}
	r.used[val] = true
	r.uses[t] = append(r.uses[t], use{in: f, val: val, frag: frag, k: k})
}

// shareSchemaFiles rewrites every local file other than the root that
// is only ever the target of schema $refs, at least one of them to the
// whole file, as described above. It reports whether it changed anything.
func (r *repairer) shareSchemaFiles(root *specfile.File) bool {
	if r.v2 {
		return false // converted before its $refs are followed
	}
	changed := false
	for t, uses := range r.uses {
		if t == root || t.Doc == nil || t.Loc.Scheme != "" && t.Loc.Scheme != "file" {
			continue
		}
		top := specfile.Deref(t.Doc.Content[0])
		if top == nil || top.Kind != yaml.MappingNode {
			continue
		}
		whole := false
		only := true
		for _, u := range uses {
			if u.k != kSchema {
				only = false
				break
			}
			if u.frag == "" || u.frag == "/" {
				whole = true
			}
		}
		if !whole || !only {
			continue
		}
		name := path.Base(t.Loc.Path)
		if i := strings.LastIndexByte(name, '.'); i > 0 {
			name = name[:i]
		}
		prefix := "/components/schemas/" + jsonpointer.Escape(name)
		for _, u := range uses {
			p, _, _ := strings.Cut(u.val.Value, "#")
			frag := strings.TrimSuffix(u.frag, "/")
			u.val.Value = p + "#" + prefix + frag
			u.in.Changed = true
		}
		t.Doc.Content[0] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: "components"},
			{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: "schemas"},
				{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
					{Kind: yaml.ScalarNode, Tag: "!!str", Value: name},
					top,
				}},
			}},
		}}
		t.Changed = true
		changed = true
	}
	return changed
}
