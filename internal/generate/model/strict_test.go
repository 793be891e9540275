package model_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/generate/schema"
	"github.com/tailormcp/tailor/internal/testkit"
)

// TestStrictClasses runs the pipeline on a spec with one schema of each
// class strict mode refuses as it is (testdata/e2e/strict): every tool
// lists a strict schema that keeps OpenAI's rules, keeps its full schema
// for validation, and what the model cannot say any more is a warning.
// --full-schemas lists the full schema.
func TestStrictClasses(t *testing.T) {
	spec := filepath.Join(testkit.RepoRoot(), "testdata", "e2e", "strict", "openapi.yaml")
	out, err := generator.Run(generator.Options{SpecPath: spec, Package: "strict", SkipValidation: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range out.Curated.Tools {
		if len(tool.StrictSchema) == 0 {
			t.Fatalf("%s has no strict schema", tool.Name)
		}
		if p := schema.CheckStrict(tool.StrictSchema); len(p) > 0 {
			t.Errorf("%s: strict schema breaks the rules: %v\n%s", tool.Name, p, tool.StrictSchema)
		}
		if p := schema.CheckStrict(tool.InputSchema); len(p) == 0 {
			t.Errorf("%s: the full schema keeps the strict rules too: the spec does not test the conversion", tool.Name)
		}
	}
	var warned []string
	for _, w := range out.Warnings() {
		if strings.Contains(w.Message, "strict form") {
			warned = append(warned, w.String())
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], `tool "add_note"`) || !strings.Contains(warned[0], "at meta, properties beyond the listed ones cannot be sent") {
		t.Errorf("strict-form warnings:\n%s", strings.Join(warned, "\n"))
	}

	full, err := generator.Run(generator.Options{SpecPath: spec, Package: "strict", SkipValidation: true, FullSchemas: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range full.Curated.Tools {
		if tool.StrictSchema != nil {
			t.Errorf("%s: --full-schemas still made a strict schema", tool.Name)
		}
	}
}
