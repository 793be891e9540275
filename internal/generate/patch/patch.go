// Package patch is the stage between the overlay and the loader: it
// applies an overlay's OpenAPI Overlay actions to a spec's text, writes
// the result as the text the loader reads, and maps positions in that
// text back to the user's spec, or to the overlay for what the actions
// added.
package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-openapi/jsonpointer"
	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/yamlwalk"
)

// Apply applies actions, an overlay's OpenAPI Overlay actions read from
// overlayFile, to data, the text of the spec at specFile. It returns nil
// and no error when data is not one YAML document: the loader reports
// its syntax error at its place. The warnings are the actions that
// matched nothing (at the overlay's lines); an action that fails, or a
// $ref within the spec the actions broke, is an error.
func Apply(specFile string, data []byte, actions []*overlay.Action, overlayFile string, strict bool) (*Spec, []diag.Diagnostic, error) {
	// Decoded twice: the actions change one copy, positions are looked up
	// in the other.
	var root yaml.Node
	var doc, original any
	err := yaml.Unmarshal(data, &root)
	if err == nil {
		err = root.Decode(&doc)
	}
	if err == nil {
		err = root.Decode(&original)
	}
	if err != nil || root.Kind != yaml.DocumentNode {
		return nil, nil, nil
	}
	patchedDoc, ds := overlay.ApplyActions(yamlwalk.JSONable(doc), actions, strict)
	l := &diag.List{}
	l.Add(ds...)
	if err := l.Err(); err != nil {
		return nil, nil, err
	}
	p, err := newPatchedSpec(&root, yamlwalk.JSONable(original), patchedDoc)
	if err != nil {
		return nil, nil, diag.At(diag.Pos{File: overlayFile}, "the spec cannot be re-encoded after the overlay's actions: %v", err)
	}
	p.specFile, p.overlayFile = specFile, overlayFile
	l.Add(p.brokenRefs(specFile, overlayFile)...)
	if err := l.Err(); err != nil {
		return nil, nil, err
	}
	return p, l.Warnings(), nil
}

// Pos maps a position in Text to the user's files (see pos).
func (p *Spec) Pos(at diag.Pos) diag.Pos { return p.pos(at, p.specFile, p.overlayFile) }

// Spec is the spec after an overlay's OpenAPI Overlay actions: the
// text the loader reads (Text), and the way back from its lines to the
// user's file.
//
// The loader, and every stage after it, report positions in the text they
// read, which is not the user's file. So the patched document is written as
// indented JSON, one object member or array element per line, and lines
// records which JSON pointer each line holds. A position in that text then
// maps to the same pointer in the user's YAML: the line of its key there.
// Parts the actions added are not in the user's spec; those positions name
// the overlay instead.
type Spec struct {
	Text     []byte
	lines    []string // lines[n-1] is the pointer of line n of text
	original *yaml.Node
	origDoc  any // the user's spec, decoded
	doc      any // the patched spec
	// specFile and overlayFile name the user's spec and the overlay.
	specFile, overlayFile string
}

// newPatchedSpec encodes doc, the spec after the actions; original is the
// user's spec as parsed before them (a document node).
func newPatchedSpec(original *yaml.Node, origDoc, doc any) (*Spec, error) {
	text, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return nil, err
	}
	p := &Spec{Text: text, original: original, origDoc: origDoc, doc: doc}
	p.lines = append(p.lines, "")
	p.walk(doc, "")
	if len(p.lines) != bytes.Count(text, []byte("\n"))+1 {
		// The walk did not follow encoding/json's layout (a value of a type
		// it does not expect): give no lines rather than wrong ones.
		p.lines = nil
	}
	return p, nil
}

// walk records the pointer of each line json.MarshalIndent writes for v:
// a non-empty object or array puts each member or element on a line of its
// own, then its closing bracket on another; anything else stays on the line
// it starts on.
func (p *Spec) walk(v any, ptr string) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys) // encoding/json's order
		for _, k := range keys {
			p.lines = append(p.lines, ptr+"/"+jsonpointer.Escape(k))
			p.walk(x[k], ptr+"/"+jsonpointer.Escape(k))
		}
		p.lines = append(p.lines, ptr)
	case []any:
		if len(x) == 0 {
			return
		}
		for i, e := range x {
			p.lines = append(p.lines, ptr+"/"+strconv.Itoa(i))
			p.walk(e, ptr+"/"+strconv.Itoa(i))
		}
		p.lines = append(p.lines, ptr)
	}
}

// pos maps a position in the patched text to the user's files: specFile's
// line for what the spec had, overlayFile for what the actions added.
// Positions elsewhere (other files a $ref reached) are returned unchanged.
func (p *Spec) pos(at diag.Pos, specFile, overlayFile string) diag.Pos {
	if at.File != specFile {
		return at
	}
	if at.Line < 1 || at.Line > len(p.lines) {
		return diag.Pos{File: specFile}
	}
	ptr := p.lines[at.Line-1]
	node, added := p.find(ptr)
	switch {
	case added:
		return diag.Pos{File: overlayFile}
	case node == nil:
		return diag.Pos{File: specFile}
	}
	return diag.Pos{File: specFile, Line: node.Line, Col: node.Column}
}

// find walks ptr through the user's spec and the patched one side by side.
// It returns the user's node for the deepest part of ptr both share (the
// key of an object member, the element of an array), and whether ptr goes
// into something the actions added (a member, or an element past the
// array's original end). Once an array has lost elements, its indices no
// longer name the same elements, so the walk stops at the array.
func (p *Spec) find(ptr string) (node *yaml.Node, added bool) {
	n := p.original
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	orig, patched := p.origDoc, p.doc
	at := n
	if ptr == "" {
		return at, false
	}
	for _, seg := range strings.Split(ptr[1:], "/") {
		seg = jsonpointer.Unescape(seg)
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		switch n.Kind {
		case yaml.MappingNode:
			om, _ := orig.(map[string]any)
			pm, _ := patched.(map[string]any)
			ov, inOrig := om[seg]
			pv := pm[seg]
			if !inOrig {
				return nil, true
			}
			var key, val *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == seg {
					key, val = n.Content[i], n.Content[i+1]
				}
			}
			if key == nil {
				return at, false // a merge key or the like: stop at what is known
			}
			at, n, orig, patched = key, val, ov, pv
		case yaml.SequenceNode:
			os, _ := orig.([]any)
			ps, _ := patched.([]any)
			i, err := strconv.Atoi(seg)
			switch {
			case err != nil || i < 0:
				return at, false
			case i >= len(os):
				return nil, true // appended by an update
			case len(os) != len(ps) || i >= len(n.Content):
				// Elements were removed: indices no longer name the
				// same elements.
				return at, false
			}
			at, n, orig, patched = n.Content[i], n.Content[i], os[i], ps[i]
		default:
			return at, false
		}
	}
	return at, false
}

// brokenRefs finds the $refs within the spec that pointed at something
// before the actions and point at nothing after them: the overlay broke
// the spec, which is the overlay's error (the loader would otherwise read
// each as a part it cannot resolve, and only warn).
func (p *Spec) brokenRefs(specFile, overlayFile string) []diag.Diagnostic {
	var out []diag.Diagnostic
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok && strings.HasPrefix(ref, "#/") && !resolves(p.doc, ref[1:]) && resolves(p.origDoc, ref[1:]) {
				at := diag.Pos{File: overlayFile}
				if node, added := p.find(ptr + "/$ref"); node != nil && !added {
					at = diag.Pos{File: specFile, Line: node.Line, Col: node.Column}
				}
				out = append(out, diag.Diagnostic{Severity: diag.Error, Pos: at, Message: fmt.Sprintf(
					"after the overlay's actions (%s): cannot resolve $ref %q: the actions removed what it points at", overlayFile, ref)})
			}
			for k, e := range x {
				walk(e, ptr+"/"+jsonpointer.Escape(k))
			}
		case []any:
			for i, e := range x {
				walk(e, ptr+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(p.doc, "")
	return out
}

// resolves reports whether the JSON pointer ptr names a value in doc.
func resolves(doc any, ptr string) bool {
	p, err := jsonpointer.New(ptr)
	if err != nil {
		return false
	}
	_, _, err = p.Get(doc)
	return err == nil
}
