package render

import "strings"

// docSafe reports whether gofmt prints a doc comment quoting texts as it
// is. go/printer parses a doc comment with go/doc/comment and prints it
// back: it turns two backquotes or two single quotes into curly quotes, and
// reads brackets, URLs and spaces for links and layout. docSafe accepts
// only printable ASCII without brackets, quotes, backquotes, "://" or
// spaces at an end or in a row; a comment quoting anything else makes
// render format its part instead (TestDocSafeTextsAreKept checks the rule
// against go/printer).
func docSafe(texts ...string) bool {
	for _, s := range texts {
		if strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") || strings.Contains(s, "  ") || strings.Contains(s, "://") {
			return false
		}
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c < 0x20 || c > 0x7e, c == '[', c == ']', c == '`', c == '\'':
				return false
			}
		}
	}
	return true
}
