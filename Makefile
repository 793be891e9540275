# tailor's everyday commands. `make demo` runs the bundled example end to
# end; `make test` runs every test (it installs the MCP Inspector CLI into
# .tools/ first, from the npm registry).

GO ?= go

.PHONY: all build demo demo-petstore test test-short golden generate check-examples inspector vet bench corpus-report fuzz fmtcheck

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

# The raw tool set of a small API, without an overlay.
demo-petstore:
	$(GO) generate ./examples/petstore
	$(GO) build -o bin/petstore ./examples/petstore/mcpserver/cmd/petstore
	$(GO) run ./examples/petstore/demo --server bin/petstore

inspector:
	bash scripts/install-inspector.sh

test: inspector fmtcheck
	$(GO) vet ./...
	TAILOR_REQUIRE_INSPECTOR=1 $(GO) test -count=1 -timeout 30m ./...
	$(MAKE) fuzz

# Every Go file in the repository as gofmt writes it.
fmtcheck:
	@files=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$files" ]; then echo "not formatted by gofmt (run gofmt -w):"; echo "$$files"; exit 1; fi

# Each fuzz target briefly beyond its seeds (which every go test runs);
# a failing input is saved under testdata/fuzz and becomes a seed.
FUZZTIME ?= 10s
fuzz:
	$(GO) test ./mcpkit -run '^$$' -fuzz '^FuzzArguments$$' -fuzztime $(FUZZTIME)
	$(GO) test ./mcpkit -run '^$$' -fuzz '^FuzzRedact$$' -fuzztime $(FUZZTIME)
	$(GO) test ./mcpkit -run '^$$' -fuzz '^FuzzStdioFilter$$' -fuzztime $(FUZZTIME)
	$(GO) test ./mcpkit -run '^$$' -fuzz '^FuzzDecodeMessage$$' -fuzztime $(FUZZTIME)
	$(GO) test ./mcpkit -run '^$$' -fuzz '^FuzzFitsSurely$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/review/report -run '^$$' -fuzz '^FuzzRead$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/review/scenario -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/generate/schema -run '^$$' -fuzz '^FuzzMarshalString$$' -fuzztime $(FUZZTIME)

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
