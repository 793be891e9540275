// Package overlays publishes the JSON Schema of tailor's overlay format,
// overlay.schema.json, at the path users' overlays and editors refer to:
//
//	# yaml-language-server: $schema=https://raw.githubusercontent.com/tailormcp/tailor/main/overlays/overlay.schema.json
//
// The format itself is read by tailor's internal overlay package.
package overlays

import _ "embed"

// Schema is the JSON Schema of the overlay format.
//
//go:embed overlay.schema.json
var Schema []byte
