package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/tailormcp/tailor/internal/review/report"
)

// Formats are the report formats Write takes.
var Formats = []string{"markdown", "json"}

// Write writes the report side by side per target: markdown for a pull
// request, json for tools.
func Write(w io.Writer, r *Result, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(r)
	}
	writeMarkdown(w, r)
	return nil
}

// shownFindings is how many findings per target the Markdown lists.
const shownFindings = 5

func writeMarkdown(w io.Writer, r *Result) {
	fmt.Fprintf(w, "#### tailor eval: %s\n\n", r.File)
	fmt.Fprintf(w, "Model `%s`, %s per task and target; %s tokens spent", r.Model, plural(r.Trials, "trial"), thousands(r.Spent))
	if r.Unanswered > 0 {
		fmt.Fprintf(w, ", and up to %s by requests that timed out", thousands(r.Unanswered))
	}
	if r.Budget > 0 {
		fmt.Fprintf(w, " (budget %s)", thousands(r.Budget))
	}
	fmt.Fprintln(w, ".  ")
	if r.BudgetReached {
		fmt.Fprintf(w, "**The budget stopped the run**: %s not run, %s stopped before a request that could pass it", plural(len(r.NotRun), "trial"), plural(len(r.Stopped), "trial"))
		if len(r.Stopped) > 0 {
			fmt.Fprintf(w, " (%s)", strings.Join(r.Stopped, "; "))
		}
		fmt.Fprintln(w, "; the figures count finished trials only.  ")
	}
	fmt.Fprintln(w)
	head := "| |"
	sep := "|---|"
	for _, t := range r.Targets {
		head += " " + t.Name + " |"
		sep += "---:|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, sep)
	k := 0
	for _, t := range r.Targets {
		if k == 0 || len(t.PassHat) < k {
			k = len(t.PassHat)
		}
	}
	rows := []struct {
		name string
		cell func(t *TargetResult) string
	}{
		{"tools", func(t *TargetResult) string { return fmt.Sprint(t.Tools) }},
		{"success rate", func(t *TargetResult) string {
			return fmt.Sprintf("%s (%d of %d)", percent(t.SuccessRate), t.Succeeded, t.Counted)
		}},
		{fmt.Sprintf("pass^%d", k), func(t *TargetResult) string {
			if k == 0 {
				return "-"
			}
			return fmt.Sprintf("%.2f", t.PassHat[k-1])
		}},
		{"turns per trial", func(t *TargetResult) string { return decimal(t.per(t.Turns)) }},
		{"tool calls per trial", func(t *TargetResult) string { return decimal(t.per(t.ToolCalls)) }},
		{"error results per trial", func(t *TargetResult) string { return decimal(t.per(t.ErrorResults)) }},
		{"approvals asked per trial", func(t *TargetResult) string { return decimal(t.per(t.Approvals)) }},
		{"input tokens per trial", func(t *TargetResult) string { return thousands(int64(t.per(int(t.Usage.Input)))) }},
		{"output tokens per trial", func(t *TargetResult) string { return thousands(int64(t.per(int(t.Usage.Output)))) }},
		{"wall time per trial", func(t *TargetResult) string {
			return (time.Duration(t.per(int(time.Duration(t.Wall).Milliseconds()))) * time.Millisecond).Round(100 * time.Millisecond).String()
		}},
		{"stopped at the turn limit", func(t *TargetResult) string { return fmt.Sprint(t.TurnLimits) }},
		{"timed out (model request or trial)", func(t *TargetResult) string { return fmt.Sprint(t.Timeouts) }},
		{"errors (provider, server, backend)", func(t *TargetResult) string { return fmt.Sprint(t.Errors) }},
	}
	for _, row := range rows {
		line := "| " + row.name + " |"
		for _, t := range r.Targets {
			line += " " + row.cell(t) + " |"
		}
		fmt.Fprintln(w, line)
	}
	if p := personaTokens(r); p > 0 {
		fmt.Fprintf(w, "\nThe model playing the person spent %s of the tokens; the table counts the model under test only.\n", thousands(p))
	}

	fmt.Fprintln(w, "\n##### By task (successes of trials)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, strings.Replace(head, "| |", "| task |", 1))
	fmt.Fprintln(w, sep)
	for _, task := range taskNames(r) {
		line := "| " + task + " |"
		for _, t := range r.Targets {
			cell := "skipped"
			for _, tk := range t.Tasks {
				if tk.Task == task {
					cell = fmt.Sprintf("%d of %d", tk.Succeeded, tk.Counted)
				}
			}
			line += " " + cell + " |"
		}
		fmt.Fprintln(w, line)
	}

	var why []string
	for _, t := range r.Targets {
		for _, tk := range t.Tasks {
			for _, c := range tk.Failures {
				why = append(why, fmt.Sprintf("- %s, *%s*, %d×: %s", t.Name, tk.Task, c.N, c.What))
			}
		}
	}
	if len(why) > 0 {
		fmt.Fprintln(w, "\n##### Why trials failed")
		fmt.Fprintln(w)
		fmt.Fprintln(w, strings.Join(why, "\n"))
	}

	fmt.Fprintln(w, "\n##### Findings of `tailor report` over the trials' audit logs")
	for _, t := range r.Targets {
		fmt.Fprintf(w, "\n**%s**: %d calls, %d errors", t.Name, t.Report.Calls, t.Report.Errors)
		if len(t.Report.NeverCalled) > 0 {
			var names []string
			for _, u := range t.Report.NeverCalled {
				names = append(names, "`"+u.Tool+"`")
			}
			fmt.Fprintf(w, "; never called: %s", strings.Join(names, ", "))
		}
		fmt.Fprintln(w, ".")
		// Tools never called are listed above.
		var findings []report.Finding
		for _, f := range t.Report.Findings {
			if len(t.Report.NeverCalled) == 0 || !strings.HasPrefix(f.Signal, "never called") {
				findings = append(findings, f)
			}
		}
		if len(findings) > 0 {
			fmt.Fprintln(w)
		}
		for i, f := range findings {
			if i == shownFindings {
				fmt.Fprintf(w, "%d more in the JSON report.\n", len(findings)-shownFindings)
				break
			}
			where := ""
			if f.Where != "" {
				where = " (`" + f.Where + "`)"
			}
			fmt.Fprintf(w, "%d. `%s`, %s: %s%s.  \n   Change: %s\n", i+1, f.Tool, f.Signal, f.Detail, where, f.Change)
		}
	}
}

func personaTokens(r *Result) int64 {
	var n int64
	for _, t := range r.Targets {
		n += t.PersonaUsage.Total()
	}
	return n
}

func taskNames(r *Result) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range r.Targets {
		for _, tk := range t.Tasks {
			if !seen[tk.Task] {
				seen[tk.Task] = true
				out = append(out, tk.Task)
			}
		}
	}
	return out
}

func percent(f float64) string { return fmt.Sprintf("%.0f%%", f*100) }

func decimal(f float64) string { return fmt.Sprintf("%.1f", f) }

func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// WriteDir writes, under dir, the reports (report.md, report.json) and,
// for every trial, its transcript (transcripts/TARGET/TASK-N.jsonl) and
// its server's audit log (audit/TARGET/TASK-N.log).
func WriteDir(dir string, r *Result) error {
	for _, f := range Formats {
		name := map[string]string{"markdown": "report.md", "json": "report.json"}[f]
		if err := writeFile(filepath.Join(dir, name), func(w io.Writer) error { return Write(w, r, f) }); err != nil {
			return err
		}
	}
	for _, t := range r.Targets {
		for _, tr := range t.Trials {
			base := fmt.Sprintf("%s-%d", slug(tr.Task), tr.Trial)
			if err := writeFile(filepath.Join(dir, "transcripts", slug(t.Name), base+".jsonl"), func(w io.Writer) error { return WriteTranscript(w, tr) }); err != nil {
				return err
			}
			if err := writeFile(filepath.Join(dir, "audit", slug(t.Name), base+".log"), func(w io.Writer) error { _, err := w.Write(tr.Audit); return err }); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var notSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slug is a name as a file name: lower case, words joined by -.
func slug(s string) string {
	s = strings.Trim(notSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if s == "" {
		return "task"
	}
	return s
}
