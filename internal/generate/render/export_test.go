package render

import (
	"go/format"

	"github.com/tailormcp/tailor/internal/generate/ir"
)

// FormatAll switches formatting of every part on or off (parts.go) and
// returns the previous setting.
func FormatAll(on bool) bool {
	prev := formatAll
	formatAll = on
	return prev
}

// PartBytes sets how much source a part of a file holds (parts.go) and
// returns the previous setting.
func PartBytes(n int) int {
	prev := partBytes
	partBytes = n
	return prev
}

// RenderWhole renders each file the plain way: its head and all its items
// printed at once, and the file formatted whole with go/format. It is what
// Render's parts must add up to.
func RenderWhole(api *ir.API, opts Options) ([]File, error) {
	v := newView(api, opts)
	outputs, err := v.outputs(opts)
	if err != nil {
		return nil, err
	}
	var files []File
	for _, o := range outputs {
		var src source
		if err := tmpl.ExecuteTemplate(&src, o.tmpl, v); err != nil {
			return nil, err
		}
		for i := range o.items {
			if err := o.print(&src, i); err != nil {
				return nil, err
			}
		}
		out, err := format.Source(src)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: o.path, Content: out})
	}
	return files, nil
}
