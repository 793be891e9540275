package render

import (
	"bytes"
	"testing"
)

// A file's text is its pieces in order, whatever the pieces: Equal,
// Bytes, Size and WriteTo agree, and Equal tells texts that differ only
// where two pieces meet.
func TestFilePieces(t *testing.T) {
	f := File{Path: "a.go", pieces: [][]byte{[]byte("package a"), blankLine, []byte("var x = 1"), newline}}
	want := "package a\n\nvar x = 1\n"
	if string(f.Bytes()) != want || f.Size() != len(want) {
		t.Fatalf("Bytes = %q (size %d), want %q", f.Bytes(), f.Size(), want)
	}
	var buf bytes.Buffer
	if n, err := f.WriteTo(&buf); err != nil || n != int64(len(want)) || buf.String() != want {
		t.Fatalf("WriteTo wrote %q (%d, %v)", buf.String(), n, err)
	}
	if !f.Equal([]byte(want)) {
		t.Error("Equal is false for the file's own text")
	}
	for _, other := range []string{"", "package a\n\nvar x = 1", "package a\nvar x = 1\n\n", "package a\n\nvar x = 2\n", want + "\n"} {
		if f.Equal([]byte(other)) {
			t.Errorf("Equal(%q) is true", other)
		}
	}
	if g := NewFile("b.go", []byte(want)); !g.Equal(f.Bytes()) || string(g.Bytes()) != want {
		t.Error("NewFile does not hold its content")
	}
}
