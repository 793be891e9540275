package render

import (
	"bytes"
	"fmt"
	"go/format"
)

// A file is formatted in pieces (Render): its head, then the parts of its
// list, each a run of whole top-level declarations that begins with a
// comment in the first column after a blank line (every tool's, every
// schema's declaration begins so). gofmt lays out top-level declarations
// each on its own and writes exactly one blank line between two that the
// source separates by one or more, so the pieces, formatted and joined by
// one blank line, are the file gofmt writes for the whole
// (TestFormatPiecesEqualsWhole).

// formatHead formats the piece a file begins with (its package clause,
// imports and what the template writes before the list), trimmed.
func formatHead(path string, src []byte) ([]byte, error) {
	out, err := formatWhole(path, src)
	return bytes.TrimSpace(out), err
}

// formatPart formats a part of a file's list, trimmed: as a file of its
// own, under a package clause that is then taken off.
func formatPart(path string, src []byte) ([]byte, error) {
	piece := append(append(make([]byte, 0, len(pieceClause)+len(src)), pieceClause...), src...)
	out, err := formatWhole(path, piece)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(out, pieceClause) {
		return nil, fmt.Errorf("generated %s: a part of its list does not format on its own (a tailor bug):\n%s", path, excerpt(piece, fmt.Errorf("1: ")))
	}
	return bytes.TrimSpace(out[len(pieceClause):]), nil
}

// pieceClause heads every part.
var pieceClause = []byte("package p\n\n")

// formatWhole formats src in one piece.
func formatWhole(path string, src []byte) ([]byte, error) {
	out, err := format.Source(src)
	if err != nil {
		return nil, fmt.Errorf("generated %s does not parse (a tailor bug): %v\n%s", path, err, excerpt(src, err))
	}
	return out, nil
}
