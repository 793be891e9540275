package generator

import (
	"testing"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/ir"
)

// relevant keeps a warning about a kept operation, or anywhere below it,
// and about the spec as a whole; it drops one about an operation left
// out, even one whose path starts like a kept one's.
func TestRelevantKeepsWarningsOfKeptOperations(t *testing.T) {
	api := &ir.API{Tools: []*ir.Tool{
		{Origin: ir.Origin{Pointer: "#/paths/~1pets/get"}},
		{Origin: ir.Origin{Pointer: "#/paths/~1pets~1{id}/delete"}},
	}}
	keep := []string{
		"#/paths/~1pets/get",
		"#/paths/~1pets/get/parameters/0/schema",
		"#/paths/~1pets~1{id}/delete/responses/200",
		"#/paths/~1pets/get/$ref",
		"#/components/schemas/Pet",
		"",
	}
	drop := []string{
		"#/paths/~1pets/post",
		"#/paths/~1pets/getter",
		"#/paths/~1pets~1{id}/get/parameters/0",
		"#/paths/~1pets",
		"#/paths/~1pets~1{id}",
	}
	var ws []diag.Diagnostic
	for _, p := range append(append([]string{}, keep...), drop...) {
		ws = append(ws, diag.Diagnostic{Pointer: p, Message: p})
	}
	got := map[string]bool{}
	for _, w := range relevant(ws, api) {
		got[w.Pointer] = true
	}
	for _, p := range keep {
		if !got[p] {
			t.Errorf("dropped the warning at %q", p)
		}
	}
	for _, p := range drop {
		if got[p] {
			t.Errorf("kept the warning at %q", p)
		}
	}
}
