package curate

import (
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/generate/ir"
)

// TestCheckPaths: a placeholder nothing fills is a generate-time error at
// the tool's place; an argument, a fixed value, a context value or a
// credential fills one.
func TestCheckPaths(t *testing.T) {
	tool := func(params ...*ir.Param) *ir.Tool {
		return &ir.Tool{Name: "get_job", Origin: ir.Origin{File: "openapi.yaml", Line: 12, Col: 5},
			Call: &ir.Call{Method: "GET", Path: "/jobs/{job_id}/files/{file}", Params: params}}
	}
	file := &ir.Param{Name: "file", In: ir.InPath, Arg: "file"}
	err := CheckPaths(&ir.API{Tools: []*ir.Tool{tool(file)}})
	if err == nil || !strings.Contains(err.Error(), "openapi.yaml:12:5: error:") || !strings.Contains(err.Error(), "{job_id}") {
		t.Errorf("an unfilled placeholder: %v", err)
	}
	hidden := &ir.Param{Name: "job_id", In: ir.InPath} // dropped: no argument, no source
	if err := CheckPaths(&ir.API{Tools: []*ir.Tool{tool(file, hidden)}}); err == nil {
		t.Errorf("a dropped path parameter passed")
	}
	for _, src := range []ir.ValueSource{{Fixed: []byte(`"7"`)}, {Context: "tenant"}, {Credential: "key"}, {Template: "{{.item}}"}} {
		p := &ir.Param{Name: "job_id", In: ir.InPath, Source: src}
		if err := CheckPaths(&ir.API{Tools: []*ir.Tool{tool(file, p)}}); err != nil {
			t.Errorf("filled by %+v: %v", src, err)
		}
	}
	composed := &ir.Tool{Name: "both", Steps: []*ir.Step{{Name: "first", Call: &ir.Call{Method: "GET", Path: "/a/{x}"}}}}
	if err := CheckPaths(&ir.API{Tools: []*ir.Tool{composed}}); err == nil || !strings.Contains(err.Error(), "step first") {
		t.Errorf("a composed tool's step: %v", err)
	}
}
