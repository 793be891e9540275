package diff

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/tailormcp/tailor/internal/review/formats"
)

// Formats lists the formats Write knows.
var Formats = formats.Names

// Write renders r in format: "table" (a terminal table), "markdown" (for a
// pull-request comment) or "json".
func Write(w io.Writer, r *Report, format string) error {
	return formats.Write(w, format, r,
		func(w io.Writer) error { return writeTable(w, r) },
		func(w io.Writer) error { return writeMarkdown(w, r) })
}

func args(l []Arg, sep string) string {
	if len(l) == 0 {
		return "-"
	}
	s := make([]string, len(l))
	for i, a := range l {
		s[i] = a.label()
		if a.Detail != "" {
			s[i] += sep + a.Detail
		}
	}
	return strings.Join(s, ", ")
}

func list(l []string) string {
	if len(l) == 0 {
		return "-"
	}
	return strings.Join(l, ", ")
}

func ops(t *Tool) string {
	s := make([]string, len(t.Operations))
	for i, o := range t.Operations {
		s[i] = o.String()
	}
	return strings.Join(s, "; ")
}

func pair(p Pair) string {
	if p.Raw == 0 {
		return thousands(p.Curated)
	}
	if p.Raw == p.Curated {
		return thousands(p.Curated) + " (same)"
	}
	return thousands(p.Raw) + " → " + thousands(p.Curated)
}

func annotations(l Labels) string {
	if l.Raw == "" || l.Raw == l.Curated {
		return l.Curated
	}
	return l.Raw + " → " + l.Curated
}

// scopes is a tool's scopes, space-separated as in a token's scope
// claim, with the raw tools' first when curation changed them.
func scopes(s Scopes) string {
	set := func(l []string) string {
		if len(l) == 0 {
			return "none"
		}
		return strings.Join(l, " ")
	}
	if slices.Equal(s.Raw, s.Curated) {
		if len(s.Curated) == 0 {
			return ""
		}
		return set(s.Curated)
	}
	return set(s.Raw) + " → " + set(s.Curated)
}

// dash stands for an empty cell of the terminal table.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func saving(raw, curated int) string {
	if raw == 0 {
		return ""
	}
	return fmt.Sprintf(" (%+.0f%%)", float64(curated-raw)*100/float64(raw))
}

func writeTable(w io.Writer, r *Report) error {
	fmt.Fprintf(w, "tailor diff: %s", r.Spec)
	if r.Overlay != "" {
		fmt.Fprintf(w, " with %s", r.Overlay)
	}
	fmt.Fprintln(w)
	if r.Note != "" {
		fmt.Fprintln(w, r.Note)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\traw\tcurated")
	fmt.Fprintf(tw, "tools\t%d\t%d\n", r.Raw.Tools, r.Curated.Tools)
	fmt.Fprintf(tw, "tools/list tokens*\t%s\t%s%s\n", thousands(r.Raw.Tokens), thousands(r.Curated.Tokens), saving(r.Raw.Tokens, r.Curated.Tokens))
	fmt.Fprintf(tw, "tools/list bytes\t%s\t%s\n", thousands(r.Raw.Bytes), thousands(r.Curated.Bytes))
	tw.Flush()
	fmt.Fprintf(w, "* an estimate, counted with %s: clients and models count differently\n\n", r.TokenEncoding)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOLSET\tTOOLS\tTOKENS*\tDEFAULT")
	for _, ts := range r.Toolsets {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", ts.Name, ts.Tools, thousands(ts.Tokens), yesNo(ts.Default))
	}
	fmt.Fprintf(tw, "--dynamic at start\t%d\t%s\n", r.DynamicStart.Tools, thousands(r.DynamicStart.Tokens))
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT\tNAME THE MODEL SEES\tTOOL NAME LIMIT\tRAW OVER\tCURATED OVER")
	for i, c := range r.Names.Curated {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", c.Client, c.Pattern, c.Limit, overNames(r.Names.Raw[i].Over), overNames(c.Over))
	}
	tw.Flush()
	fmt.Fprintln(w)

	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tKIND\tOPERATIONS\tHIDDEN\tFIXED\tINJECTED\tRENAMED\tCOMPUTED\tMODEL NO LONGER FILLS\tNEW ARGS\tDESC CHARS\tANNOTATIONS\tSCOPES\tTOKENS")
	for _, t := range r.Tools {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			t.Name, t.Kind, ops(t), args(t.Hidden, ""), args(t.Fixed, "="), args(t.Injected, "←"), args(t.Renamed, "→"),
			args(t.Computed, "←"), list(t.NoLongerFilled), list(t.NewArgs), pair(t.Description), annotations(t.Annotations), dash(scopes(t.Scopes)), pair(t.Tokens))
	}
	tw.Flush()
	if asks := approvals(r); len(asks) > 0 {
		fmt.Fprintf(w, "\napproval (the person approves before the tool sends anything; --approve none|destructive|writes sets the server's policy):\n")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, t := range asks {
			fmt.Fprintf(tw, "  %s\t%s\n", t.Name, t.Approval)
		}
		tw.Flush()
	}
	if len(r.NotOffered) > 0 {
		fmt.Fprintf(w, "\nnot offered (%d raw tools whose operation no curated tool calls):\n", len(r.NotOffered))
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, o := range r.NotOffered {
			fmt.Fprintf(tw, "  %s\t%s\n", o.RawTool, o.String())
		}
		tw.Flush()
	}
	if r.Against != nil {
		writeImpactText(w, r.Against)
	}
	return nil
}

func writeImpactText(w io.Writer, im *Impact) {
	fmt.Fprintf(w, "\nagainst %s: what %s changes for the curated tools\n", im.OldSpec, im.NewSpec)
	if len(im.Tools) == 0 && len(im.OverlayErrors) == 0 {
		fmt.Fprintln(w, "  nothing: every operation the curated tools call is unchanged in its parameters and response fields")
		return
	}
	for _, t := range im.Tools {
		fmt.Fprintf(w, "  %s  %s\n", t.Tool, t.Operation.String())
		for _, l := range impactLines(t) {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	if len(im.OverlayErrors) > 0 {
		fmt.Fprintln(w, "  the overlay no longer applies:")
		for _, e := range im.OverlayErrors {
			fmt.Fprintf(w, "    %s\n", e)
		}
	}
}

func impactLines(t *OpImpact) []string {
	var l []string
	switch {
	case t.Vanished && t.MovedTo != "":
		l = append(l, "operation moved to "+t.MovedTo+" (same operationId)")
	case t.Vanished:
		l = append(l, "operation vanished: the tool cannot be generated")
	}
	if len(t.ParamsAdded) > 0 {
		l = append(l, "parameters added: "+strings.Join(t.ParamsAdded, ", "))
	}
	if len(t.ParamsRemoved) > 0 {
		l = append(l, "parameters removed: "+strings.Join(t.ParamsRemoved, ", "))
	}
	if len(t.MadeRequired) > 0 {
		l = append(l, "parameters now required: "+strings.Join(t.MadeRequired, ", "))
	}
	if len(t.FieldsUsed) > 0 {
		l = append(l, "response fields the overlay reads, removed: "+strings.Join(t.FieldsUsed, ", "))
	}
	var others []string
	for _, f := range t.FieldsRemoved {
		if !sortedContains(t.FieldsUsed, f) {
			others = append(others, f)
		}
	}
	if len(others) > 0 {
		l = append(l, "other response fields removed: "+strings.Join(others, ", "))
	}
	return l
}

func md(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}

func code(l []string) string {
	if len(l) == 0 || (len(l) == 1 && l[0] == "-") {
		return ""
	}
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = "`" + strings.ReplaceAll(s, "`", "'") + "`"
	}
	return md(strings.Join(out, ", "))
}

func codeArgs(l []Arg, sep string) string {
	s := make([]string, len(l))
	for i, a := range l {
		s[i] = a.label()
		if a.Detail != "" {
			s[i] += sep + a.Detail
		}
	}
	return code(s)
}

func writeMarkdown(w io.Writer, r *Report) error {
	title := "`" + r.Spec + "`"
	if r.Overlay != "" {
		title += " with `" + r.Overlay + "`"
	}
	fmt.Fprintf(w, "### tailor diff: %s\n\n", title)
	if r.Note != "" {
		fmt.Fprintf(w, "%s\n\n", md(r.Note))
	}
	fmt.Fprintln(w, "| | raw | curated |")
	fmt.Fprintln(w, "|---|---:|---:|")
	fmt.Fprintf(w, "| tools | %d | %d |\n", r.Raw.Tools, r.Curated.Tools)
	fmt.Fprintf(w, "| `tools/list` tokens (estimate) | %s | %s%s |\n", thousands(r.Raw.Tokens), thousands(r.Curated.Tokens), saving(r.Raw.Tokens, r.Curated.Tokens))
	fmt.Fprintf(w, "| `tools/list` bytes | %s | %s |\n\n", thousands(r.Raw.Bytes), thousands(r.Curated.Bytes))
	fmt.Fprintf(w, "Token counts are estimates (%s): clients and models count differently.\n\n", r.TokenEncoding)
	fmt.Fprintln(w, "| toolset | tools | tokens | default |")
	fmt.Fprintln(w, "|---|---:|---:|---|")
	for _, ts := range r.Toolsets {
		fmt.Fprintf(w, "| `%s` | %d | %s | %s |\n", ts.Name, ts.Tools, thousands(ts.Tokens), yesNo(ts.Default))
	}
	fmt.Fprintf(w, "| `--dynamic` at start | %d | %s | |\n\n", r.DynamicStart.Tools, thousands(r.DynamicStart.Tokens))
	fmt.Fprintln(w, "| client | name the model sees | tool name limit | raw over | curated over |")
	fmt.Fprintln(w, "|---|---|---:|---|---|")
	for i, c := range r.Names.Curated {
		fmt.Fprintf(w, "| %s | `%s` | %d | %s | %s |\n", c.Client, c.Pattern, c.Limit, md(overNames(r.Names.Raw[i].Over)), md(overNames(c.Over)))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| tool | kind | operations | hidden | fixed | injected | renamed | computed | model no longer fills | new arguments | description (chars) | annotations | scopes | tokens |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---:|---|---|---:|")
	for _, t := range r.Tools {
		o := make([]string, len(t.Operations))
		for i, op := range t.Operations {
			o[i] = op.String()
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			t.Name, t.Kind, code(o), codeArgs(t.Hidden, ""), codeArgs(t.Fixed, " = "), codeArgs(t.Injected, " ← "), codeArgs(t.Renamed, " → "),
			codeArgs(t.Computed, " ← "), code(t.NoLongerFilled), code(t.NewArgs), pair(t.Description), md(annotations(t.Annotations)), md(scopes(t.Scopes)), pair(t.Tokens))
	}
	if asks := approvals(r); len(asks) > 0 {
		fmt.Fprintf(w, "\n**Approval** (the person approves before the tool sends anything; `--approve none|destructive|writes` sets the server's policy):\n\n")
		for _, t := range asks {
			fmt.Fprintf(w, "- `%s`: %s\n", t.Name, md(t.Approval))
		}
	}
	if len(r.NotOffered) > 0 {
		fmt.Fprintf(w, "\n<details><summary>Not offered: %d raw tools whose operation no curated tool calls</summary>\n\n", len(r.NotOffered))
		for _, o := range r.NotOffered {
			fmt.Fprintf(w, "- `%s` %s\n", o.RawTool, md(o.String()))
		}
		fmt.Fprintln(w, "\n</details>")
	}
	if im := r.Against; im != nil {
		fmt.Fprintf(w, "\n#### Against `%s`\n\n", im.OldSpec)
		if len(im.Tools) == 0 && len(im.OverlayErrors) == 0 {
			fmt.Fprintln(w, "Nothing changes for the curated tools: their operations keep their parameters and response fields.")
		}
		for _, t := range im.Tools {
			fmt.Fprintf(w, "- `%s` (%s)\n", t.Tool, md(t.Operation.String()))
			for _, l := range impactLines(t) {
				fmt.Fprintf(w, "  - %s\n", md(l))
			}
		}
		if len(im.OverlayErrors) > 0 {
			fmt.Fprintln(w, "\nThe overlay no longer applies:\n\n```")
			for _, e := range im.OverlayErrors {
				fmt.Fprintln(w, e)
			}
			fmt.Fprintln(w, "```")
		}
	}
	return nil
}

// overNames is a count of names over a limit and the first three.
func overNames(over []string) string {
	s := fmt.Sprint(len(over))
	if n := len(over); n > 0 {
		s += ": " + strings.Join(over[:min(n, 3)], ", ")
		if n > 3 {
			s += fmt.Sprintf(" and %d more", n-3)
		}
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// approvals are the tools the person may be asked about, in order.
func approvals(r *Report) []*Tool {
	var out []*Tool
	for _, t := range r.Tools {
		if t.Approval != "" {
			out = append(out, t)
		}
	}
	return out
}
