package mcpkit

import (
	"fmt"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// escapeInvisible rewrites, in a JSON text, the characters encoding/json
// leaves raw that change how a line reads on a terminal or in a viewer: DEL,
// the C1 controls, and format characters (Unicode Cf: right-to-left
// overrides, zero-width joiners, tag characters). Each becomes a \uXXXX
// escape, so the record decodes to the same values but a model- or
// API-supplied string cannot reorder, hide or fake what an operator reads.
// Such characters only occur inside JSON strings, where the escape is valid.
func escapeInvisible(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < utf8.RuneSelf && b[i] != 0x7f {
		i++
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	out = append(out, b[:i]...)
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if invisible(r) {
			if r > 0xffff {
				hi, lo := utf16.EncodeRune(r)
				out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

func invisible(r rune) bool {
	return r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Cf, r)
}
