package load

import "github.com/tailormcp/tailor/internal/diag"

// Locate gives each diagnostic about the root spec that has a JSON
// pointer but no line the position of that pointer, or of the nearest
// part of it the spec has (an OpenAPI 3 pointer into what Swagger 2.0
// wrote differently). It is safe for concurrent use.
func (s *Spec) Locate(ds []diag.Diagnostic) []diag.Diagnostic {
	if s.locate == nil {
		return ds
	}
	var want []string
	for _, d := range ds {
		if d.Pos.Line == 0 && d.Pointer != "" && (d.Pos.File == "" || d.Pos.File == s.Path) {
			want = append(want, d.Pointer)
		}
	}
	if len(want) == 0 {
		return ds
	}
	found := s.locate.Find(want)
	for i, d := range ds {
		if d.Pos.Line == 0 && d.Pointer != "" && (d.Pos.File == "" || d.Pos.File == s.Path) {
			if p, ok := found[d.Pointer]; ok {
				ds[i].Pos = p
			}
		}
	}
	return ds
}
