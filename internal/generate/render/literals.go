package render

import (
	"bytes"
	"go/scanner"
	"go/token"
	"strconv"
	"strings"
)

// literals keeps the tools' JSON Schemas out of the source that go/format
// reads. They are most of a large server's code (kubernetes: 10 MB of
// 11 MB) and go/format spent most of its time scanning and printing them
// (0.35 s of a 0.95 s generation), although formatting never changes a
// string literal: hold replaces each (a literal, or a constant expression
// of literals) with a short placeholder literal, and restore puts the real
// ones back into the formatted source.
//
// The result is byte for byte what formatting the full source gives,
// because go/printer looks at a value's length in exactly one place: an
// element of a composite literal longer than 1e6 bytes loses its
// alignment. Schemas that long are therefore left in place (rare; just
// slower), and the render tests compare both ways on every golden case and
// on the real-world corpus.
type literals struct {
	texts []string
}

// Literals at least this long are held back; shorter ones are not worth it.
const holdMin = 256

// holdMax keeps literals go/printer would treat differently in place.
const holdMax = 500_000

// placeholder is the literal standing in for texts[i]. Only schemas.go
// holds literals, and its literals are rawLiteral's: raw strings, and
// single quoted characters a raw string cannot hold, so none of them can
// look like this one.
func placeholder(i int) string { return `"tailor:` + strconv.Itoa(i) + `"` }

// hold returns lit, a Go string literal or a constant expression of
// literals, or a placeholder for it.
func (l *literals) hold(lit string) string {
	if len(lit) < holdMin || len(lit) > holdMax || holdOff {
		return lit
	}
	l.texts = append(l.texts, lit)
	return placeholder(len(l.texts) - 1)
}

// holdOff turns holding off (tests compare with and without).
var holdOff = false

// restore replaces the placeholder string literals of src. It finds them as
// tokens, so text that merely contains a placeholder (a comment) is left
// alone.
func (l *literals) restore(src []byte) []byte {
	if l == nil || len(l.texts) == 0 {
		return src
	}
	var out bytes.Buffer
	out.Grow(len(src) + l.size())
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0)
	last := 0
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok != token.STRING || !strings.HasPrefix(lit, `"tailor:`) {
			continue
		}
		i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(lit, `"tailor:`), `"`))
		if err != nil || i < 0 || i >= len(l.texts) || lit != placeholder(i) {
			continue
		}
		off := file.Offset(pos)
		out.Write(src[last:off])
		out.WriteString(l.texts[i])
		last = off + len(lit)
	}
	out.Write(src[last:])
	return out.Bytes()
}

func (l *literals) size() int {
	n := 0
	for _, t := range l.texts {
		n += len(t)
	}
	return n
}
