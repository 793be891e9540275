package jsonv

import (
	"strings"
	"testing"
)

// Depth counts the nesting of arrays and objects, not the brackets and
// quotes inside strings.
func TestDepth(t *testing.T) {
	for in, want := range map[string]int{
		`{}`: 1, `{"a":[1,{"b":"[[[["}]}`: 3, `"x"`: 0, `{"a":"\"{"}`: 1,
		strings.Repeat("[", 100) + strings.Repeat("]", 100): 100,
		`1`:                              0,
		`{"a": [1, {"b": []}]}`:          4,
		`{"a": "{[{["}`:                  1,
		`{"a": "\"{[", "b": [[]]}`:       3,
		`{"a\\": {"b": "\\\\"}, "c": 1}`: 2,
		`[[[[]]], []]`:                   4,
	} {
		if got := Depth([]byte(in)); got != want {
			t.Errorf("%s: %d, want %d", in, got, want)
		}
	}
}
