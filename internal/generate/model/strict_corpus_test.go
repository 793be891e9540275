package model_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/generate/load"
	"github.com/tailormcp/tailor/internal/generate/model"
	"github.com/tailormcp/tailor/internal/generate/schema"
	"github.com/tailormcp/tailor/internal/testkit"
)

// TestCorpusStrict converts every raw tool of every corpus and wild spec
// into its strict form, as the tool set lists it (model.Strict: shared
// descriptions said once, the budget of its size), and checks it against OpenAI's strict rules: the
// listed schema of every tool must be accepted as strict. Skips without
// ../shared/corpus.
func TestCorpusStrict(t *testing.T) {
	dir := testkit.CorpusDir()
	if dir == "" {
		t.Skip("corpus not found beside the repository (../shared/corpus)")
	}
	specs, err := testkit.CorpusSpecs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, cs := range specs {
		t.Run(cs.Name, func(t *testing.T) {
			spec, err := load.Load(cs.Path, load.Options{RefRoot: cs.RefRoot, SkipValidation: true})
			if err != nil {
				t.Skipf("does not load: %v", err)
			}
			api, _ := model.Raw(spec, model.Options{})
			bad := 0
			var first []string
			for _, w := range model.Strict(api) {
				if strings.Contains(w.Message, "has no strict form") {
					t.Fatalf("%s", w.Message)
				}
			}
			for _, tool := range api.Tools {
				listed := tool.StrictSchema
				if listed == nil {
					listed = tool.InputSchema
				}
				if p := schema.CheckStrict(listed); len(p) > 0 {
					bad++
					if len(first) < 5 {
						first = append(first, fmt.Sprintf("%s: %s", tool.Name, strings.Join(p[:min(len(p), 4)], "; ")))
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d tools break the strict rules:\n%s", bad, len(api.Tools), strings.Join(first, "\n"))
			}
		})
	}
}
