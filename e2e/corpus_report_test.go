package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/testkit"
)

// corpusReportPath is the table of TestCorpus's results.
var corpusReportPath = filepath.Join(testkit.RepoRoot(), "docs", "corpus.md")

// corpusTimeColumn is the column of the table that varies from run to run
// (and machine to machine): the comparison with the committed table skips
// it.
const corpusTimeColumn = 5

// corpusReport writes docs/corpus.md (-update-corpus-report) or checks
// that its rows are this run's.
func corpusReport(t *testing.T, runs []*corpusRun) {
	t.Helper()
	rows := make([][]string, 0, len(runs))
	for _, r := range runs {
		rows = append(rows, r.row())
	}
	if *updateCorpusReport {
		if err := os.WriteFile(corpusReportPath, []byte(corpusMarkdown(rows)), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", corpusReportPath)
		return
	}
	data, err := os.ReadFile(corpusReportPath)
	if err != nil {
		t.Fatalf("%v (run: make corpus-report)", err)
	}
	have := tableRows(string(data))
	if len(have) != len(rows) {
		t.Errorf("docs/corpus.md has %d rows, this run %d: run make corpus-report", len(have), len(rows))
		return
	}
	for i, row := range rows {
		if masked(have[i]) != masked(row) {
			t.Errorf("docs/corpus.md is stale (run make corpus-report):\n have: %s\n  now: %s", strings.Join(have[i], " | "), strings.Join(row, " | "))
		}
	}
}

// row is the spec's line of the table.
func (r *corpusRun) row() []string {
	s := r.spec
	name := s.Name
	if s.Wild {
		name = "wild/" + name
	}
	switch {
	case r.res == nil:
		return []string{name, s.Version, fmt.Sprint(s.Ops), "—", "—", "—", "FAILS: does not generate"}
	}
	status := "yes"
	switch {
	case len(r.failed) > 0:
		status = "FAILS in " + strings.Join(r.failed, ", ") + " (see TestCorpus)"
	case !r.started:
		status = "FAILS: not built or not started (see TestCorpus)"
	case r.tools != s.Ops:
		status = "FAILS: lists " + fmt.Sprint(r.tools) + " tools"
	}
	tools := fmt.Sprint(len(r.res.Curated.Tools))
	if r.started {
		tools = fmt.Sprint(r.tools)
	}
	return []string{name, s.Version, fmt.Sprint(s.Ops), tools, fmt.Sprint(len(r.res.Warnings())), fmt.Sprintf("%.2f s", r.elapsed.Seconds()), status}
}

func masked(row []string) string {
	cp := append([]string(nil), row...)
	if len(cp) > corpusTimeColumn {
		cp[corpusTimeColumn] = ""
	}
	return strings.Join(cp, "\x00")
}

func corpusMarkdown(rows [][]string) string {
	var b strings.Builder
	b.WriteString(`# The real-world corpus

What tailor does with each real, published description in the corpus beside the repository
(` + "`../shared/corpus`" + `: its README's specs, and ` + "`wild/`" + `, one row per MANIFEST.tsv entry), as
` + "`e2e/corpus_test.go`" + ` (TestCorpus) measures it. The table is written by the test, not by hand:

    make corpus-report    # go test ./e2e -run 'TestCorpus$' -update-corpus-report -count=1

and TestCorpus fails when a row other than its time no longer matches. Per spec it generates the
raw tool set (no overlay), runs ` + "`tailor generate`" + ` and ` + "`tailor check`" + ` (byte-identical
output), builds every server in one ` + "`go build`" + `, starts each with no environment at all and
lists its tools.

- **operations**: the count the corpus listing gives (path/method pairs under ` + "`paths`" + `);
- **tools**: what the started server lists over tools/list (one per operation). Counting ` + "`Name:`" + `
  lines in the generated tools.go overcounts where a description contains that text (sentry's
  ` + "`Header-Name: value`" + `, influxdb's ` + "`dataSourceName:`" + `: 224 and 226 for 223 and 225 tools);
- **warnings**: spec problems tailor worked around, after merging repeats (` + "`tailor generate`" + ` prints them);
- **generation**: wall time of one in-process generation, specs one at a time, strict validation
  included, on the machine that last wrote this table (` + runtime.GOOS + "/" + runtime.GOARCH + `); it is not compared;
- **builds, starts, lists**: the server builds, starts without configuration and lists exactly one
  valid, uniquely named tool per operation, each path placeholder with an argument or a value.

| spec | version | operations | tools | warnings | generation | builds, starts, lists |
|---|---|---:|---:|---:|---:|---|
`)
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String()
}

// tableRows reads the rows of the Markdown table below its separator line.
func tableRows(doc string) [][]string {
	var out [][]string
	inTable := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "|---"):
			inTable = true
		case inTable && strings.HasPrefix(line, "| "):
			cells := strings.Split(strings.Trim(line, "| "), " | ")
			out = append(out, cells)
		case inTable:
			return out
		}
	}
	return out
}
