package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/generate/schema"
	"github.com/tailormcp/tailor/internal/testkit"
)

// instructionsReach records, per client, whether the server's
// instructions reach the request the client sends its model on the
// client's own path: Gemini CLI puts them in its system prompt; the OpenAI
// Agents SDK and the Vercel AI SDK send only the system text the program
// gives them. TestClientsInstructions fails when a client changes, so
// that what tailor says once in the instructions is reconsidered.
var instructionsReach = map[string]bool{
	"openai-agents":    false,
	"vercel-openai":    false,
	"vercel-anthropic": false,
	"vercel-google":    false,
	"gemini-cli":       true,
}

// instructionsExposed records, per client, whether it hands the server's
// instructions to the program (the Vercel AI SDK's mcp.instructions, Gemini
// CLI's client.getInstructions()); the OpenAI Agents SDK does not.
var instructionsExposed = map[string]bool{
	"openai-agents":    false,
	"vercel-openai":    true,
	"vercel-anthropic": true,
	"vercel-google":    true,
	"gemini-cli":       true,
}

// TestClientsInstructions: a server whose tools share an argument's
// description (testdata/e2e/tokens: five tools take the same cursor) says
// it once in its instructions. Each client connects; the test records
// whether the instructions reach its model's request (instructionsReach)
// and the program (instructionsExposed), and asserts that every tool the
// client sends its model still says what the shared argument is (the
// description's short form, schema.SaidShort), while the rest of the text
// reaches the model only through the instructions.
func TestClientsInstructions(t *testing.T) {
	node, modules := clientTools(t)
	script := compatScript(t, modules)
	api := newModelAPI(t)
	spec := filepath.Join(testkit.RepoRoot(), "testdata", "e2e", "tokens", "openapi.yaml")
	gen, err := testkit.Generate(generator.Options{SpecPath: spec, Package: "tok", Name: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	instructions := gen.Curated.Instructions
	const cursor = "cursor"
	_, full, _ := strings.Cut(instructions, "\n- "+cursor+": ")
	full, _, _ = strings.Cut(full, "\n")
	var takers []string // the tools that describe the cursor so
	for _, tl := range gen.Curated.Tools {
		if argText(tl.InputSchema, cursor) == full {
			takers = append(takers, tl.Name)
		}
	}
	short := schema.SaidShort(full)
	rest := strings.TrimSpace(strings.TrimPrefix(full, short))
	if len(takers) < 2 || short == "" || rest == "" {
		t.Fatalf("the spec should share a cursor text longer than its short form %q; instructions:\n%s", short, instructions)
	}

	tg := compatTarget{name: "tok", command: tailorBinary(t), args: []string{"serve", "--spec", spec, "--name", "tok", "--"},
		env: targetEnv(gen.Curated, "TOK", "http://127.0.0.1:1")}
	api.reset(nil, nil)
	for _, r := range runClients(t, node, script, api, tg, "", compatRun{clients: compatClients}) {
		if r.Error != "" {
			t.Errorf("%s: %s", r.Client, lastLines(r.Error, 12))
			continue
		}
		rec := api.recording(r.Client)
		reach := strings.Contains(rec.text, instructions)
		exposed := r.Instructions == instructions
		t.Logf("%s: instructions reach the model: %v; handed to the program: %v", r.Client, reach, exposed)
		if reach != instructionsReach[r.Client] {
			t.Errorf("%s: the server's instructions reaching its model is now %v, recorded %v: update instructionsReach, and reconsider what model/shared.go says only there", r.Client, reach, instructionsReach[r.Client])
		}
		if exposed != instructionsExposed[r.Client] {
			t.Errorf("%s: the client handing the program the server's instructions is now %v, recorded %v (it gave %.80q)", r.Client, exposed, instructionsExposed[r.Client], r.Instructions)
		}
		if strings.Contains(rec.text, rest) != reach {
			t.Errorf("%s: the shared text beyond its short form (%q) reaches the model: %v; the instructions: %v", r.Client, rest, !reach, reach)
		}
		for _, n := range takers {
			st, ok := sentNamed(rec.tools, r.Names[n])
			if !ok {
				t.Errorf("%s: %s (%s) is not in the model request", r.Client, n, r.Names[n])
				continue
			}
			if d := argText(st.Schema, cursor); !strings.Contains(d, short) {
				t.Errorf("%s: %s sends %s described %q, without %q", r.Client, n, cursor, d, short)
			}
		}
	}
}

// sentNamed is the tool of the model request named name.
func sentNamed(tools []sentTool, name string) (sentTool, bool) {
	for _, st := range tools {
		if st.Name == name {
			return st, true
		}
	}
	return sentTool{}, false
}

// argText is the description of argument name in a full input schema
// ("" when it has none).
func argText(full json.RawMessage, name string) string {
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	json.Unmarshal(full, &s)
	return s.Properties[name].Description
}
