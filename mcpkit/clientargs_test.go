package mcpkit

import (
	"strings"
	"testing"
)

// A client-added argument is dropped before validation of a closed schema;
// any other unknown argument is still refused, and a tool that declares an
// argument of that name gets it.
func TestDropClientArgs(t *testing.T) {
	closed, err := compileSchema("closed", `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}`)
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"id": "1", "wait_for_previous": true}
	closed.dropClientArgs(args)
	if problems, _ := closed.validate(args); len(problems) > 0 {
		t.Errorf("Gemini CLI's wait_for_previous refused: %v", problems)
	}
	if _, kept := args["wait_for_previous"]; kept {
		t.Errorf("wait_for_previous still in the arguments: %v", args)
	}
	other := map[string]any{"id": "1", "wait_for_next": true}
	closed.dropClientArgs(other)
	if problems, _ := closed.validate(other); len(problems) == 0 || !strings.Contains(strings.Join(problems, " "), "wait_for_next") {
		t.Errorf("an unknown argument is accepted: %v", problems)
	}
	own, err := compileSchema("own", `{"type":"object","properties":{"wait_for_previous":{"type":"string"}},"additionalProperties":false}`)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]any{"wait_for_previous": true}
	own.dropClientArgs(declared)
	if problems, _ := own.validate(declared); len(problems) == 0 {
		t.Errorf("a declared wait_for_previous was dropped instead of validated: %v", declared)
	}
}
