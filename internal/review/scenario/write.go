package scenario

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tailormcp/tailor/internal/review/cost"
)

// Write prints a result: each target's scenarios (failures with the
// scenario file's line, what was expected and what came instead), then
// the summary, targets side by side.
func Write(w io.Writer, r *Result) {
	fmt.Fprintf(w, "tailor test: %s\n", strings.Join(r.Files, ", "))
	for _, t := range r.Targets {
		fmt.Fprintf(w, "\n%s: %s\n", t.Target.Name, t.Target.display())
		for _, s := range t.Scenarios {
			switch {
			case s.Skipped:
				fmt.Fprintf(w, "skip  %s (not for this target)\n", s.Name)
			case len(s.Failures) == 0:
				fmt.Fprintf(w, "ok    %s (%s)\n", s.Name, plural(s.Calls, "call"))
			default:
				fmt.Fprintf(w, "FAIL  %s (%s)\n", s.Name, plural(s.Calls, "call"))
				for i, f := range s.Failures {
					call := ""
					if f.Call > 0 {
						call = fmt.Sprintf("call %d (%s): ", f.Call, f.Tool)
					}
					fmt.Fprintf(w, "      %s: %s%s\n", f.Pos, call, f.What)
					got := f.Got
					if i > 0 && f.Call == s.Failures[i-1].Call && sameLines(got, s.Failures[i-1].Got) {
						// The same observation as the failure above.
						got = nil
					}
					for _, g := range got {
						for _, line := range strings.Split(g, "\n") {
							fmt.Fprintf(w, "        %s\n", line)
						}
					}
				}
			}
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(label string, cell func(t *TargetResult) string) {
		cells := []string{label}
		for _, t := range r.Targets {
			cells = append(cells, cell(t))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	row("", func(t *TargetResult) string { return t.Target.Name })
	row("scenarios passed", func(t *TargetResult) string { return fmt.Sprint(t.Passed) })
	row("scenarios failed", func(t *TargetResult) string { return fmt.Sprint(t.Failed) })
	row("scenarios skipped", func(t *TargetResult) string { return fmt.Sprint(t.Skipped) })
	row("calls", func(t *TargetResult) string { return fmt.Sprint(t.Calls) })
	row("error results", func(t *TargetResult) string { return fmt.Sprint(t.Errors) })
	row("tools/list tokens*", func(t *TargetResult) string { return thousands(t.ToolsTokens) })
	row("result tokens*", func(t *TargetResult) string { return thousands(t.ResultTokens) })
	tw.Flush()
	fmt.Fprintf(w, "* what the model read, counted with %s: an estimate\n", cost.Encoding)
}

func sameLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
