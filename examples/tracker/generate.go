// Package tracker is tailor's second example: a code host's issues and
// repositories (openapi.yaml), an API without any preview endpoint, as most
// APIs people wrap are. The overlay (overlay.yaml) asks the person before
// every write: creating an issue and closing one ask through `approval:`
// (closing shows the title, read first); deleting a repository goes
// through a quote the server computes itself (quote_delete_repository holds
// the arguments, nothing is sent) and a confirm tool that carries out
// exactly those arguments once, after the person approves. backend/ is the
// API in memory; scenarios.yaml replays the story with `tailor test`.
package tracker

//go:generate go run ../../cmd/tailor generate --spec openapi.yaml --overlay overlay.yaml --out mcpserver --package mcpserver --main --omit-version -q
