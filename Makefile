# tailor's everyday commands. `make demo` runs the bundled example end to
# end; `make test` runs every test (it installs the MCP Inspector CLI into
# .tools/ first, from the npm registry).

GO ?= go

.PHONY: all build demo test test-short golden generate check-examples inspector vet

all: build test

build:
	$(GO) build -o bin/tailor ./cmd/tailor

# Generate the example's server, build it, run it against the example
# backend, and print what the model sees.
demo:
	$(GO) generate ./examples/petstore
	$(GO) build -o bin/petstore ./examples/petstore/mcpserver/cmd/petstore
	$(GO) run ./examples/petstore/demo --server bin/petstore

inspector:
	bash scripts/install-inspector.sh

test: inspector
	$(GO) vet ./...
	TAILOR_REQUIRE_INSPECTOR=1 $(GO) test -count=1 -timeout 30m ./...

# Unit and golden tests only; no servers are built.
test-short:
	$(GO) test -short ./...

# Rewrite golden files after an intended change to the generated code.
golden:
	$(GO) test ./generator -run Golden -update

generate:
	$(GO) generate ./examples/...

# Fail when the committed example output differs from a fresh generation.
check-examples: generate
	git diff --exit-code -- examples
