# tailor's everyday commands. `make demo` runs the bundled example end to
# end; `make test` runs every test (it installs the MCP Inspector CLI and
# the MCP clients of e2e/clients_test.go into .tools/ first, from the npm
# registry).

GO ?= go

.PHONY: all build demo demo-petstore demo-tracker eval test test-short golden generate check-examples inspector clients vet bench corpus-report fuzz fmtcheck

all: build test

build:
	$(GO) build -o bin/tailor ./cmd/tailor

# The main job on the bundled back-office example: generate the curated
# server from spec + overlay, build it, run it against the example backend,
# and print the story's tool calls as the model sees them.
demo:
	$(GO) generate ./examples/backoffice
	$(GO) build -o bin/backoffice ./examples/backoffice/mcpserver/cmd/backoffice
	$(GO) run ./examples/backoffice/demo --server bin/backoffice

# The back-office story's tasks (examples/backoffice/tasks.yaml) done by a
# real model with the raw and the curated tool sets, side by side (tailor
# eval); a fresh example backend per trial. It needs a key in the
# environment, or EVAL_BASE_URL for a local OpenAI-compatible server; the
# reports and transcripts go to .tools/eval.
EVAL_PROVIDER ?= anthropic
EVAL_MODEL ?= $(if $(filter openai%,$(EVAL_PROVIDER)),gpt-4.1,claude-sonnet-4-5)
EVAL_TRIALS ?= 5
EVAL_KEY = $(if $(filter openai%,$(EVAL_PROVIDER)),OPENAI_API_KEY,ANTHROPIC_API_KEY)
eval:
	@if [ -z "$$$(EVAL_KEY)" ] && [ -z "$(EVAL_BASE_URL)" ]; then \
	  echo "make eval has a real model do the example's tasks; set its API key in the environment:"; \
	  echo "  export ANTHROPIC_API_KEY=...   then  make eval                      (Anthropic, claude-sonnet-4-5)"; \
	  echo "  export OPENAI_API_KEY=...      then  make eval EVAL_PROVIDER=openai (OpenAI, gpt-4.1)"; \
	  echo "  make eval EVAL_PROVIDER=openai EVAL_BASE_URL=http://127.0.0.1:11434/v1 EVAL_MODEL=qwen3:8b (a local server)"; \
	  echo "EVAL_MODEL picks the model, EVAL_TRIALS the trials per task and tool set (default 5)."; \
	else \
	  set -e; \
	  $(GO) build -o bin/tailor ./cmd/tailor; \
	  $(GO) build -o bin/shop-api ./examples/backoffice/backend/cmd/shop-api; \
	  cd examples/backoffice && PATH="$(CURDIR)/bin:$$PATH" ../../bin/tailor eval tasks.yaml \
	    --spec openapi.yaml --overlay overlay.yaml --compare \
	    --provider $(EVAL_PROVIDER) --model $(EVAL_MODEL) --trials $(EVAL_TRIALS) \
	    $(if $(EVAL_BASE_URL),--base-url $(EVAL_BASE_URL)) --out $(CURDIR)/.tools/eval; \
	fi

# The raw tool set of a small API, without an overlay.
demo-petstore:
	$(GO) generate ./examples/petstore
	$(GO) build -o bin/petstore ./examples/petstore/mcpserver/cmd/petstore
	$(GO) run ./examples/petstore/demo --server bin/petstore

# An API without preview endpoints (issues and repositories): every write is
# approved by the person, and deleting a repository goes through a quote the
# server holds. Generates and builds the server, starts the example API on
# loopback, and replays the story's scenarios with tailor test (the
# simulated person answers each approval).
demo-tracker:
	$(GO) generate ./examples/tracker
	$(GO) build -o bin/tracker ./examples/tracker/mcpserver/cmd/tracker
	$(GO) build -o bin/tracker-api ./examples/tracker/backend/cmd/tracker-api
	$(GO) build -o bin/tailor ./cmd/tailor
	bin/tracker-api -addr 127.0.0.1:8090 & api=$$!; trap 'kill $$api' EXIT; sleep 1; \
	bin/tailor test examples/tracker/scenarios.yaml --server tracker=bin/tracker --backend http://127.0.0.1:8090

inspector:
	bash scripts/install-inspector.sh

# The MCP clients of e2e/clients_test.go (OpenAI Agents SDK, Vercel AI SDK,
# Gemini CLI's core), from the npm registry into .tools/clients.
clients:
	bash scripts/install-clients.sh

test: inspector clients fmtcheck
	$(GO) vet ./...
	TAILOR_REQUIRE_INSPECTOR=1 TAILOR_REQUIRE_CLIENTS=1 $(GO) test -count=1 -timeout 60m ./...
	$(MAKE) fuzz

# Every Go file in the repository as gofmt writes it.
fmtcheck:
	@files=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$files" ]; then echo "not formatted by gofmt (run gofmt -w):"; echo "$$files"; exit 1; fi

# Each fuzz target briefly beyond its seeds (which every go test runs);
# a failing input is saved under testdata/fuzz and becomes a seed.
# The budget is a count of runs, not a duration: Go 1.26's fuzzing
# coordinator can report its own -fuzztime deadline as a failure
# ("context deadline exceeded", go.dev/issue/75804, fixed in Go 1.27) when
# a loaded machine leaves a worker mid-run at that moment; a count has no
# deadline to race. Minimizing a new input is bounded by a count too.
FUZZEXECS ?= 20000
FUZZFLAGS = -run '^$$' -fuzztime $(FUZZEXECS)x -fuzzminimizetime 2000x
fuzz:
	$(GO) test ./mcpkit $(FUZZFLAGS) -fuzz '^FuzzArguments$$'
	$(GO) test ./mcpkit/internal/redact $(FUZZFLAGS) -fuzz '^FuzzRedact$$'
	$(GO) test ./mcpkit/internal/redact $(FUZZFLAGS) -fuzz '^FuzzRedactorMatchesExpression$$'
	$(GO) test ./mcpkit $(FUZZFLAGS) -fuzz '^FuzzStdioFilter$$'
	$(GO) test ./mcpkit $(FUZZFLAGS) -fuzz '^FuzzDecodeMessage$$'
	$(GO) test ./mcpkit $(FUZZFLAGS) -fuzz '^FuzzFitsSurely$$'
	$(GO) test ./internal/review/report $(FUZZFLAGS) -fuzz '^FuzzRead$$'
	$(GO) test ./internal/review/scenario $(FUZZFLAGS) -fuzz '^FuzzParse$$'
	$(GO) test ./internal/review/eval $(FUZZFLAGS) -fuzz '^FuzzParse$$'
	$(GO) test ./internal/generate/schema $(FUZZFLAGS) -fuzz '^FuzzMarshalString$$'

# Unit and golden tests only; no servers are built.
test-short:
	$(GO) test -short ./...

# Rewrite what every testdata/cases/<case> expects after an intended change.
golden:
	$(GO) test ./internal/cli -run TestCases -update

generate:
	$(GO) generate ./examples/...

# Rewrite docs/corpus.md, the table of what tailor does with each spec of
# ../shared/corpus (TestCorpus fails when it is stale).
corpus-report:
	$(GO) test ./e2e -run 'TestCorpus$$' -update-corpus-report -count=1 -timeout 30m

# Fail when the committed example output differs from a fresh generation.
check-examples: generate
	git diff --exit-code -- examples

# Benchmark beside openapi-mcp-generator (installed from npm into .tools/):
# generation, cold start, tool calls, HTTP throughput, memory, tools/list
# size, on the bundled example and ../shared/corpus. Takes a while; results
# go to stdout and .tools/bench-results.md (see BENCHMARKS.md).
# Then what telemetry costs a call (bench/telemetry.sh): off against the
# code before it (TELEMETRY_BASELINE), and on against off.
bench:
	$(GO) run ./bench/cmd/tailorbench --out .tools/bench-results.md $(BENCHFLAGS)
	bash bench/telemetry.sh $(TELEMETRY_BASELINE) | tee -a .tools/bench-results.md
