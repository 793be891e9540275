package render

import (
	"go/format"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDocSafeTextsAreKept: gofmt leaves a doc comment quoting texts that
// docSafe accepts as it is, and rewrites some that it refuses.
func TestDocSafeTextsAreKept(t *testing.T) {
	const alphabet = "aZ09 _-./{}()<>,:;=?&!#$%*+@^|~\"\\[]`'\t\xc3\xa9"
	rng := rand.New(rand.NewPCG(16, 16))
	texts := []string{"", "GET", "/v1/accounts/{account}/persons", "a  b", "'' x", "``x``", "[Link]", "see http://example.com"}
	for range 3000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	safe, rewritten := 0, 0
	for _, text := range texts {
		src := "package x\n\n// aTool is " + text + " (operationId " + text + ").\nvar aTool = 1\n"
		out, err := format.Source([]byte(src))
		if err != nil {
			continue // a text that ends the comment's line (never a tool's: they are one line)
		}
		kept := string(out) == src
		if docSafe(text) {
			safe++
			if !kept {
				t.Errorf("docSafe(%q), but gofmt rewrites its comment:\n%s", text, out)
			}
		} else if !kept {
			rewritten++
		}
	}
	if safe < 500 || rewritten < 5 {
		t.Errorf("%d texts safe and %d rewritten: the test no longer covers both", safe, rewritten)
	}
}

// TestDocCommentsSafe: every comment at the left margin is checked, and
// one of several lines is refused (go/doc/comment reads lists, headings
// and code blocks across lines).
func TestDocCommentsSafe(t *testing.T) {
	for _, c := range []struct {
		src  string
		safe bool
	}{
		{"", true},
		{"\nvar a = 1\n", true},
		{"// a is GET /x.\nvar a = 1\n", true},
		{"\n// a is GET /x.\nvar a = 1\n\n// b is GET /y.\nfunc b() {\n\t// ''inside'' a body: no doc comment\n}\n", true},
		{"\n// a is GET /x.\nvar a = 1\n\n// b is ''y''.\nfunc b() {}\n", false},
		{"// a is ``x``.\nvar a = 1\n", false},
		{"\n// a is GET /x,\n// 1. then y.\nvar a = 1\n", false},
		{"\n//a is GET /x.\nvar a = 1\n", false},
	} {
		if got := docCommentsSafe([]byte(c.src)); got != c.safe {
			t.Errorf("docCommentsSafe(%q) = %v", c.src, got)
		}
	}
}
