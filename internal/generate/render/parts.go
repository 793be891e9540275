package render

import (
	"bytes"
	"fmt"
	"go/format"
)

// A large server's tools.go and schemas.go are printed in parts, on every
// core, and most of them are not formatted at all: go/format of stripe's
// files took 80 ms of CPU, more than printing them. Their items (a tool's
// declarations, a schema's constant) are printed as gofmt prints them
// (govalue.go, and templates written in gofmt's form), so a part whose
// items are all canonical is used as printed. What is formatted:
//
//   - a file without items (server.go, main.go), and the first part of the
//     others: the file's template on the view with the first item only (the
//     header, package clause and imports come with it);
//   - a part with an item whose layout gofmt would decide otherwise
//     (toolView.Canonical, schemaConst.Canonical: a comment gofmt's doc
//     comment printer would rewrite, a field too long to align): the item
//     template on each of its items, as a file of its own with just a
//     package clause, formatted alone and the package clause cut.
//
// The parts joined are what formatting the whole file gives: each item is
// top-level declarations with a doc comment, a blank line before it, and
// go/printer prints a top-level declaration after a doc comment the same
// whether a declaration or the package clause comes before it. The render
// tests compare the ways on every golden case and on the real-world
// corpus, and check that formatting a part printed as canonical changes
// nothing.

// partBytes is about how much source a part holds.
var partBytes = 64 << 10

// formatAll formats every part, canonical or not (the tests compare).
var formatAll = false

// output is one generated file.
type output struct {
	path, tmpl string
	// item names the template of one item, items how many the file has;
	// size estimates an item's bytes, elem is the item's value for its
	// template, canonical whether it prints in gofmt's form, and share the
	// view with the first n items, for the first part. A file without
	// items is one part.
	item      string
	items     int
	size      func(i int) int
	elem      func(i int) any
	canonical func(i int) bool
	share     func(n int) any
	parts     []*part
}

// part is items [lo, hi) of a file, with the file's head when first.
type part struct {
	o      *output
	lo, hi int
	first  bool
	// out is the part's source as it goes into the file, or err.
	out []byte
	err error
}

// split cuts the file's items into parts: the first item with the file's
// head, then parts of about partBytes each.
func (o *output) split() {
	if o.items == 0 {
		o.parts = []*part{{o: o, first: true}}
		return
	}
	o.parts = []*part{{o: o, hi: 1, first: true}}
	lo, size := 1, 0
	for i := 1; i < o.items; i++ {
		size += o.size(i)
		if size >= partBytes || i == o.items-1 {
			o.parts = append(o.parts, &part{o: o, lo: lo, hi: i + 1})
			lo, size = i+1, 0
		}
	}
}

// render prints one part, and formats it unless it is canonical.
func (p *part) render(v *view, pkg string) {
	var buf bytes.Buffer
	o := p.o
	canonical := !formatAll
	switch {
	case o.items == 0:
		p.err = tmpl.ExecuteTemplate(&buf, o.tmpl, v)
		canonical = false
	case p.first:
		p.err = tmpl.ExecuteTemplate(&buf, o.tmpl, o.share(p.hi))
		canonical = false
	default:
		size := 0
		for i := p.lo; i < p.hi; i++ {
			size += o.size(i)
			canonical = canonical && o.canonical(i)
		}
		head := partHead(pkg)
		buf.Grow(len(head) + size)
		buf.WriteString(head)
		for i := p.lo; i < p.hi && p.err == nil; i++ {
			p.err = tmpl.ExecuteTemplate(&buf, o.item, o.elem(i))
		}
	}
	if p.err != nil {
		p.err = fmt.Errorf("rendering %s: %w", o.path, p.err)
		return
	}
	src := buf.Bytes()
	if canonical {
		p.out = src[len(partHead(pkg)):]
		return
	}
	out, err := format.Source(src)
	if err != nil {
		p.err = fmt.Errorf("generated %s does not parse (a tailor bug): %v\n%s", o.path, err, excerpt(src, err))
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

// join puts the parts together.
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
	return src, nil
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
