// Package templates holds the text/template sources of every file tailor
// generates, one template per output file. They live in their own package
// because //go:embed cannot reach files outside the embedding package's
// directory.
package templates

import "embed"

// FS holds the *.go.tmpl files.
//
//go:embed *.go.tmpl
var FS embed.FS
