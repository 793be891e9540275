package overlay

import (
	"strings"
	"testing"
)

// TestNamePatterns: names are checked by their characters and, apart,
// their length, with the bounds the messages state.
func TestNamePatterns(t *testing.T) {
	for _, c := range []struct {
		p    namePattern
		name string
		ok   bool
	}{
		{toolName, "get_order-2", true},
		{toolName, strings.Repeat("a", 64), true},
		{toolName, strings.Repeat("a", 65), false},
		{toolName, "", false},
		{toolName, "get order", false},
		{toolName, "get.order", false},
		{toolName, "commandé", false},
		{argName, "body.total", true},
		{argName, strings.Repeat("b", 65), false},
		{stepName, "apply_2", true},
		{stepName, "_x", true},
		{stepName, "2apply", false},
		{stepName, strings.Repeat("s", 40), true},
		{stepName, strings.Repeat("s", 41), false},
	} {
		if got := c.p.MatchString(c.name); got != c.ok {
			t.Errorf("%s matches %q: %v, want %v", c.p, c.name, got, c.ok)
		}
	}
	if got := toolsetName.String(); got != "^[a-zA-Z0-9_-]{1,64}$" {
		t.Errorf("toolset names read as %s", got)
	}
}
