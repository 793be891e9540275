// Package scenarios publishes the JSON Schema of `tailor test`'s scenario
// files, scenario.schema.json beside this file, at a stable address that
// a scenario file names on its first line for editors:
//
//	# yaml-language-server: $schema=https://raw.githubusercontent.com/tailormcp/tailor/main/scenarios/scenario.schema.json
//
// The format itself is read by internal/review/scenario; a test there
// checks that the two agree.
package scenarios

import _ "embed"

// Schema is the JSON Schema of scenario files.
//
//go:embed scenario.schema.json
var Schema []byte

// SchemaID is the schema's $id, the address scenario files refer to.
const SchemaID = "https://raw.githubusercontent.com/tailormcp/tailor/main/scenarios/scenario.schema.json"
