package e2e

import (
	"os"
	"testing"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/testkit"
)

// compatSample are the corpus specs every client runs on; on the others
// only the Vercel AI SDK with its OpenAI provider (the fastest client to
// start: Gemini CLI's core takes seconds to load) and the OpenAI Agents
// SDK (the strict conversion) connect, send every tool and call one. The
// largest specs and the ones whose shapes differ most are sampled;
// TAILOR_CLIENTS_EVERY=1 runs every client on every spec.
var compatSample = map[string]bool{
	"api-with-examples": true, "stripe": true, "kubernetes-v2": true, "rebilly-3.1": true,
	"train-travel-3.1": true, "frigate-3.1": true, "sonarr-3.0": true, "moby-2.0": true,
}

// TestClientsCorpus runs the clients on `tailor serve` of every spec of
// the corpus (../shared/corpus and its wild/) and calls a read-only tool
// through each, with checkClients' assertions; the name limits are
// measured per spec in the "names" subtests. It logs each spec's findings
// and the corpus totals.
func TestClientsCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	node, modules := clientTools(t)
	dir := testkit.CorpusDir()
	if dir == "" {
		t.Skip("corpus not found beside the repository (../shared/corpus)")
	}
	specs, err := testkit.CorpusSpecs(dir)
	if err != nil {
		t.Fatal(err)
	}
	script := compatScript(t, modules)
	api := newModelAPI(t)
	backend := compatBackend(t)
	var total compatFindings
	for _, s := range specs {
		t.Run(s.Name, func(t *testing.T) {
			// The tool set tailor serve serves, with the server name it
			// chooses (no --name): the key a client config gives it.
			out, err := generator.Run(generator.Options{SpecPath: s.Path, RefRoot: s.RefRoot})
			if err != nil {
				t.Fatalf("generate: %v", err)
			}
			tools := out.Curated
			tool, args := readOnlyCall(tools)
			serveArgs := []string{"serve", "--spec", s.Path}
			if s.RefRoot != "" {
				serveArgs = append(serveArgs, "--ref-root", s.RefRoot)
			}
			tg := compatTarget{name: tools.Name, command: tailorBinary(t), args: append(serveArgs, "--"),
				env:   targetEnv(tools, tools.EnvPrefix, backend.URL),
				tools: apiToolNames(tools), call: tool, callArgs: args, backend: backend}
			clients := []string{"openai-agents", "vercel-openai"}
			if compatSample[s.Name] || os.Getenv("TAILOR_CLIENTS_EVERY") == "1" {
				clients = compatClients
			}
			f := checkClients(t, node, script, api, tg, clients)
			t.Logf("%s: %s", s.Name, f)
			total.add(f)
		})
	}
	t.Logf("corpus: %d specs, %s", len(specs), total)
}
