// Package render is the last stage of the pipeline: it turns the IR into Go
// source files, one template per file, each formatted with go/format.
package render

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/template"

	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/parallel"
	"github.com/tailormcp/tailor/templates"
)

// Options controls rendering.
type Options struct {
	// Package is the Go package name of the generated files.
	Package string
	// Main also renders a main.go: in the package itself when Package is
	// "main", else in cmd/<name>/main.go importing ImportPath.
	Main       bool
	ImportPath string
	// ToolVersion goes into the generated header; empty leaves it out so
	// golden files stay stable across releases.
	ToolVersion string
}

var tmpl = template.Must(template.New("").Funcs(template.FuncMap{"quote": goString}).ParseFS(templates.FS, "*.go.tmpl"))

// Render produces the files of api, in a fixed order. Each file is its
// template run, then formatted with go/format: the templates and the
// printers of view.go write plain Go, and gofmt decides its layout. A file
// that ends in a list (tools.go its tools, schemas.go their schemas) is
// its template without the list, then the list in parts of about
// partSize bytes, each run by the template's "items" template and
// formatted on its own (format.go says why that is what gofmt writes for
// the whole file). The parts and the other files are rendered at once, one
// per core: schemas.go is most of the output (kubernetes: 10 of 12 MB),
// and a part's syntax tree is all go/format holds at a time.
func Render(api *ir.API, opts Options) ([]File, error) {
	if !ValidPackage(opts.Package) {
		return nil, fmt.Errorf("package name %q is not a valid Go identifier", opts.Package)
	}
	v := newView(api, opts)
	outputs, err := v.outputs(opts)
	if err != nil {
		return nil, err
	}
	// A job renders one file's head or one part of its list.
	type job struct {
		out   int
		tmpl  string
		head  bool // the file's template, not a part of its list
		data  func() any
		piece []byte
		err   error
	}
	var jobs []*job
	for i, o := range outputs {
		jobs = append(jobs, &job{out: i, tmpl: o.tmpl, head: true, data: func() any { return v }})
		if o.items != nil {
			for _, part := range o.items.parts(partSize) {
				jobs = append(jobs, &job{out: i, tmpl: o.tmpl + " items", data: part})
			}
		}
	}
	parallel.For(len(jobs), func(i int) {
		j := jobs[i]
		var src bytes.Buffer
		if err := tmpl.ExecuteTemplate(&src, j.tmpl, j.data()); err != nil {
			j.err = fmt.Errorf("rendering %s: %w", outputs[j.out].path, err)
			return
		}
		var piece []byte
		if j.head {
			piece, j.err = formatHead(outputs[j.out].path, src.Bytes())
		} else {
			piece, j.err = formatPart(outputs[j.out].path, src.Bytes())
		}
		// A piece is kept until the file is written: a copy of its own
		// size, not the formatter's buffer, up to twice as large.
		j.piece = bytes.Clone(piece)
	})
	// Each file is its pieces, one blank line between two, and a final
	// newline.
	files := make([]File, len(outputs))
	var errs []error
	for _, j := range jobs {
		if j.err != nil {
			errs = append(errs, j.err)
		}
		f := &files[j.out]
		if len(j.piece) == 0 {
			continue
		}
		if len(f.pieces) > 0 {
			f.pieces = append(f.pieces, blankLine)
		}
		f.pieces = append(f.pieces, j.piece)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for i, o := range outputs {
		files[i].Path = o.path
		files[i].pieces = append(files[i].pieces, newline)
	}
	return files, nil
}

var blankLine, newline = []byte("\n\n"), []byte("\n")

// partSize is about how many bytes of a list one part renders: large
// enough that go/format's work per call is small beside the part's, small
// enough that the parts spread over the cores.
var partSize = 128 << 10

// output is one generated file: its path, the template that writes it
// and, for a file that ends in a list, that list.
type output struct {
	path, tmpl string
	items      *list
}

// outputs are the files of the view.
func (v *view) outputs(opts Options) ([]output, error) {
	outputs := []output{
		{path: "server.go", tmpl: "server.go.tmpl"},
		{path: "tools.go", tmpl: "tools.go.tmpl", items: listOf(v.Tools, toolView.size, printTools)},
		{path: "schemas.go", tmpl: "schemas.go.tmpl", items: listOf(v.Tools, toolView.schemasSize, schemaConsts)},
	}
	if opts.Main {
		if opts.Package == "main" {
			outputs = append(outputs, output{path: "main.go", tmpl: "main.go.tmpl"})
		} else {
			if opts.ImportPath == "" {
				return nil, fmt.Errorf("--main needs the generated package's import path (run inside a Go module, or pass --import-path)")
			}
			outputs = append(outputs, output{path: "cmd/" + v.API.Name + "/main.go", tmpl: "main.go.tmpl"})
		}
	}
	return outputs, nil
}

// list is the list a file ends in, cut into parts; each part is made into
// what its template ranges over when its job runs.
type list struct {
	parts func(size int) []func() any
}

// listOf cuts items into parts of about size bytes (an item larger than
// that is a part of its own), measured by each item's size; data makes a
// part into what the template ranges over.
func listOf[T any](items []T, sizeOf func(T) int, data func([]T) any) *list {
	return &list{parts: func(size int) []func() any {
		var parts []func() any
		start, n := 0, 0
		for i, it := range items {
			n += sizeOf(it)
			if n >= size || i == len(items)-1 {
				part := items[start : i+1]
				parts = append(parts, func() any { return data(part) })
				start, n = i+1, 0
			}
		}
		return parts
	}}
}

// goString renders s as a Go string literal: a raw string when that is
// exact and readable, an interpreted one otherwise.
func goString(s string) string {
	if strings.ContainsAny(s, `"\\`) && strconv.CanBackquote(s) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

// excerpt shows the lines around a go/format error, numbered, the
// error's marked.
func excerpt(src []byte, err error) string {
	line := 0
	if msg := err.Error(); msg != "" {
		if before, _, ok := strings.Cut(msg, ":"); ok {
			line, _ = strconv.Atoi(before)
		}
	}
	lines := strings.Split(string(src), "\n")
	lo, hi := max(line-4, 0), min(line+3, len(lines))
	if line == 0 {
		lo, hi = 0, min(10, len(lines))
	}
	var b strings.Builder
	for i := lo; i < hi; i++ {
		mark := ' '
		if i+1 == line {
			mark = '>'
		}
		fmt.Fprintf(&b, "%5d %c %s\n", i+1, mark, lines[i])
	}
	return b.String()
}

// ValidPackage reports whether name can be the package name of the
// generated files: an ASCII Go identifier that is not a keyword nor "_".
func ValidPackage(name string) bool { return name != "_" && isIdent(name) }

func isIdent(s string) bool {
	if s == "" || isKeyword(s) {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
