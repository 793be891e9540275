package repair

import (
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-openapi/jsonpointer"
	"github.com/tailormcp/tailor/internal/generate/load/specfile"
	yaml "go.yaml.in/yaml/v4"
)

// graft builds, for file f, what a $ref to tn (at tptr in file t) stands
// for in a slot s where kin-openapi would not follow it. Entries kin-openapi
// follows by $ref become $refs into t, so that their positions and the
// $refs inside them stay as written; the rest is copied, with $refs
// rewritten relative to f. Swagger 2.0 is converted by kin-openapi before
// its $refs are followed, so there everything is copied.
func (r *repairer) graft(f, t *specfile.File, tn *yaml.Node, tptr string, s slot, depth int) *yaml.Node {
	tn = specfile.Deref(tn)
	if tn == nil || depth > maxEmitDepth {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	switch {
	case s.many == 'm' && tn.Kind == yaml.MappingNode:
		out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for i := 0; i+1 < len(tn.Content); i += 2 {
			key, v := tn.Content[i], tn.Content[i+1]
			var cv *yaml.Node
			if isExtension(key.Value) {
				cv = r.copyNode(f, t, v, kNone, depth+1)
			} else {
				cv = r.graftValue(f, t, v, tptr+"/"+jsonpointer.Escape(key.Value), s.kind, depth+1)
			}
			out.Content = append(out.Content, r.copyNode(f, t, key, kNone, depth+1), cv)
		}
		return out
	case s.many == 'l' && tn.Kind == yaml.SequenceNode:
		out := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for i, v := range tn.Content {
			out.Content = append(out.Content, r.graftValue(f, t, v, tptr+"/"+strconv.Itoa(i), s.kind, depth+1))
		}
		return out
	case s.many == 0:
		return r.graftValue(f, t, tn, tptr, s.kind, depth)
	}
	return r.copyNode(f, t, tn, kNone, depth)
}

// graftValue is graft for one object of kind k.
func (r *repairer) graftValue(f, t *specfile.File, v *yaml.Node, vptr string, k kind, depth int) *yaml.Node {
	v = specfile.Deref(v)
	if v == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	if _, ref := specfile.RefOf(v); ref != nil || k == kNone || v.Kind != yaml.MappingNode {
		return r.copyNode(f, t, v, k, depth)
	}
	if r.refable[k] && r.canRef(t) {
		return refNode(r.relLoc(f, t.Loc) + "#" + vptr)
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(v.Content); i += 2 {
		key, val := v.Content[i], v.Content[i+1]
		var cv *yaml.Node
		if s, ok := r.childSlot(k, key.Value); ok {
			cv = r.graft(f, t, val, vptr+"/"+jsonpointer.Escape(key.Value), s, depth+1)
		} else {
			cv = r.copyNode(f, t, val, kNone, depth+1)
		}
		out.Content = append(out.Content, r.copyNode(f, t, key, kNone, depth+1), cv)
	}
	return out
}

// canRef reports whether kin-openapi can follow a $ref into a fragment of
// t. It reads such a file as an OpenAPI document, so one whose top level
// uses the document's field names for something else (an operation's
// tags, a list) must be copied from instead.
func (r *repairer) canRef(t *specfile.File) bool {
	if r.v2 || t.Doc == nil || len(t.Doc.Content) == 0 {
		return false
	}
	root := specfile.Deref(t.Doc.Content[0])
	if root == nil || root.Kind != yaml.MappingNode {
		return false
	}
	if specfile.MapValue(root, "openapi") != nil {
		return true
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if documentFields[root.Content[i].Value] {
			return false
		}
	}
	return true
}

// documentFields are the OpenAPI Object's fields.
var documentFields = map[string]bool{"openapi": true, "info": true, "jsonSchemaDialect": true, "servers": true,
	"paths": true, "webhooks": true, "components": true, "security": true, "tags": true, "externalDocs": true,
	"swagger": true}

// childSlot says what key holds in an object of kind k.
func (r *repairer) childSlot(k kind, key string) (slot, bool) {
	if s, ok := r.shapes[k][key]; ok {
		return s, true
	}
	switch {
	case k == kPathItem && methods[key]:
		return one(kOperation), true
	case k == kCallback && !isExtension(key):
		return one(kPathItem), true
	case k == kSchema && slices.Contains(schemaOne, key):
		return one(kSchema), true
	case k == kSchema && slices.Contains(schemaMap, key):
		return mapOf(kSchema), true
	case k == kSchema && slices.Contains(schemaList, key):
		return listOf(kSchema), true
	}
	return slot{}, false
}

// copyNode copies v from t for use in f: positions dropped (the copy has
// none in f), aliases expanded, and, in the parts of kind k that are
// OpenAPI structure rather than data, $refs rewritten to point from f at
// what they pointed at from t.
func (r *repairer) copyNode(f, t *specfile.File, v *yaml.Node, k kind, depth int) *yaml.Node {
	v = specfile.Deref(v)
	if v == nil || depth > maxEmitDepth {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	out := &yaml.Node{Kind: v.Kind, Tag: v.Tag, Value: v.Value}
	switch v.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(v.Content); i += 2 {
			key, val := v.Content[i], v.Content[i+1]
			var cv *yaml.Node
			switch {
			case k == kNone || isExtension(key.Value):
				cv = r.copyNode(f, t, val, kNone, depth+1)
			case key.Value == "$ref" && val.Kind == yaml.ScalarNode:
				cv = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: r.rebase(val.Value, t, f)}
			default:
				s, ok := r.childSlot(k, key.Value)
				if !ok {
					cv = r.copyNode(f, t, val, kNone, depth+1)
				} else {
					cv = r.copySlot(f, t, val, s, depth+1)
				}
			}
			out.Content = append(out.Content, r.copyNode(f, t, key, kNone, depth+1), cv)
		}
	case yaml.SequenceNode, yaml.DocumentNode:
		for _, c := range v.Content {
			out.Content = append(out.Content, r.copyNode(f, t, c, k, depth+1))
		}
	}
	return out
}

// copySlot copies what a key of slot s holds.
func (r *repairer) copySlot(f, t *specfile.File, v *yaml.Node, s slot, depth int) *yaml.Node {
	v = specfile.Deref(v)
	if s.many == 0 || v == nil {
		return r.copyNode(f, t, v, s.kind, depth)
	}
	if _, ref := specfile.RefOf(v); ref != nil {
		return r.copyNode(f, t, v, s.kind, depth)
	}
	out := &yaml.Node{Kind: v.Kind, Tag: v.Tag, Value: v.Value}
	for i, c := range v.Content {
		k := s.kind
		if v.Kind == yaml.MappingNode && (i%2 == 0 || isExtension(v.Content[i-1].Value)) {
			k = kNone
		}
		out.Content = append(out.Content, r.copyNode(f, t, c, k, depth+1))
	}
	return out
}

// rebase rewrites a $ref written in from so that it points at the same
// place when written in to.
func (r *repairer) rebase(ref string, from, to *specfile.File) string {
	if from == to {
		return ref
	}
	p, frag, hasFrag := strings.Cut(ref, "#")
	target := from.Loc
	if p != "" {
		u, err := url.Parse(p)
		if err != nil {
			return ref
		}
		target = from.Loc.ResolveReference(u)
	}
	out := r.relLoc(to, target)
	if hasFrag {
		out += "#" + frag
	}
	return out
}

// relLoc writes target as a $ref in file to would: "" for to itself, a
// relative path between local files, else the absolute URL.
func (r *repairer) relLoc(to *specfile.File, target *url.URL) string {
	local := func(u *url.URL) bool { return u.Scheme == "" || u.Scheme == "file" }
	if local(to.Loc) && local(target) {
		key := specfile.Key(target)
		if key == to.Key {
			return ""
		}
		if rel, err := filepath.Rel(filepath.Dir(to.Key), key); err == nil {
			return (&url.URL{Path: filepath.ToSlash(rel)}).String()
		}
	}
	u := *target
	u.Fragment = ""
	return u.String()
}

func refNode(ref string) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: "$ref"},
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: ref},
	}}
}
