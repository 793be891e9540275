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

// File is one generated file, path relative to the output directory.
type File struct {
	Path    string
	Content []byte
}

var tmpl = template.Must(template.New("").Funcs(template.FuncMap{"quote": goString}).ParseFS(templates.FS, "*.go.tmpl"))

// Render produces the files of api, in a fixed order. Each file is its
// template run whole, then formatted whole with go/format: the templates
// and the printers of view.go write plain Go, and gofmt decides its layout.
// The files are rendered at once, one per core.
func Render(api *ir.API, opts Options) ([]File, error) {
	if !ValidPackage(opts.Package) {
		return nil, fmt.Errorf("package name %q is not a valid Go identifier", opts.Package)
	}
	v := newView(api, opts)
	outputs, err := v.outputs(opts)
	if err != nil {
		return nil, err
	}
	files := make([]File, len(outputs))
	errs := make([]error, len(outputs))
	parallel.For(len(outputs), func(i int) { files[i], errs[i] = v.file(outputs[i]) })
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return files, nil
}

// output is one generated file: its path and the template that writes it.
type output struct{ path, tmpl string }

// outputs are the files of the view.
func (v *view) outputs(opts Options) ([]output, error) {
	outputs := []output{{"server.go", "server.go.tmpl"}, {"tools.go", "tools.go.tmpl"}, {"schemas.go", "schemas.go.tmpl"}}
	if opts.Main {
		if opts.Package == "main" {
			outputs = append(outputs, output{"main.go", "main.go.tmpl"})
		} else {
			if opts.ImportPath == "" {
				return nil, fmt.Errorf("--main needs the generated package's import path (run inside a Go module, or pass --import-path)")
			}
			outputs = append(outputs, output{"cmd/" + v.API.Name + "/main.go", "main.go.tmpl"})
		}
	}
	return outputs, nil
}

// file runs o's template and formats what it wrote.
func (v *view) file(o output) (File, error) {
	var src bytes.Buffer
	if err := tmpl.ExecuteTemplate(&src, o.tmpl, v); err != nil {
		return File{}, fmt.Errorf("rendering %s: %w", o.path, err)
	}
	out, err := formatSource(o.path, src.Bytes())
	return File{Path: o.path, Content: out}, err
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
