// Package petstore is tailor's bundled example: a small shelter API
// (openapi.yaml), the MCP server tailor generates from it (mcpserver/), an
// in-memory backend implementing the API (backend/), and a demo that runs
// them together and prints what the model would see (demo/).
//
// `go generate ./examples/petstore` regenerates mcpserver/; tests fail when
// the committed files differ from what tailor generates.
package petstore

//go:generate go run ../../cmd/tailor generate --spec openapi.yaml --out mcpserver --package mcpserver --name petstore --main --omit-version -q
