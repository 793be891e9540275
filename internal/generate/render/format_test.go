package render

import (
	"strings"
	"testing"
)

// TestFormatErrorShowsLines: generated source that does not parse is
// reported with the lines around the error, numbered, not just a position.
func TestFormatErrorShowsLines(t *testing.T) {
	src := "package x\n\nvar a = 1\n\nvar b = mcpkit.Tool{\n\tName: \"b\"\n}\n\nvar c = 3\n"
	_, err := formatHead("tools.go", []byte(src))
	if err == nil {
		t.Fatal("no error for source that does not parse")
	}
	for _, want := range []string{"generated tools.go does not parse", "6:11:", "    6 > \tName: \"b\"", "    3   var a = 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
}
