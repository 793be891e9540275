package confusable

import (
	"slices"
	"testing"
)

func TestToLatin(t *testing.T) {
	for _, c := range []struct {
		in, want string
		replaced []rune
	}{
		{"get_user", "get_user", nil},
		{"get_us\u0435r", "get_user", []rune{'\u0435'}},                             // Cyrillic е
		{"\u0440\u0430y_\u043eut", "pay_out", []rune{'\u0440', '\u0430', '\u043e'}}, // Cyrillic р, а, о
		{"G\u0415T /\u03bfrders", "GET /orders", []rune{'\u0415', '\u03bf'}},        // Cyrillic Е, Greek ο
		{"get_\u0434\u0430ta", "get_\u0434\u0430ta", nil},                           // Cyrillic д looks like no Latin letter
		{"caf\u00e9", "caf\u00e9", nil},                                             // é is a Latin letter with an accent, no look-alike
		{"\u5546\u54c1_list", "\u5546\u54c1_list", nil},
		{"", "", nil},
	} {
		got, replaced := ToLatin(c.in)
		if got != c.want || !slices.Equal(replaced, c.replaced) {
			t.Errorf("ToLatin(%q) = %q, %q; want %q, %q", c.in, got, replaced, c.want, c.replaced)
		}
	}
}

func TestLatinAndScript(t *testing.T) {
	if Latin('\u0430') != "a" || Latin('a') != "" || Latin('\u0434') != "" || Latin('1') != "" {
		t.Errorf("Latin: %q %q %q", Latin('\u0430'), Latin('a'), Latin('\u0434'))
	}
	if Script('\u0435') != "Cyrillic" || Script('\u03bf') != "Greek" || Script('-') != "" {
		t.Errorf("Script: %q %q %q", Script('\u0435'), Script('\u03bf'), Script('-'))
	}
}
