package repair

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-openapi/jsonpointer"
	"github.com/tailormcp/tailor/internal/generate/load/specfile"
	yaml "go.yaml.in/yaml/v4"
)

// schema walks a schema (never failing: what cannot be read becomes a
// schema that accepts any value, and a warning says so).
func (r *repairer) schema(c ctx, at **yaml.Node, n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
	case yaml.ScalarNode:
		if n.ShortTag() == "!!bool" {
			return // a boolean schema (and additionalProperties: false)
		}
		fallthrough
	default:
		r.repaired(r.pos(c.f, n), "read as a schema that accepts any value", "a schema must be an object, not %s", specfile.KindOf(n))
		*at = anySchema(n)
		c.f.Changed = true
		return
	}
	if _, ref := specfile.RefOf(n); ref != nil {
		if f := r.follow(c, at, n, kSchema); f != nil {
			r.lost(f, "the schema accepts any value")
			*at = anySchema(n)
			c.f.Changed = true
			return
		}
		if !r.v31 {
			return // before 3.1 the keys beside a $ref are ignored
		}
	}
	r.texts(c, n)
	r.required(c, n)
	r.itemsList(c, n)
	if specfile.MapValue(n, "$defs") != nil || specfile.MapValue(n, "definitions") != nil {
		c.scopes = append(c.scopes[:len(c.scopes):len(c.scopes)], scope{n: n, ptr: c.ptr})
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		v := specfile.Deref(n.Content[i+1])
		if v == nil {
			continue
		}
		switch {
		case slices.Contains(schemaOne, key):
			if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!bool" {
				continue
			}
			r.object(c.child(key), &n.Content[i+1], kSchema)
		case slices.Contains(schemaMap, key):
			if v.Kind != yaml.MappingNode {
				continue
			}
			mc := c.child(key)
			for j := 0; j+1 < len(v.Content); j += 2 {
				name := v.Content[j].Value
				pc := mc.child(name)
				if key == "properties" {
					pc.parent, pc.prop = n, name
				}
				r.object(pc, &v.Content[j+1], kSchema)
			}
		case slices.Contains(schemaList, key):
			if v.Kind != yaml.SequenceNode {
				continue
			}
			lc := c.child(key)
			for j := range v.Content {
				r.object(lc.child(fmt.Sprint(j)), &v.Content[j], kSchema)
			}
		case key == "discriminator":
			r.discriminator(c, v)
		}
	}
}

// anySchema is an empty schema in n's place.
func anySchema(n *yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column, Anchor: n.Anchor}
}

// required repairs a schema's `required` that is not a list of names.
// `required: true` on a property (a Swagger 1.x habit) means the object
// requires it, and is read so; anywhere else it says nothing a schema can
// hold, and is dropped.
func (r *repairer) required(c ctx, n *yaml.Node) {
	i := specfile.KeyIndex(n, "required")
	if i < 0 {
		return
	}
	k, v := n.Content[i], specfile.Deref(n.Content[i+1])
	if v == nil || v.Kind == yaml.SequenceNode {
		return
	}
	n.Content = append(n.Content[:i], n.Content[i+2:]...)
	c.f.Changed = true
	var b bool
	isTrue := v.Kind == yaml.ScalarNode && v.ShortTag() == "!!bool" && v.Decode(&b) == nil && b
	if isTrue && c.parent != nil && c.prop != "" {
		addRequired(c.parent, c.prop)
		r.repaired(r.pos(c.f, k), fmt.Sprintf("read as `%s` being required", c.prop), "`required: true` in the schema of property `%s` (JSON Schema lists required properties in the object)", c.prop)
		return
	}
	r.repaired(r.pos(c.f, k), "ignored it", "`required: %s` in a schema (JSON Schema's required is a list of property names)", v.Value)
}

// addRequired adds name to an object schema's required list.
func addRequired(obj *yaml.Node, name string) {
	i := specfile.KeyIndex(obj, "required")
	if i < 0 {
		obj.Content = append(obj.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "required"},
			&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"})
		i = len(obj.Content) - 2
	}
	list := specfile.Deref(obj.Content[i+1])
	if list == nil || list.Kind != yaml.SequenceNode {
		return
	}
	for _, e := range list.Content {
		if e.Value == name {
			return
		}
	}
	list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name})
}

// itemsList repairs `items` written as a list of schemas (JSON Schema's
// old tuple form, which OpenAPI never allowed). Written by people who
// mean "items are one of these", it reads as anyOf of them; Swagger 2.0
// has no anyOf, so there a type or null becomes x-nullable and anything
// else items of any kind.
func (r *repairer) itemsList(c ctx, n *yaml.Node) {
	i := specfile.KeyIndex(n, "items")
	if i < 0 {
		return
	}
	k, v := n.Content[i], specfile.Deref(n.Content[i+1])
	if v == nil || v.Kind != yaml.SequenceNode {
		return
	}
	c.f.Changed = true
	switch {
	case len(v.Content) == 1:
		n.Content[i+1] = v.Content[0]
		r.repaired(r.pos(c.f, k), "read as that schema", "`items` is a list of one schema")
	case !r.v2 && len(v.Content) > 1:
		n.Content[i+1] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: "anyOf"}, v}}
		r.repaired(r.pos(c.f, k), "read as anyOf of them", "`items` is a list of %d schemas", len(v.Content))
	default:
		// Swagger 2.0's way to say "or null" is x-nullable.
		if types := bareTypes(v.Content); len(types) == 2 && (types[0] == "null" || types[1] == "null") {
			t := types[0]
			if t == "null" {
				t = types[1]
			}
			n.Content[i+1] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: "type"}, {Kind: yaml.ScalarNode, Tag: "!!str", Value: t},
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: "x-nullable"}, {Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"}}}
			r.repaired(r.pos(c.f, k), "read as items of type "+t+" or null", "`items` is a list of schemas")
			return
		}
		n.Content[i+1] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		r.repaired(r.pos(c.f, k), "let items accept any value", "`items` is a list of %d schemas, which Swagger 2.0 cannot offer as alternatives", len(v.Content))
	}
}

// bareTypes returns the types of schemas that say nothing but a type, or
// nil when one says more.
func bareTypes(schemas []*yaml.Node) []string {
	var out []string
	for _, s := range schemas {
		s = specfile.Deref(s)
		if s == nil || s.Kind != yaml.MappingNode || len(s.Content) != 2 || s.Content[0].Value != "type" || s.Content[1].Kind != yaml.ScalarNode {
			return nil
		}
		if t := s.Content[1].Value; !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// discriminator checks the mapping's values that are $refs (kin-openapi
// follows those that name another file): one relative to the enclosing
// schema is read as follow reads such $refs, and one that cannot be
// followed is dropped from the mapping.
func (r *repairer) discriminator(c ctx, d *yaml.Node) {
	m := specfile.Deref(specfile.MapValue(d, "mapping"))
	if m == nil || m.Kind != yaml.MappingNode {
		return
	}
	var lost []string
	var first *failure
	for i := 0; i+1 < len(m.Content); i += 2 {
		v := m.Content[i+1]
		if v.Kind != yaml.ScalarNode || !strings.Contains(v.Value, "/") {
			continue // a schema name, not a $ref
		}
		if rebased := r.rebaseDefs(c, v.Value); rebased != "" {
			v.Value = rebased
			c.f.Changed = true
		}
		t, holder, tptr, err := r.Resolve(c.f, v.Value)
		if err == nil {
			r.noteUse(c.f, v, t, tptr, kSchema)
			tc := ctx{f: t, ptr: tptr}
			if t == c.f {
				tc.scopes = c.scopes
			}
			r.object(tc, holder, kSchema)
			continue
		}
		if f := r.unresolved(r.pos(c.f, v), v.Value, err); first == nil {
			first = f
		}
		lost = append(lost, fmt.Sprintf("%q", m.Content[i].Value))
		m.Content = append(m.Content[:i], m.Content[i+2:]...)
		c.f.Changed = true
		i -= 2
	}
	if first != nil {
		// One line for the mapping: a vendor's spec can lack a whole
		// folder of them.
		what := "its entry " + lost[0]
		if len(lost) > 1 {
			what = fmt.Sprintf("%d entries (%s, …)", len(lost), strings.Join(lost[:min(3, len(lost))], ", "))
		}
		r.lost(first, "dropped "+what+" from the discriminator's mapping")
	}
}

// rebaseDefs rewrites a $ref such as "#/$defs/Delta" written inside a
// schema that has those $defs, when the document itself has none: the
// writer meant the enclosing schema (as a standalone JSON Schema reads it;
// pydantic writes them so). It returns the $ref to use, or "" to keep ref.
func (r *repairer) rebaseDefs(c ctx, ref string) string {
	if !strings.HasPrefix(ref, "#/") || len(c.scopes) == 0 {
		return ""
	}
	toks := strings.Split(ref[2:], "/")
	if len(toks) < 2 || (toks[0] != "$defs" && toks[0] != "definitions") {
		return ""
	}
	if specfile.MapValue(c.f.Doc.Content[0], toks[0]) != nil {
		return "" // the document has them: the $ref means what it says
	}
	for i := len(c.scopes) - 1; i >= 0; i-- {
		s := c.scopes[i]
		defs := specfile.Deref(specfile.MapValue(s.n, toks[0]))
		if defs == nil || specfile.MapValue(defs, jsonpointer.Unescape(toks[1])) == nil {
			continue
		}
		if !r.defsScopes[s.n] {
			r.defsScopes[s.n] = true
			r.repaired(r.pos(c.f, keyNode(s.n, toks[0])), "read them as this schema's own, as a standalone JSON Schema would", "$refs to \"#/%s/...\" inside this schema, whose document has no %s", toks[0], toks[0])
		}
		return "#" + s.ptr + "/" + strings.Join(toks, "/")
	}
	return ""
}

func keyNode(n *yaml.Node, key string) *yaml.Node {
	if i := specfile.KeyIndex(n, key); i >= 0 {
		return n.Content[i]
	}
	return n
}
