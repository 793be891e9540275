package render

import (
	"bytes"
	"fmt"
	"go/format"
)

// A large server's tools.go and schemas.go are printed and formatted in
// parts, on every core: go/format of stripe's tools.go alone took 50 ms.
// A file is its template run on the view with the first share of its
// items (the header, package clause and imports come with it), then the
// item template on each further share, as a file of its own with just a
// package clause. Each part is formatted alone and the package clause of
// the further parts cut, and the parts joined are what formatting the
// whole file gives: each item is top-level declarations with a doc
// comment, a blank line before it, and go/printer prints a top-level
// declaration after a doc comment the same whether a declaration or the
// package clause comes before it. The render tests compare both ways on
// every golden case and on the real-world corpus.

// partBytes is about how much source a part holds; a file smaller than
// this is one part, as before.
var partBytes = 64 << 10

// output is one generated file.
type output struct {
	path, tmpl string
	// item names the template of one item, items how many the file has;
	// size estimates an item's bytes, elem is the item's value for its
	// template, and share the view with the first n items, for the first
	// part. A file without items is one part.
	item  string
	items int
	size  func(i int) int
	elem  func(i int) any
	share func(n int) any
	// held are the literals its source holds back (literals.go).
	held  *literals
	parts []*part
}

// part is items [lo, hi) of a file, with the file's head when first.
type part struct {
	o      *output
	lo, hi int
	first  bool
	// src is the source as printed; out is src formatted, or err.
	src, out []byte
	err      error
}

// split cuts the file's items into parts of about partBytes each.
func (o *output) split() {
	if o.items == 0 {
		o.parts = []*part{{o: o, first: true}}
		return
	}
	lo, size := 0, 0
	for i := range o.items {
		size += o.size(i)
		if size >= partBytes || i == o.items-1 {
			o.parts = append(o.parts, &part{o: o, lo: lo, hi: i + 1, first: lo == 0})
			lo, size = i+1, 0
		}
	}
}

// render prints and formats one part.
func (p *part) render(v *view, pkg string) {
	var buf bytes.Buffer
	o := p.o
	switch {
	case o.items == 0:
		p.err = tmpl.ExecuteTemplate(&buf, o.tmpl, v)
	case p.first:
		p.err = tmpl.ExecuteTemplate(&buf, o.tmpl, o.share(p.hi))
	default:
		buf.WriteString(partHead(pkg))
		for i := p.lo; i < p.hi && p.err == nil; i++ {
			p.err = tmpl.ExecuteTemplate(&buf, o.item, o.elem(i))
		}
	}
	if p.err != nil {
		p.err = fmt.Errorf("rendering %s: %w", o.path, p.err)
		return
	}
	p.src = buf.Bytes()
	out, err := format.Source(p.src)
	if err != nil {
		p.err = fmt.Errorf("generated %s does not parse (a tailor bug): %v\n%s", o.path, err, excerpt(o.held.restore(p.src), err))
		return
	}
	if !p.first {
		head := partHead(pkg)
		if !bytes.HasPrefix(out, []byte(head)) {
			p.err = fmt.Errorf("generated %s: a part formats without its package clause first (a tailor bug)", o.path)
			return
		}
		out = out[len(head):]
	}
	p.out = out
}

// partHead is what a part after the first starts with, and is cut from it
// once formatted.
func partHead(pkg string) string { return "package " + pkg + "\n" }

// join puts the formatted parts together and the held literals back.
func (o *output) join() ([]byte, error) {
	n := 0
	for _, p := range o.parts {
		if p.err != nil {
			return nil, p.err
		}
		n += len(p.out)
	}
	src := make([]byte, 0, n)
	for _, p := range o.parts {
		src = append(src, p.out...)
	}
	return o.held.restore(src), nil
}

// size estimates the bytes of a tool's declarations: its definition, and
// a line per statement of its handler and step builders.
func (t toolView) size() int {
	n := 256 + len(t.Literal)
	for _, r := range append([]*requestView{t.Request}, t.Steps...) {
		if r != nil {
			for _, st := range r.Statements {
				n += len(st) + 2
			}
		}
	}
	return n
}
