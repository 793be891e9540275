package render

import (
	"bytes"
	"io"
)

// File is one generated file: its path, relative to the output directory,
// and its text. The text is held as the pieces Render formatted it in (a
// file's head, then the parts of its list), never copied into one buffer:
// at 50,000 operations the files are 150 MB, which the copy held twice at
// the end of rendering. Bytes joins them for a caller that needs them so.
type File struct {
	Path   string
	pieces [][]byte
}

// NewFile is a file whose text is content.
func NewFile(path string, content []byte) File {
	return File{Path: path, pieces: [][]byte{content}}
}

// Size is the length of the file's text.
func (f File) Size() int {
	n := 0
	for _, p := range f.pieces {
		n += len(p)
	}
	return n
}

// Bytes is the file's text in one buffer.
func (f File) Bytes() []byte {
	if len(f.pieces) == 1 {
		return f.pieces[0]
	}
	return bytes.Join(f.pieces, nil)
}

// Equal reports whether the file's text is b.
func (f File) Equal(b []byte) bool {
	if len(b) != f.Size() {
		return false
	}
	for _, p := range f.pieces {
		if !bytes.Equal(p, b[:len(p)]) {
			return false
		}
		b = b[len(p):]
	}
	return true
}

// WriteTo writes the file's text to w.
func (f File) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, p := range f.pieces {
		m, err := w.Write(p)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
