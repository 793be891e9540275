// Package formats writes the review tools' reports (tailor diff, tailor
// report) in the format the user asks for: a table for the terminal,
// Markdown for a pull request or an issue, or JSON for a program.
package formats

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Names are the formats Write knows.
var Names = []string{"table", "markdown", "json"}

// Write writes report in format: "json" (report's encoding/json value),
// "markdown" or "table" (the default) by the report's own writers.
func Write(w io.Writer, format string, report any, table, markdown func(io.Writer) error) error {
	switch format {
	case "json":
		return JSON(w, report)
	case "markdown":
		return markdown(w)
	case "table", "":
		return table(w)
	}
	return fmt.Errorf("unknown format %q: use one of %s", format, strings.Join(Names, ", "))
}

// JSON writes v as indented JSON, <, > and & as they are.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
