// Package confusable reads letters of other scripts that look like Latin
// ones (Cyrillic а, Greek ο) as those Latin letters, through the Unicode
// confusables table (UTS #39, github.com/mtibben/confusables). Text made
// to look like English reads as it looks: lint's tool-poisoning patterns
// match it, and a tool name spelt with look-alikes is spelt in Latin.
package confusable

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mtibben/confusables"
)

// Latin is the ASCII letter a non-ASCII letter is confusable with
// (Cyrillic а → "a"), or "".
func Latin(r rune) string {
	if r < utf8.RuneSelf || !unicode.IsLetter(r) {
		return ""
	}
	sk := confusables.Skeleton(string(r))
	if len(sk) != 1 || sk[0] >= utf8.RuneSelf || !unicode.IsLetter(rune(sk[0])) {
		return ""
	}
	return sk
}

// ToLatin spells in ASCII each word of s (a run of letters and digits)
// whose letters are all ASCII or confusable with an ASCII letter: a name
// disguised with look-alikes reads as it looks, "get_usеr" with a
// Cyrillic е as "get_user". A word with a letter that looks like no
// Latin one (Cyrillic д, a Greek word) is left as it is: a few of its
// letters in Latin would spell nothing. replaced are the letters spelt
// in ASCII, in order.
func ToLatin(s string) (latin string, replaced []rune) {
	if isASCII(s) {
		return s, nil
	}
	var b strings.Builder
	for len(s) > 0 {
		// The next word, and what precedes it.
		start := strings.IndexFunc(s, isWordRune)
		if start < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:start])
		s = s[start:]
		end := strings.IndexFunc(s, func(r rune) bool { return !isWordRune(r) })
		if end < 0 {
			end = len(s)
		}
		word := s[:end]
		s = s[end:]
		var w strings.Builder
		var swapped []rune
		foreign := false
		for _, r := range word {
			l := ""
			if r >= utf8.RuneSelf {
				l = Latin(r)
			}
			switch {
			case l != "":
				w.WriteString(l)
				swapped = append(swapped, r)
			case r >= utf8.RuneSelf && unicode.IsLetter(r):
				foreign = true // a letter of another script: the word stays
			default:
				w.WriteRune(r)
			}
		}
		if foreign || len(swapped) == 0 {
			b.WriteString(word)
			continue
		}
		b.WriteString(w.String())
		replaced = append(replaced, swapped...)
	}
	return b.String(), replaced
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Script names the Unicode script of r ("Cyrillic"), or "".
func Script(r rune) string {
	for name, table := range unicode.Scripts {
		if name != "Common" && name != "Inherited" && unicode.Is(table, r) {
			return name
		}
	}
	return ""
}
