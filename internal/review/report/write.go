package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tailormcp/tailor/internal/review/formats"
)

// Formats lists the formats Write knows.
var Formats = formats.Names

// Write renders r as "table" (a terminal), "markdown" (a pull request or an
// issue) or "json".
func Write(w io.Writer, r *Report, format string) error {
	return formats.Write(w, format, r,
		func(w io.Writer) error { writeTable(w, r); return nil },
		func(w io.Writer) error { writeMarkdown(w, r); return nil })
}

// kindColumns are the error kinds with a column; Other gets one only when
// some tool has such errors.
func kindColumns(r *Report) []Kind {
	cols := Kinds[:len(Kinds)-1]
	for _, t := range r.Tools {
		if t.ByKind[Other] > 0 {
			return Kinds
		}
	}
	return cols
}

func headline(r *Report) []string {
	lines := []string{fmt.Sprintf("%s: %d audit records, %d other log lines, %d malformed lines skipped",
		plural(r.Lines, "line"), r.Records, r.OtherLines, r.Malformed)}
	if r.Calls == 0 {
		return append(lines, "no tool calls")
	}
	s := r.Sessions
	line := fmt.Sprintf("%s to %s: %s, %s", r.From, r.To, plural(r.Calls, "call"), plural(r.Errors, "error"))
	if s.Count > 0 {
		line += fmt.Sprintf("; %s, %d to %d calls each (median %d), %d ended on an error, %d left a quote not carried out",
			plural(s.Count, "session"), s.MinCalls, s.MaxCalls, s.MedianCalls, s.EndedOnError, s.QuoteLeft)
	}
	if s.CallsWithout > 0 {
		line += fmt.Sprintf("; %s without a session", plural(s.CallsWithout, "call"))
	}
	return append(lines, line)
}

// row is a tool's figures as the table and Markdown show them.
func row(t *ToolStats, kinds []Kind) []string {
	errs := "-"
	if t.Errors > 0 {
		errs = fmt.Sprintf("%d (%d%%)", t.Errors, (t.Errors*100+t.Calls/2)/max(t.Calls, 1))
	}
	cells := []string{t.Tool, fmt.Sprint(t.Calls), errs}
	for _, k := range kinds {
		cells = append(cells, count(t.ByKind[k]))
	}
	retries := "-"
	if rt := t.Retries; rt != nil {
		retries = fmt.Sprintf("%d (%d recovered)", rt.Calls, rt.Recovered)
	}
	quotes := "-"
	if q := t.Quotes; q != nil {
		quotes = fmt.Sprintf("%d of %d", q.Confirmed, q.Made)
	}
	return append(cells, retries, quotes, count(t.Cut))
}

func header(kinds []Kind) []string {
	h := []string{"tool", "calls", "errors"}
	for _, k := range kinds {
		h = append(h, string(k))
	}
	return append(h, "retries", "quotes carried out", "results cut")
}

// where says where a finding points in the overlay.
func where(r *Report, f Finding) string {
	switch {
	case f.Where != "":
		return f.Where
	case r.Overlay != "":
		return fmt.Sprintf("not in %s: curate it under tools.%s", r.Overlay, f.Tool)
	}
	return ""
}

func writeTable(w io.Writer, r *Report) {
	fmt.Fprintf(w, "tailor report: %s\n", strings.Join(r.Sources, ", "))
	for _, l := range headline(r) {
		fmt.Fprintln(w, l)
	}
	for _, s := range r.MalformedAt {
		fmt.Fprintf(w, "  skipped %s\n", s)
	}
	if more := r.Malformed - len(r.MalformedAt); more > 0 {
		fmt.Fprintf(w, "  and %d more malformed lines\n", more)
	}
	if len(r.Tools) > 0 {
		fmt.Fprintln(w)
		kinds := kindColumns(r)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, strings.ToUpper(strings.Join(header(kinds), "\t")))
		for _, t := range r.Tools {
			fmt.Fprintln(tw, strings.Join(row(t, kinds), "\t"))
		}
		tw.Flush()
	}
	if len(r.NeverCalled) > 0 {
		fmt.Fprintf(w, "\nnever called: %s\n", unused(r.NeverCalled, false))
	}
	if len(r.Findings) > 0 {
		fmt.Fprintln(w, "\nfindings, most stuck tool first:")
		for i, f := range r.Findings {
			fmt.Fprintf(w, "%d. %s, %s: %s\n", i+1, f.Tool, f.Signal, f.Detail)
			if at := where(r, f); at != "" {
				fmt.Fprintf(w, "   at %s\n", at)
			}
			fmt.Fprintf(w, "   change: %s\n", f.Change)
		}
	}
}

func writeMarkdown(w io.Writer, r *Report) {
	fmt.Fprintf(w, "### tailor report: %s\n\n", strings.Join(r.Sources, ", "))
	for _, l := range headline(r) {
		fmt.Fprintf(w, "%s.  \n", l)
	}
	for _, s := range r.MalformedAt {
		fmt.Fprintf(w, "Skipped `%s`: %s.  \n", fmt.Sprintf("%s:%d", s.Source, s.Line), s.Why)
	}
	if more := r.Malformed - len(r.MalformedAt); more > 0 {
		fmt.Fprintf(w, "And %d more malformed lines.  \n", more)
	}
	if len(r.Tools) > 0 {
		kinds := kindColumns(r)
		h := header(kinds)
		fmt.Fprintf(w, "\n| %s |\n|---|%s\n", strings.Join(h, " | "), strings.Repeat("---:|", len(h)-1))
		for _, t := range r.Tools {
			cells := row(t, kinds)
			cells[0] = "`" + cells[0] + "`"
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
	}
	if len(r.NeverCalled) > 0 {
		fmt.Fprintf(w, "\nNever called: %s.\n", unused(r.NeverCalled, true))
	}
	if len(r.Findings) > 0 {
		fmt.Fprintln(w, "\n#### Findings, most stuck tool first")
		fmt.Fprintln(w)
		for i, f := range r.Findings {
			at := ""
			if s := where(r, f); s != "" {
				at = " (`" + s + "`)"
				if f.Where == "" {
					at = " (" + s + ")"
				}
			}
			fmt.Fprintf(w, "%d. **`%s`**, %s: %s%s.  \n   Change: %s.\n", i+1, f.Tool, f.Signal, f.Detail, at, f.Change)
		}
	}
}

// unused lists tools never called, as code in Markdown.
func unused(l []Unused, markdown bool) string {
	code := func(s string) string {
		if markdown {
			return "`" + s + "`"
		}
		return s
	}
	parts := make([]string, len(l))
	for i, u := range l {
		parts[i] = code(u.Tool)
		if u.Where != "" {
			parts[i] += " (" + code(u.Where) + ")"
		}
	}
	return strings.Join(parts, ", ")
}

func count(n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
