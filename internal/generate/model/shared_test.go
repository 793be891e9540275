package model

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/generate/ir"
)

// An argument described alike in sharedMinTools tools is described once,
// in the instructions, and listed with its short form; one described
// alike in fewer tools keeps its text in each.
func TestSharedArgumentsSaidOnce(t *testing.T) {
	api := &ir.API{Instructions: "From the overlay."}
	for i := range sharedMinTools {
		api.Tools = append(api.Tools, &ir.Tool{Name: fmt.Sprintf("t%d", i), InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"expand":{"type":"array","items":{"type":"string"},"description":"<p>Fields to expand.</p><p>Each a dotted path.</p>"},` +
			`"rare":{"type":"string","description":"Said in few tools."}}}`)})
	}
	api.Tools[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"expand":{"type":"string","description":"Something else."}}}`)
	api.Tools = append(api.Tools, &ir.Tool{Name: "extra", InputSchema: json.RawMessage(`{"type":"object","properties":{"expand":{"type":"array","items":{"type":"string"},"description":"<p>Fields to expand.</p><p>Each a dotted path.</p>"}}}`)})
	if w := Strict(api); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
	want := "From the overlay.\n\nArguments that mean the same in every tool that takes them:\n- expand: Fields to expand. Each a dotted path."
	if api.Instructions != want {
		t.Errorf("instructions = %q, want %q", api.Instructions, want)
	}
	for _, tl := range api.Tools {
		s := string(tl.StrictSchema)
		if tl.Name != "t0" && (strings.Contains(s, "dotted path") || !strings.Contains(s, `"Fields to expand."`)) {
			t.Errorf("%s lists more or less than the shared text's short form: %s", tl.Name, s)
		}
		if tl.Name == "t0" && !strings.Contains(s, "Something else.") {
			t.Errorf("t0 lost its own text: %s", s)
		}
		if tl.Name != "t0" && tl.Name != "extra" && !strings.Contains(s, "Said in few tools.") {
			t.Errorf("%s lost a text said in fewer than %d tools: %s", tl.Name, sharedMinTools, s)
		}
		if !strings.Contains(string(tl.InputSchema), "description") {
			t.Errorf("%s: the full schema lost its text", tl.Name)
		}
	}
}

// A schema already in strict form is not kept twice: the tool keeps no
// StrictSchema, and InputSchema is listed.
func TestStrictOnlyWhereItDiffers(t *testing.T) {
	same := `{"additionalProperties":false,"properties":{"id":{"type":"string"}},"required":["id"],"type":"object"}`
	api := &ir.API{Tools: []*ir.Tool{
		{Name: "same", InputSchema: json.RawMessage(same)},
		{Name: "differs", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)},
	}}
	Strict(api)
	if api.Tools[0].StrictSchema != nil {
		t.Errorf("same: StrictSchema %s kept beside an equal InputSchema", api.Tools[0].StrictSchema)
	}
	if api.Tools[1].StrictSchema == nil {
		t.Errorf("differs: no StrictSchema")
	}
}
