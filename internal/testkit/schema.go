package testkit

import (
	"encoding/json"
	"testing"
)

// SchemaKeys are the property names a JSON Schema declares anywhere in
// it (under every "properties"), for tests that compare a schema with a
// parser or a document naming the same keys.
func SchemaKeys(t testing.TB, schema []byte) map[string]bool {
	t.Helper()
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if props, ok := x["properties"].(map[string]any); ok {
				for k := range props {
					keys[k] = true
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(root)
	return keys
}
