package render

import (
	"bytes"
	"fmt"
	"go/format"

	"github.com/tailormcp/tailor/internal/generate/ir"
)

// RenderWhole renders api as one template run per file, its list whole,
// formatted by go/format in one piece: what Render's parts must add up to.
func RenderWhole(api *ir.API, opts Options) ([]File, error) {
	v := newView(api, opts)
	outputs, err := v.outputs(opts)
	if err != nil {
		return nil, err
	}
	var files []File
	for _, o := range outputs {
		var src bytes.Buffer
		if err := tmpl.ExecuteTemplate(&src, o.tmpl, v); err != nil {
			return nil, err
		}
		if o.items != nil {
			for _, part := range o.items.parts(1 << 62) {
				if err := tmpl.ExecuteTemplate(&src, o.tmpl+" items", part()); err != nil {
					return nil, err
				}
			}
		}
		out, err := format.Source(src.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s: %v", o.path, err)
		}
		files = append(files, NewFile(o.path, out))
	}
	return files, nil
}

// PartSize is partSize, for tests to cut lists finer.
var PartSize = &partSize
