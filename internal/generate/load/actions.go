package load

import (
	"errors"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/yamlwalk"
)

// loadPatched loads the spec after an overlay's OpenAPI Overlay actions:
// they change the spec's parsed text, which is then loaded as patched.go
// writes it, and positions in it are mapped back to the user's files by
// Spec.Place.
func loadPatched(path string, data []byte, opts Options) (*Spec, error) {
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
		// Let the loader report the syntax error with its position.
		return loadText(path, data, opts, "")
	}
	patchedDoc, ds := overlay.ApplyActions(yamlwalk.JSONable(doc), opts.Actions, opts.Strict)
	l := &diag.List{}
	l.Add(ds...)
	if err := l.Err(); err != nil {
		return nil, err
	}
	patched, err := newPatchedSpec(&root, yamlwalk.JSONable(original), patchedDoc)
	if err != nil {
		return nil, diag.At(diag.Pos{File: opts.ActionsFile}, "the spec cannot be re-encoded after the overlay's actions: %v", err)
	}
	l.Add(patched.brokenRefs(path, opts.ActionsFile)...)
	if err := l.Err(); err != nil {
		return nil, err
	}
	spec, err := loadText(path, patched.text, opts, "")
	if err != nil {
		var de *diag.Errors
		if errors.As(err, &de) {
			for i := range de.List {
				de.List[i].Pos = patched.pos(de.List[i].Pos, path, opts.ActionsFile)
				de.List[i].Message = "after the overlay's actions (" + opts.ActionsFile + "): " + de.List[i].Message
			}
		}
		return nil, err
	}
	spec.SHA256 = sha256Hex(data)
	spec.patched = patched
	spec.actionsFile = opts.ActionsFile
	spec.ActionWarnings = l.Warnings()
	return spec, nil
}

// Place gives diagnostics about the loaded text their positions in the
// user's files: a line for those that know only a JSON pointer (Locate),
// and, when an overlay's actions patched the spec, the line of the same
// member in the user's spec, or the overlay for what the actions added.
// It changes ds in place and returns it; each diagnostic is placed once.
func (s *Spec) Place(ds []diag.Diagnostic) []diag.Diagnostic {
	ds = s.Locate(ds)
	if s.patched != nil {
		for i := range ds {
			ds[i].Pos = s.patched.pos(ds[i].Pos, s.Path, s.actionsFile)
		}
	}
	return ds
}
