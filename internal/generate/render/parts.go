package render

import (
	"bytes"
	"fmt"
	"go/format"
	"slices"
)

// A large server's tools.go and schemas.go are printed in parts, on every
// core, and most of them are not formatted at all: go/format of stripe's
// files took 80 ms of CPU, more than printing them. Such a file is its
// head (its template: header, package clause, imports), then its items (a
// tool's declarations by the "tool" template, a schema's constant by
// schemaConst.print), each printed as gofmt prints it (govalue.go, and
// item printers written in gofmt's form). What is formatted:
//
//   - a file without items (server.go, main.go), and a file's head;
//   - a part with an item whose layout gofmt would decide otherwise
//     (toolView.Canonical, schemaConst.Canonical, and for tools.go its doc
//     comments as printed, docCommentsSafe: a comment gofmt's doc comment
//     printer may rewrite, a field too long to align): its items as a file
//     of its own with just a package clause, formatted alone and the
//     package clause cut.
//
// The parts joined are what formatting the whole file gives: each item is
// top-level declarations with a doc comment, a blank line before it, and
// go/printer prints a top-level declaration after a doc comment the same
// whether a declaration or the package clause comes before it. The render
// tests compare the ways on every golden case and on the real-world
// corpus (TestRenderingWaysAgree); TestCorpus checks every corpus spec's
// files are gofmt-clean.

// partBytes is about how much source a part holds.
var partBytes = 64 << 10

// formatAll formats every part, canonical or not (the tests compare).
var formatAll = false

// output is one generated file.
type output struct {
	path, tmpl string
	// items is how many items follow the head; size estimates an item's
	// bytes, canonical says whether it prints in gofmt's form, and print
	// appends it to a part's source. checkComments has the doc comments of
	// what print wrote checked too.
	items         int
	size          func(i int) int
	canonical     func(i int) bool
	print         func(src *source, i int) error
	checkComments bool
	parts         []*part
}

// part is the file's head, or items [lo, hi) of a file.
type part struct {
	o      *output
	lo, hi int
	head   bool
	// out is the part's source as it goes into the file, or err.
	out []byte
	err error
}

// source is a part's source as it is printed: templates write to it, item
// printers append to it.
type source []byte

func (s *source) Write(p []byte) (int, error) {
	*s = append(*s, p...)
	return len(p), nil
}

// split cuts the file into its head and parts of about partBytes of items.
func (o *output) split() {
	o.parts = []*part{{o: o, head: true}}
	lo, size := 0, 0
	for i := range o.items {
		size += o.size(i)
		if size >= partBytes || i == o.items-1 {
			o.parts = append(o.parts, &part{o: o, lo: lo, hi: i + 1})
			lo, size = i+1, 0
		}
	}
}

// render prints one part, and formats it unless it is canonical.
func (p *part) render(v *view, pkg string) {
	o := p.o
	var src source
	canonical := !p.head && !formatAll
	if p.head {
		p.err = tmpl.ExecuteTemplate(&src, o.tmpl, v)
	} else {
		size := 0
		for i := p.lo; i < p.hi; i++ {
			size += o.size(i)
			canonical = canonical && o.canonical(i)
		}
		src = slices.Grow(src, len(partHead(pkg))+size)
		if !canonical {
			src = append(src, partHead(pkg)...)
		}
		for i := p.lo; i < p.hi && p.err == nil; i++ {
			p.err = o.print(&src, i)
		}
	}
	if p.err != nil {
		p.err = fmt.Errorf("rendering %s: %w", o.path, p.err)
		return
	}
	if canonical && o.checkComments && !docCommentsSafe(src) {
		canonical = false
		src = append(source(partHead(pkg)), src...)
	}
	if canonical {
		p.out = src
		return
	}
	out, err := format.Source(src)
	if err != nil {
		p.err = fmt.Errorf("generated %s does not parse (a tailor bug): %v\n%s", o.path, err, excerpt(src, err))
		return
	}
	if !p.head {
		head := partHead(pkg)
		if !bytes.HasPrefix(out, []byte(head)) {
			p.err = fmt.Errorf("generated %s: a part formats without its package clause first (a tailor bug)", o.path)
			return
		}
		out = out[len(head):]
	}
	p.out = out
}

// partHead is what a formatted part of items starts with, and is cut from
// it once formatted.
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
