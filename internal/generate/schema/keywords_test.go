package schema

import "testing"

// TestAsType: an enum value of another type than the schema's is read as
// that type only where its text says so exactly.
func TestAsType(t *testing.T) {
	cases := []struct {
		v     any
		types []string
		want  any // nil: not read
	}{
		{float64(0), []string{"string"}, "0"},
		{2.5, []string{"string"}, "2.5"},
		{true, []string{"string"}, "true"},
		{"10", []string{"integer"}, float64(10)},
		{"-3", []string{"integer", "null"}, float64(-3)},
		{"1.5", []string{"integer"}, nil},
		{"9007199254740993", []string{"integer"}, nil}, // not exact as a JSON number
		{"1e3", []string{"number"}, float64(1000)},
		{"NaN", []string{"number"}, nil},
		{"true", []string{"boolean"}, true},
		{"True", []string{"boolean"}, nil},
		{"x", []string{"integer"}, nil},
		{float64(1), []string{"boolean"}, nil},
		{[]any{"a"}, []string{"string"}, nil},
	}
	for _, c := range cases {
		got, ok := asType(c.v, c.types)
		if c.want == nil {
			if ok {
				t.Errorf("asType(%#v, %v) = %#v, want not read", c.v, c.types, got)
			}
			continue
		}
		if !ok || got != c.want {
			t.Errorf("asType(%#v, %v) = %#v, %v, want %#v", c.v, c.types, got, ok, c.want)
		}
	}
}
