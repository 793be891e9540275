package model

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/generate/load"
)

// batchSpec has more operations than a batch, each reaching components
// first converted in its own batch or an earlier one: chains across
// batches, a cycle, a component reached again past a cut of the output
// budget, shared response schemas.
func batchSpec(ops int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {`)
	for i := range ops {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"/items%d": {"post": {"operationId": "op%d",
			"requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {
				"a": {"$ref": "#/components/schemas/C%d"}, "b": {"$ref": "#/components/schemas/C%d"}, "note": {"type": "string", "description": "<%d>"}}}}}},
			"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/C%d"}}}}}}}`,
			i, i, i, (i*7)%ops, i, (i/3)*3)
	}
	b.WriteString(`}, "components": {"schemas": {`)
	for i := range ops {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"C%d": {"type": "object", "description": "component %d & more", "properties": {
			"next": {"$ref": "#/components/schemas/C%d"}, "back": {"$ref": "#/components/schemas/C%d"}, "text": {"type": "string", "maxLength": %d}}}`,
			i, i, (i+1)%ops, (i+ops-5)%ops, i+1)
	}
	b.WriteString(`}}}`)
	return []byte(b.String())
}

// TestBatchedEncodingIsEncodingAtTheEnd wants the tools' schemas encoded
// in batches between tools to be the bytes encoding them all after the
// last tool gives, whatever the batch size.
func TestBatchedEncodingIsEncodingAtTheEnd(t *testing.T) {
	data := batchSpec(150)
	run := func(batch int) ([][]byte, []string) {
		t.Helper()
		defer func(b int) { encodeBatch = b }(encodeBatch)
		encodeBatch = batch
		spec, err := load.LoadData("batch.json", data, load.Options{SkipValidation: true})
		if err != nil {
			t.Fatal(err)
		}
		api, _ := Raw(spec, Options{Name: "batch", OutputSchemaBudget: 2 << 10})
		var out [][]byte
		var names []string
		for _, tool := range api.Tools {
			out = append(out, tool.InputSchema, tool.OutputSchema)
			names = append(names, tool.Name)
		}
		return out, names
	}
	want, wantNames := run(1 << 30)
	if len(wantNames) != 150 {
		t.Fatalf("%d tools, want 150", len(wantNames))
	}
	for _, batch := range []int{1, 2, 7, 64} {
		got, names := run(batch)
		if strings.Join(names, " ") != strings.Join(wantNames, " ") {
			t.Fatalf("batch %d: tools %q, want %q", batch, names, wantNames)
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("batch %d: tool %s's schema %d:\n got %s\nwant %s", batch, names[i/2], i%2, got[i], want[i])
			}
		}
	}
}
