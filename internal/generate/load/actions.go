package load

import (
	"errors"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/patch"
)

// loadPatched loads the spec after an overlay's OpenAPI Overlay actions
// (package patch): the text they leave is loaded, and positions in it are
// mapped back to the user's files by Spec.Place.
func loadPatched(path string, data []byte, opts Options) (*Spec, error) {
	patched, warnings, err := patch.Apply(path, data, opts.Actions, opts.ActionsFile, opts.Strict)
	if err != nil {
		return nil, err
	}
	if patched == nil {
		// Let the loader report the syntax error with its position.
		return loadText(path, data, opts, "")
	}
	spec, err := loadText(path, patched.Text, opts, "")
	if err != nil {
		var de *diag.Errors
		if errors.As(err, &de) {
			for i := range de.List {
				de.List[i].Pos = patched.Pos(de.List[i].Pos)
				de.List[i].Message = "after the overlay's actions (" + opts.ActionsFile + "): " + de.List[i].Message
			}
		}
		return nil, err
	}
	spec.SHA256 = sha256Hex(data)
	spec.patched = patched
	spec.ActionWarnings = warnings
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
			ds[i].Pos = s.patched.Pos(ds[i].Pos)
		}
	}
	return ds
}
