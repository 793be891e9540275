// Package diag holds the diagnostics every generator stage reports: errors
// that stop generation and warnings that do not, each pointing at the place
// in the user's files that caused it (file:line:col, or a JSON pointer into
// the spec when no line is known).
package diag

import (
	"fmt"
	"sort"
	"strings"
)

// Severity says whether a diagnostic stops generation.
type Severity int

const (
	// Warning is reported on stderr; generation goes on.
	Warning Severity = iota
	// Error stops generation after every error of the run has been collected.
	Error
)

func (s Severity) String() string {
	if s == Error {
		return "error"
	}
	return "warning"
}

// Pos is a place in a user's file. Line and Col are 1-based; zero means unknown.
type Pos struct {
	File string
	Line int
	Col  int
}

// String renders the position as file:line:col, leaving out what is unknown.
func (p Pos) String() string {
	switch {
	case p.File == "":
		return ""
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Diagnostic is one problem found in the inputs.
type Diagnostic struct {
	Severity Severity
	Pos      Pos
	// Pointer is a JSON pointer into the spec ("#/paths/~1pets/get"), used
	// when Pos has no line.
	Pointer string
	Message string
}

func (d Diagnostic) String() string {
	where := d.Pos.String()
	if d.Pointer != "" {
		if where == "" || d.Pos.Line == 0 {
			where = strings.TrimPrefix(where+" ", " ") + "(" + d.Pointer + ")"
		}
	}
	if where == "" {
		return d.Severity.String() + ": " + d.Message
	}
	return where + ": " + d.Severity.String() + ": " + d.Message
}

// List collects diagnostics across a run so that every problem is reported
// at once instead of one per run.
type List struct {
	items []Diagnostic
}

// Warnf records a warning.
func (l *List) Warnf(pos Pos, pointer, format string, args ...any) {
	l.items = append(l.items, Diagnostic{Severity: Warning, Pos: pos, Pointer: pointer, Message: fmt.Sprintf(format, args...)})
}

// Errorf records an error.
func (l *List) Errorf(pos Pos, pointer, format string, args ...any) {
	l.items = append(l.items, Diagnostic{Severity: Error, Pos: pos, Pointer: pointer, Message: fmt.Sprintf(format, args...)})
}

// Add appends diagnostics from another stage.
func (l *List) Add(ds ...Diagnostic) { l.items = append(l.items, ds...) }

// All returns the diagnostics in a stable order: by file, line, column, then
// pointer and message, so output does not depend on map iteration.
func (l *List) All() []Diagnostic {
	out := append([]Diagnostic(nil), l.items...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Pos.File != b.Pos.File {
			return a.Pos.File < b.Pos.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Col != b.Pos.Col {
			return a.Pos.Col < b.Pos.Col
		}
		if a.Pointer != b.Pointer {
			return a.Pointer < b.Pointer
		}
		return a.Message < b.Message
	})
	return out
}

// HasErrors reports whether any diagnostic is an error.
func (l *List) HasErrors() bool {
	for _, d := range l.items {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Err returns nil when there are no errors, or an *Errors holding every
// error of the list.
func (l *List) Err() error {
	var errs []Diagnostic
	for _, d := range l.All() {
		if d.Severity == Error {
			errs = append(errs, d)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &Errors{List: errs}
}

// Warnings returns only the warnings, in stable order.
func (l *List) Warnings() []Diagnostic {
	var out []Diagnostic
	for _, d := range l.All() {
		if d.Severity == Warning {
			out = append(out, d)
		}
	}
	return out
}

// Errors is the error returned when a stage found one or more errors.
type Errors struct {
	List []Diagnostic
}

func (e *Errors) Error() string {
	lines := make([]string, len(e.List))
	for i, d := range e.List {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// At makes a single-error *Errors; handy for stages that stop at the first
// problem (a file that cannot be read at all).
func At(pos Pos, format string, args ...any) error {
	return &Errors{List: []Diagnostic{{Severity: Error, Pos: pos, Message: fmt.Sprintf(format, args...)}}}
}
