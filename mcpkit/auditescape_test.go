package mcpkit

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestEscapeInvisible(t *testing.T) {
	in := map[string]string{"a": "pay\u202eDSU\u202c\x7fok\u0085\u200b\U000e0041 café 日本"}
	b, _ := json.Marshal(in)
	got := escapeInvisible(b)
	for _, raw := range []string{"\u202e", "\u202c", "\x7f", "\u0085", "\u200b", "\U000e0041"} {
		if strings.Contains(string(got), raw) {
			t.Errorf("%q left raw in %s", raw, got)
		}
	}
	for _, esc := range []string{`\u202e`, `\u007f`, `\u0085`, `\udb40\udc41`} {
		if !strings.Contains(string(got), esc) {
			t.Errorf("%s missing in %s", esc, got)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["a"] != in["a"] {
		t.Errorf("escaped line decodes to %q (%v), want %q", back["a"], err, in["a"])
	}
	plain := []byte(`{"a":"café"}`)
	if got := escapeInvisible(plain); string(got) != string(plain) {
		t.Errorf("visible text changed: %s", got)
	}
}
