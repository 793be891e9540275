package lint

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tailormcp/tailor/internal/generate/model"
	"github.com/tailormcp/tailor/internal/review/cost"
	"github.com/tailormcp/tailor/internal/review/formats"
)

// Formats lists the formats Write knows.
var Formats = []string{"text", "json"}

// Write renders a result: "text" (file:line:col: severity: message [rule],
// then why each rule that fired exists, then a summary) or "json".
func Write(w io.Writer, r *Result, format string) error {
	if format == "json" {
		out := struct {
			*Result
			Rules []Rule `json:"rules"`
		}{r, fired(r)}
		return formats.JSON(w, out)
	}
	for _, f := range r.Findings {
		fmt.Fprintln(w, f.String())
	}
	if rules := fired(r); len(rules) > 0 {
		fmt.Fprintln(w, "\nwhy:")
		width := 0
		for _, ru := range rules {
			width = max(width, len(ru.ID))
		}
		for _, ru := range rules {
			fmt.Fprintf(w, "  %-*s  %s\n", width, ru.ID, ru.Why)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, toolsetLine(r))
	if line := ClientLine(r.Clients); line != "" {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, Summary(r))
	return nil
}

// toolsetLine says what each toolset costs, the largest first (twelve at
// most), and what a --dynamic session starts with.
func toolsetLine(r *Result) string {
	sets := append([]cost.Toolset(nil), r.Toolsets...)
	sort.SliceStable(sets, func(i, j int) bool { return sets[i].Tokens > sets[j].Tokens })
	var parts []string
	for i, ts := range sets {
		if i == 12 {
			parts = append(parts, fmt.Sprintf("and %d more", len(sets)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s", ts.Name, thousands(ts.Tokens)))
	}
	return fmt.Sprintf("tokens by toolset: %s; with --dynamic, %s at start", strings.Join(parts, ", "), thousands(r.DynamicStartTokens))
}

// ClientLine says, per major client, the longest tool name it passes
// whole with this server's name and how many names are longer (naming the
// first few): "tool names by client: Claude Code (mcp__shop__<tool>) up to
// 51 characters, 0 over; ...".
func ClientLine(cs []model.ClientNames) string {
	if len(cs) == 0 {
		return ""
	}
	var parts []string
	for _, c := range cs {
		p := fmt.Sprintf("%s (%s) up to %d characters, %d over", c.Client, c.Pattern, c.Limit, len(c.Over))
		if n := len(c.Over); n > 0 {
			p += ": " + strings.Join(c.Over[:min(n, 3)], ", ")
			if n > 3 {
				p += fmt.Sprintf(" and %d more", n-3)
			}
		}
		parts = append(parts, p)
	}
	return "tool names by client: " + strings.Join(parts, "; ")
}

// Summary is the one-line outcome of a run.
func Summary(r *Result) string {
	s := fmt.Sprintf("%d error%s, %d warning%s; tools/list takes about %s tokens (%s estimate", r.Errors, plural(r.Errors), r.Warnings, plural(r.Warnings), thousands(r.Tokens), r.TokenEncoding)
	if r.Budget > 0 {
		s += ", budget " + thousands(r.Budget)
	}
	s += ")"
	if n := len(r.Suppressed); n > 0 {
		var parts []string
		for _, x := range r.Suppressed {
			parts = append(parts, fmt.Sprintf("%s on %s", x.Rule, x.Tool))
		}
		s += "; switched off by the overlay: " + strings.Join(parts, ", ")
	}
	return s
}

// fired lists the rules with findings, in the order of Rules.
func fired(r *Result) []Rule {
	seen := map[string]bool{}
	for _, f := range r.Findings {
		seen[f.Rule] = true
	}
	out := []Rule{}
	for _, ru := range Rules {
		if seen[ru.ID] {
			out = append(out, ru)
		}
	}
	return out
}
