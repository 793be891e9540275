package render

import (
	"bytes"
	"fmt"
	"go/format"
	"go/scanner"
	"go/token"
)

// A generated file of a large tool set is tens of megabytes of Go (a
// 5,000-operation spec: 16 MB), and go/format holds the syntax tree of
// all of it at once: half of tailor generate's peak heap. The file is
// formatted instead one top-level piece at a time: it is cut before each
// comment that starts a line at the top level after a blank line (every
// tool's, every schema's declaration begins so). gofmt lays out
// top-level declarations each on its own, and writes exactly one blank
// line between two that the source separates by one or more, so the
// pieces, formatted and joined by one blank line, are the file gofmt
// writes.

// formatSource formats a generated file; source that does not parse is
// a tailor bug, shown with the lines around the error, numbered.
func formatSource(path string, src []byte) ([]byte, error) {
	cuts := topLevelCuts(src)
	if cuts == nil {
		return formatWhole(path, src)
	}
	var out bytes.Buffer
	out.Grow(len(src) + len(src)/8)
	start := 0
	for i := 0; i <= len(cuts); i++ {
		end := len(src)
		if i < len(cuts) {
			end = cuts[i]
		}
		piece := bytes.TrimSpace(src[start:end])
		start = end
		if len(piece) == 0 {
			continue
		}
		// Each piece after the first is formatted as a file of its own,
		// as gofmt formats it in the file (doc comments included), under
		// a package clause that is then taken off.
		var clause []byte
		if out.Len() > 0 {
			clause = pieceClause
			piece = append(append([]byte(nil), clause...), piece...)
		}
		f, err := format.Source(piece)
		if err != nil || !bytes.HasPrefix(f, clause) {
			return formatWhole(path, src) // its error, positioned in the file
		}
		if out.Len() > 0 {
			out.WriteString("\n\n")
		}
		out.Write(bytes.TrimSpace(f[len(clause):]))
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// pieceClause heads every piece after the first.
var pieceClause = []byte("package p\n\n")

// formatWhole formats src in one piece.
func formatWhole(path string, src []byte) ([]byte, error) {
	out, err := format.Source(src)
	if err != nil {
		return nil, fmt.Errorf("generated %s does not parse (a tailor bug): %v\n%s", path, err, excerpt(src, err))
	}
	return out, nil
}

// topLevelCuts are the offsets of the comments src may be cut before:
// at the top level (outside every bracket), in the first column, after a
// blank line. Nil when the scanner finds an error (the whole file is then
// formatted, and its error reported) or there is nothing to cut.
func topLevelCuts(src []byte) []int {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	bad := false
	s.Init(file, src, func(token.Position, string) { bad = true }, scanner.ScanComments)
	var cuts []int
	depth, lastLine := 0, 0
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		off := file.Offset(pos)
		line := file.Line(pos)
		switch tok {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth--
		case token.COMMENT:
			if depth == 0 && lastLine > 0 && line > lastLine+1 && (off == 0 || src[off-1] == '\n') {
				cuts = append(cuts, off)
			}
		}
		if tok != token.SEMICOLON || lit != "\n" {
			// The last line a token (or a comment) ended on; automatic
			// semicolons stand at line ends and move nothing.
			lastLine = file.Line(pos + token.Pos(len(lit)))
			if tok != token.COMMENT && tok != token.STRING {
				lastLine = line
			}
		}
	}
	if bad || depth != 0 {
		return nil
	}
	return cuts
}
