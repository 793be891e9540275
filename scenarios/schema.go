// Package scenarios publishes the JSON Schemas of `tailor test`'s scenario
// files (scenario.schema.json) and `tailor eval`'s task files
// (task.schema.json, which refers to the scenario schema's conditions),
// beside this file, at a stable address that a file names on its first
// line for editors:
//
//	# yaml-language-server: $schema=https://raw.githubusercontent.com/tailormcp/tailor/main/scenarios/scenario.schema.json
//
// The formats themselves are read by internal/review/scenario and
// internal/review/eval; tests there check that each agrees with its schema.
package scenarios

import _ "embed"

// Schema is the JSON Schema of scenario files.
//
//go:embed scenario.schema.json
var Schema []byte

// SchemaID is the schema's $id, the address scenario files refer to.
const SchemaID = "https://raw.githubusercontent.com/tailormcp/tailor/main/scenarios/scenario.schema.json"

// TaskSchema is the JSON Schema of task files.
//
//go:embed task.schema.json
var TaskSchema []byte

// TaskSchemaID is the task schema's $id.
const TaskSchemaID = "https://raw.githubusercontent.com/tailormcp/tailor/main/scenarios/task.schema.json"
