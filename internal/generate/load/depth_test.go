package load

import "testing"

// jsonDepth counts the nesting of arrays and objects, not the brackets
// and quotes inside strings.
func TestJSONDepth(t *testing.T) {
	for text, want := range map[string]int{
		`1`:                              0,
		`{}`:                             1,
		`{"a": [1, {"b": []}]}`:          4,
		`{"a": "{[{["}`:                  1,
		`{"a": "\"{[", "b": [[]]}`:       3,
		`{"a\\": {"b": "\\\\"}, "c": 1}`: 2,
		`[[[[]]], []]`:                   4,
	} {
		if got := jsonDepth([]byte(text)); got != want {
			t.Errorf("jsonDepth(%s) = %d, want %d", text, got, want)
		}
	}
}
