package render

import (
	"bytes"
	"strings"
)

// docCommentsSafe reports whether gofmt keeps every doc comment of printed
// items as it is: each line that starts a comment at the left margin is a
// comment of one line, and docSafe. The tools' declarations are checked
// as printed, so whatever the template quotes in a comment is covered;
// their literals are of one line each, so a line starting with // is a
// comment.
func docCommentsSafe(src []byte) bool {
	for i := 0; i < len(src); {
		if !bytes.HasPrefix(src[i:], []byte("//")) {
			next := bytes.Index(src[i:], []byte("\n//"))
			if next < 0 {
				return true
			}
			i += next + 1
		}
		line, rest, _ := bytes.Cut(src[i:], []byte("\n"))
		text, ok := bytes.CutPrefix(line, []byte("// "))
		if !ok || !docSafe(string(text)) || bytes.HasPrefix(rest, []byte("//")) {
			return false
		}
		i += len(line)
	}
	return true
}

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
