package model

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/schema"
)

// Arguments that mean the same in many tools (stripe's expand, limit and
// pagination cursors, on hundreds of tools) would repeat their description
// in every listed tool, and every tool definition is paid on every turn.
// Such a description is said once, in the server's instructions, which a
// client reads once per session; each listed schema keeps only its short
// form (schema.SaidShort: the first sentence, bounded). Not every client
// passes the instructions to its model (Claude Code and Gemini CLI do; the
// OpenAI Agents SDK and the Vercel AI SDK do not: TestClientsInstructions
// records each), so the short form is what every model reads, and the
// instructions add the rest where they arrive. The full schema keeps the
// whole text: describe_tool, --full-schemas and validation see it.

// sharedMinTools is how many tools must give an argument the same
// description for it to be said once: below, the instructions' line costs
// about what it saves.
const sharedMinTools = 5

// sharedText bounds a shared description in the instructions, in bytes.
const sharedText = 200

// sharedArguments finds the top-level arguments that sharedMinTools or more
// tools of api describe with the same text: argument name → that text (as
// written in the full schema).
func sharedArguments(api *ir.API) map[string]string {
	type key struct{ name, desc string }
	count := map[key]int{}
	for _, t := range api.Tools {
		var root struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		if schema.Unmarshal(t.InputSchema, &root) != nil {
			continue
		}
		for name, p := range root.Properties {
			if strings.TrimSpace(p.Description) != "" {
				count[key{name, p.Description}]++
			}
		}
	}
	shared := map[string]string{}
	best := map[string]int{}
	for k, n := range count {
		// One text per name: the most used (the lesser text on a tie, so
		// that the choice does not depend on map order).
		if n < sharedMinTools {
			continue
		}
		if n > best[k.name] || n == best[k.name] && k.desc < shared[k.name] {
			shared[k.name], best[k.name] = k.desc, n
		}
	}
	return shared
}

// sharedInstructions is the paragraph of the instructions that says the
// shared arguments' descriptions, sorted by name ("" when none).
func sharedInstructions(shared map[string]string) string {
	if len(shared) == 0 {
		return ""
	}
	names := make([]string, 0, len(shared))
	for n := range shared {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("Arguments that mean the same in every tool that takes them:")
	for _, n := range names {
		text := strings.Join(strings.Fields(schema.TrimText(schema.PlainText(shared[n]), sharedText)), " ")
		fmt.Fprintf(&b, "\n- %s: %s", n, text)
	}
	return b.String()
}

// withInstructions appends a generated paragraph to the overlay's
// instructions.
func withInstructions(have, more string) string {
	switch {
	case more == "":
		return have
	case have == "":
		return more
	}
	return have + "\n\n" + more
}
