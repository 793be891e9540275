package mcpkit

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestFromStrict maps a call in strict form back to the full schema's
// shape: nulls of optional properties removed, pairs made an object, JSON
// text parsed, through $defs, items and anyOf branches; a call in the full
// form passes unchanged.
func TestFromStrict(t *testing.T) {
	tool := &Tool{StrictPlan: `{"o":["limit","body"],"p":{"body":{"r":"B"}},"d":{"B":{"o":["labels","extra","win","kids"],"p":{"labels":{"m":{}},"extra":{"j":true},"win":{"a":[{"o":["to"]}]},"kids":{"i":{"r":"B"}}}}}}`}
	for _, tc := range []struct{ in, want string }{
		{`{"limit":null,"body":{"labels":[{"key":"a","value":"1"}],"extra":"{\"x\":[1]}","win":{"from":1,"to":null},"kids":[{"labels":null,"extra":null,"win":null,"kids":null}]}}`,
			`{"body":{"extra":{"x":[1]},"kids":[{}],"labels":{"a":"1"},"win":{"from":1}}}`},
		// The full form.
		{`{"limit":5,"body":{"labels":{"a":"1"},"extra":{"x":1}}}`, `{"body":{"extra":{"x":1},"labels":{"a":"1"}},"limit":5}`},
		// Text that is not a JSON object stays for validation to refuse.
		{`{"body":{"extra":"not json","labels":[{"value":"no key"}]}}`, `{"body":{"extra":"not json","labels":[{"value":"no key"}]}}`},
		{`{"limit":null,"body":null}`, `{}`},
	} {
		dec := json.NewDecoder(bytes.NewReader([]byte(tc.in)))
		dec.UseNumber()
		var args map[string]any
		if err := dec.Decode(&args); err != nil {
			t.Fatal(err)
		}
		tool.fromStrict(args)
		got, _ := json.Marshal(args)
		if string(got) != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
	// A tool without a plan (listed in full) is left alone.
	plain := &Tool{}
	args := map[string]any{"a": nil}
	plain.fromStrict(args)
	if _, ok := args["a"]; !ok {
		t.Error("a tool without a plan dropped a null")
	}
}
