package curate

import (
	"errors"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/diag"
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

// TestCheckPathsDotSegments: a call whose spec path has a dot segment,
// however written, is an error at the path's key in the spec (its
// pointer), once per path, naming the tools that call it.
func TestCheckPathsDotSegments(t *testing.T) {
	call := func(path string) *ir.Call { return &ir.Call{Method: "GET", Path: path} }
	api := &ir.API{Source: ir.Source{SpecPath: "openapi.yaml"}, Tools: []*ir.Tool{
		{Name: "get_admin", Call: call("/public/../admin")},
		{Name: "delete_admin", Call: call("/public/../admin")},
		{Name: "fine", Call: call("/items/..x/.y/a..b")},
		{Name: "composed", Steps: []*ir.Step{{Name: "first", Call: call("/a/%2E%2e/b")}}},
	}}
	err := CheckPaths(api)
	var de *diag.Errors
	if !errors.As(err, &de) {
		t.Fatalf("no errors: %v", err)
	}
	want := map[string]string{
		"#/paths/~1public~1..~1admin": `spec path "/public/../admin" has the dot segment ".." (tools get_admin, delete_admin)`,
		"#/paths/~1a~1%2E%2e~1b":      `spec path "/a/%2E%2e/b" has the dot segment "%2E%2e" (tool composed)`,
	}
	if len(de.List) != len(want) {
		t.Fatalf("%d errors, want %d:\n%v", len(de.List), len(want), err)
	}
	for _, d := range de.List {
		if w, ok := want[d.Pointer]; !ok || !strings.HasPrefix(d.Message, w) || d.Pos.File != "openapi.yaml" {
			t.Errorf("error %s at %s: %s", d.Pointer, d.Pos, d.Message)
		}
	}
}

func TestDotSegment(t *testing.T) {
	for path, want := range map[string]string{
		"/../../etc/passwd": "..", "/public/../admin/{id}": "..", "/a/./b": ".", "/a/.": ".",
		"/x/%2e%2E/y": "%2e%2E", "/x/.%2e": ".%2e", "/x/%2E": "%2E", "/x/..;jsessionid=1/y": "..;jsessionid=1",
		"/x/..%2f..": "..", `/x\..\y`: "..", "/x/a%5C..": "..",
		"/items/{id}": "", "/a..b": "", "/.well-known/x": "", "/x/...": "", "/x/%2e%2ex": "", "/": "", "": "",
	} {
		got, ok := DotSegment(path)
		if got != want || ok != (want != "") {
			t.Errorf("DotSegment(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
}
