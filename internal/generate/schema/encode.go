package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Marshal encodes v as compact JSON with sorted keys, without HTML
// escaping (descriptions keep their < and >): how the generator writes
// every schema. The bytes are encoding/json's (an Encoder with
// SetEscapeHTML(false), its newline trimmed); the values a converted
// schema is made of (maps with string keys, slices, strings, numbers,
// booleans, null) are written here without reflection, which took half of
// the model stage's encoding on large specs, and anything else is handed
// to encoding/json as it stands.
//
// The bytes are built in a buffer kept for the next call and returned in
// a slice of their own size: the schemas are kept until the files are
// written, and a slice grown by appending holds up to twice its length.
func Marshal(v any) []byte {
	p := scratch.Get().(*[]byte)
	b := appendJSON((*p)[:0], v)
	out := append([]byte(nil), b...)
	if cap(b) <= maxScratch {
		*p = b
		scratch.Put(p)
	}
	return out
}

// scratch holds Marshal's buffers; one larger than maxScratch is let go.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

const maxScratch = 1 << 20

// appendJSON appends v's encoding to b.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendString(b, v)
	case bool:
		return strconv.AppendBool(b, v)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			break // encoding/json's error
		}
		return appendFloat(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case uint64:
		return strconv.AppendUint(b, v, 10)
	case map[string]any:
		if v == nil {
			return append(b, "null"...)
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, strings.Compare) // as encoding/json sorts a map's keys
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendJSON(b, v[k])
		}
		return append(b, '}')
	case []any:
		if v == nil {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	case []string:
		if v == nil {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, e)
		}
		return append(b, ']')
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("tailor: schema is not JSON: %v", err))
	}
	return append(b, bytes.TrimRight(buf.Bytes(), "\n")...)
}

// appendFloat writes a finite float64 as encoding/json does: the shortest
// decimal that reads back, in exponent form only below 1e-6 or from 1e21
// on, with a one-digit negative exponent unpadded.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// word is the first eight bytes of s as one little-endian word (the
// compiler makes it one load).
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// plainWord reports whether none of w's eight bytes is below 0x20, a
// quote, a backslash or 0x80 and above (each needs appendString's look).
func plainWord(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs } // a byte of v is 0
	below := (w - 0x20*ones) & ^w & highs                            // a byte below 0x20 (where w's bytes are below 0x80)
	return (w&highs)|below|zero(w^('"'*ones))|zero(w^('\\'*ones)) == 0
}

// appendString writes s as a JSON string as encoding/json does without
// HTML escaping: quote and backslash escaped, control characters as \b,
// \f, \n, \r, \t or \u00XX, invalid UTF-8 as U+FFFD, and U+2028 and
// U+2029 escaped (JavaScript reads them as line ends).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs a look: no control
		// character, quote, backslash or byte of a multi-byte rune.
		for i+8 <= len(s) && plainWord(word(s[i:i+8])) {
			i += 8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
