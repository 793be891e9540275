package model_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/generate/load"
	"github.com/tailormcp/tailor/internal/generate/model"
	"github.com/tailormcp/tailor/internal/testkit"
)

// The clients' own rules, written out here apart from model.Clients so
// that a wrong table fails this test.
var (
	anthropicName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	clientInvalid = regexp.MustCompile(`[^a-zA-Z0-9_-]`)
	geminiInvalid = regexp.MustCompile(`[^a-zA-Z0-9_\-.:]`)
)

// claudeName is the name Claude Code and the Claude Agent SDK send.
func claudeName(server, tool string) string {
	return "mcp__" + clientInvalid.ReplaceAllString(server, "_") + "__" + clientInvalid.ReplaceAllString(tool, "_")
}

// geminiName is the name Gemini CLI sends: mcp_<server>_<tool>, its middle
// cut past 63 characters.
func geminiName(server, tool string) string {
	n := geminiInvalid.ReplaceAllString("mcp_"+server+"_"+tool, "_")
	if len(n) > 63 {
		n = n[:30] + "..." + n[len(n)-30:]
	}
	return n
}

// TestCorpusNamesFitClients names every raw tool of every corpus and wild
// spec with the server name tailor reports by default and checks it as
// each major client would send it: within Claude Code's and OpenAI's 64,
// Gemini CLI's 63 with no tool lost to its cut, Cursor's 60 for server and
// tool together. Skips without ../shared/corpus.
func TestCorpusNamesFitClients(t *testing.T) {
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
			server := api.Name
			if len(server) > 16 || !model.ValidToolName(server) {
				t.Errorf("default server name %q: not short and valid", server)
			}
			gemini := map[string]string{}
			var bad []string
			for _, tool := range api.Tools {
				n := tool.Name
				if c := claudeName(server, n); !anthropicName.MatchString(c) {
					bad = append(bad, "Claude Code: "+c)
				}
				if !anthropicName.MatchString(n) {
					bad = append(bad, "OpenAI: "+n)
				}
				if len(server)+len(n) >= 60 {
					bad = append(bad, "Cursor: "+server+" "+n)
				}
				g := geminiName(server, n)
				if strings.Contains(g, "...") {
					bad = append(bad, "Gemini CLI cuts: "+g)
				}
				if other, ok := gemini[g]; ok {
					bad = append(bad, "Gemini CLI merges "+other+" and "+n)
				}
				gemini[g] = n
			}
			if len(bad) > 0 {
				t.Errorf("%d of %d names do not fit:\n%s", len(bad), len(api.Tools), strings.Join(bad[:min(len(bad), 10)], "\n"))
			}
		})
	}
}
