package redact

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The matcher finds the secrets' encoded forms: each character of a
// secret raw, as %XX for each of its UTF-8 bytes, as \uXXXX (a surrogate
// pair beyond the BMP), for `"`, `\` and `/` after one to three
// backslashes (JSON escapes, and JSON inside JSON), and a space as `+`;
// hex digits in either case. It takes the match a regular expression of
// those alternatives would (leftmost first; the forms longest first; a
// character's encodings in the order above, more backslashes before
// fewer), which the tests check against such an expression; the one
// difference is meant: a secret's U+FFFD matches only its own bytes, where
// the expression read any invalid byte as one. Go's regexp
// runs that expression at about 8 MB/s on text dense with escapes (no
// literal to anchor on) and takes a millisecond to compile per caller's
// credential; the matcher tries a form only where one can start.

// maxEncodedRune is the most bytes a character takes encoded: \uXXXX\uXXXX,
// or four %XX.
const maxEncodedRune = 12

// replaceEncoded writes s to b with every encoded form of r's secrets
// replaced.
func (r *Redactor) replaceEncoded(b *strings.Builder, s string) {
	var inline [8]formMatch
	ms := inline[:0]
	if len(r.forms) > len(inline) {
		ms = make([]formMatch, 0, len(r.forms))
	}
	for _, f := range r.forms {
		ms = append(ms, formMatch{s: s, form: f, rows: maxEncodedRune*len(f) + 1})
	}
	done := 0
	for i := 0; i < len(s); {
		if r.starts[s[i]] {
			if end := matchAt(ms, i); end > i {
				b.WriteString(s[done:i])
				b.WriteString(Redacted)
				done, i = end, end
				continue
			}
		}
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
		}
	}
	b.WriteString(s[done:])
}

// matchAt is where the first form that starts at s[i] ends, or -1.
func matchAt(ms []formMatch, i int) int {
	for j := range ms {
		if end := ms[j].at(i); end >= 0 {
			return end
		}
	}
	return -1
}

// formMatch matches one form in one text. A character can have several
// encodings at one place (`\` raw, or as `\\`, `\\\`; `%` raw or as
// %25), so the search backtracks. Whether the form's characters from k
// on match at s[i] does not depend on where the match began, so a place
// that failed after such a choice is remembered for every later start:
// without that, a run of backslashes and a secret full of them made the
// search exponential. A match from start reaches at most rows-1 bytes
// further, so the table keeps a row for each of those places, reused as
// the start moves on.
type formMatch struct {
	s    string
	form []rune
	rows int
	// failed[(i%rows)*(len(form)+1)+k]: from(i, k) failed; made at the
	// first failure after a choice, valid for i from lo on.
	failed []bool
	lo     int
}

// at is where the form ends when it starts at s[start], or -1.
func (m *formMatch) at(start int) int {
	if m.failed != nil && start > m.lo {
		width := len(m.form) + 1
		for i := m.lo; i < start && i < m.lo+m.rows; i++ {
			clear(m.failed[(i%m.rows)*width : (i%m.rows+1)*width])
		}
		m.lo = start
	}
	return m.from(start, 0)
}

// from is where the form's characters from k on end when they start at
// s[i], or -1.
func (m *formMatch) from(i, k int) int {
	if k == len(m.form) {
		return i
	}
	var buf [5]int
	ends := encodings(m.s[i:], m.form[k], buf[:0])
	if len(ends) == 0 {
		return -1
	}
	cell := (i%m.rows)*(len(m.form)+1) + k
	if len(ends) > 1 && m.failed != nil && m.failed[cell] {
		return -1
	}
	for _, n := range ends {
		if end := m.from(i+n, k+1); end >= 0 {
			return end
		}
	}
	if len(ends) > 1 {
		if m.failed == nil {
			m.failed = make([]bool, m.rows*(len(m.form)+1))
		}
		m.failed[cell] = true
	}
	return -1
}

// encodings appends to out the lengths of the encodings of c that t
// starts with, in the order they are preferred.
func encodings(t string, c rune, out []int) []int {
	if t == "" {
		return out
	}
	var raw [utf8.UTFMax]byte
	n := utf8.EncodeRune(raw[:], c)
	if strings.HasPrefix(t, string(raw[:n])) {
		out = append(out, n)
	}
	if t[0] == '%' && len(t) >= 3*n {
		ok := true
		for j := 0; j < n && ok; j++ {
			p := t[3*j:]
			ok = p[0] == '%' && isHexOf(p[1], raw[j]>>4) && isHexOf(p[2], raw[j]&15)
		}
		if ok {
			out = append(out, 3*n)
		}
	}
	if t[0] == '\\' {
		if r1, r2 := utf16.EncodeRune(c); r1 != utf8.RuneError {
			if isUnicodeEscape(t, r1) && isUnicodeEscape(t[6:], r2) {
				out = append(out, 12)
			}
		} else if isUnicodeEscape(t, c) {
			out = append(out, 6)
		}
		switch c {
		case '"', '\\', '/':
			for k := 3; k >= 1; k-- {
				if len(t) > k && strings.Count(t[:k], `\`) == k && t[k] == byte(c) {
					out = append(out, k+1)
				}
			}
		}
	}
	if c == ' ' && t[0] == '+' {
		out = append(out, 1)
	}
	return out
}

// isUnicodeEscape reports whether t starts with \uXXXX for the UTF-16
// code unit u.
func isUnicodeEscape(t string, u rune) bool {
	if len(t) < 6 || t[0] != '\\' || t[1] != 'u' {
		return false
	}
	for j := 0; j < 4; j++ {
		if !isHexOf(t[2+j], byte(u>>(12-4*j))&15) {
			return false
		}
	}
	return true
}

// isHexOf reports whether the hex digit d (either case) has the value v.
func isHexOf(d, v byte) bool {
	const digits = "0123456789ABCDEF"
	return d == digits[v] || d == digits[v]+'a'-'A' && v >= 10
}
