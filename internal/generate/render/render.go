// Package render is the last stage of the pipeline: it turns the IR into Go
// source files, one template per file, in gofmt's form (parts.go).
package render

import (
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

// File is one generated file, path relative to the output directory.
type File struct {
	Path    string
	Content []byte
}

var tmpl = template.Must(template.New("").Funcs(template.FuncMap{"quote": goString}).ParseFS(templates.FS, "*.go.tmpl"))

// Render produces the files of api, in a fixed order.
func Render(api *ir.API, opts Options) ([]File, error) {
	if !ValidPackage(opts.Package) {
		return nil, fmt.Errorf("package name %q is not a valid Go identifier", opts.Package)
	}
	v := newView(api, opts)
	outputs, err := v.outputs(opts)
	if err != nil {
		return nil, err
	}
	// Every part of every file is printed (and formatted where it must
	// be, parts.go) on its own, on every core; each lands at its index,
	// so the files do not depend on which finished first.
	var parts []*part
	for _, o := range outputs {
		o.split()
		parts = append(parts, o.parts...)
	}
	parallel.For(len(parts), func(i int) { parts[i].render(v, opts.Package) })
	files := make([]File, 0, len(outputs))
	for _, o := range outputs {
		src, err := o.join()
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: o.path, Content: src})
	}
	return files, nil
}

// outputs are the files of the view, each with its template and items.
func (v *view) outputs(opts Options) ([]*output, error) {
	outputs := []*output{
		{path: "server.go", tmpl: "server.go.tmpl"},
		{path: "tools.go", tmpl: "tools.go.tmpl", items: len(v.Tools), checkComments: true,
			size:      func(i int) int { return v.Tools[i].size() },
			canonical: func(i int) bool { return v.Tools[i].Canonical },
			print:     func(src *source, i int) error { return tmpl.ExecuteTemplate(src, "tool", v.Tools[i]) }},
		{path: "schemas.go", tmpl: "schemas.go.tmpl", items: len(v.Schemas),
			size:      func(i int) int { return v.Schemas[i].size() },
			canonical: func(i int) bool { return v.Schemas[i].Canonical },
			print:     func(src *source, i int) error { *src = v.Schemas[i].print(*src); return nil }},
	}
	if opts.Main {
		if opts.Package == "main" {
			outputs = append(outputs, &output{path: "main.go", tmpl: "main.go.tmpl"})
		} else {
			if opts.ImportPath == "" {
				return nil, fmt.Errorf("--main needs the generated package's import path (run inside a Go module, or pass --import-path)")
			}
			outputs = append(outputs, &output{path: "cmd/" + v.API.Name + "/main.go", tmpl: "main.go.tmpl"})
		}
	}
	return outputs, nil
}

// goString renders s as a Go string literal: a raw string when that is
// exact and readable, an interpreted one otherwise.
func goString(s string) string {
	if strings.ContainsAny(s, `"\\`) && strconv.CanBackquote(s) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

// excerpt shows the lines around a go/format error, numbered.
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
		fmt.Fprintf(&b, "%5d  %s\n", i+1, lines[i])
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
