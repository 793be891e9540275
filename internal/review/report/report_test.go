package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/mcpkit"
)

// Every message mcpkit can put in a result is either classified or known
// not to be a failure: a new message must be placed here too.
func TestEveryCatalogMessageIsClassified(t *testing.T) {
	for _, m := range mcpkit.Catalog() {
		_, failure := messageKinds[m.ID]
		if failure == notFailures[m.ID] {
			t.Errorf("message %s: classify it in messageKinds, or list it in notFailures", m.ID)
		}
	}
	for id := range messageKinds {
		if _, ok := mcpkit.LookupMessage(id); !ok {
			t.Errorf("messageKinds has %s, which mcpkit's catalog does not", id)
		}
	}
}

// A line longer than the limit is counted and skipped without being held,
// and the lines after it are read.
func TestReadSkipsHugeLines(t *testing.T) {
	rec := `{"time":"2026-10-05T10:00:00Z","msg":"audit","tool":"t","session":"s","args":{},"outcome":"ok","ms":1}`
	in := rec + "\n" + `{"msg":"audit","x":"` + strings.Repeat("a", maxLine+10) + `"}` + "\n" + rec + "\r\n" + rec
	var l Log
	if err := l.Read("big.log", strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	if len(l.Records) != 3 || len(l.Malformed) != 1 || l.Malformed[0].Line != 2 || l.Lines != 4 {
		t.Fatalf("records %d, malformed %v, lines %d", len(l.Records), l.Malformed, l.Lines)
	}
	if !strings.Contains(l.Malformed[0].Why, "longer than") {
		t.Errorf("why: %s", l.Malformed[0].Why)
	}
}

// Records are put in time order across files: a retry in the second file
// follows the error in the first.
func TestRecordsInTimeOrderAcrossFiles(t *testing.T) {
	var l Log
	l.Read("b.log", strings.NewReader(`{"time":"2026-10-05T10:00:02Z","msg":"audit","tool":"t","session":"s","args":{"a":2},"outcome":"ok","ms":1}`))
	l.Read("a.log", strings.NewReader(`{"time":"2026-10-05T10:00:01Z","msg":"audit","tool":"t","session":"s","args":{"a":1},"outcome":"error","messages":["refused"],"ms":1}`))
	r := Analyze(&l, Options{})
	rt := r.Tools[0].Retries
	if rt == nil || rt.Calls != 1 || rt.Recovered != 1 || rt.Changed["a"] != 1 {
		t.Errorf("retries: %+v", rt)
	}
}

// FuzzRead: whatever a log holds, reading and reporting it in every format
// neither fails nor panics, and every line is accounted for.
func FuzzRead(f *testing.F) {
	// Seeds are short: the fuzzing engine slows to a crawl on inputs of
	// several KiB. Each is a few lines of a recorded log.
	for _, p := range []string{"../../../examples/backoffice/audit-sample.log", "../../../testdata/cases/report-signals/audit.log"} {
		b, err := os.ReadFile(filepath.FromSlash(p))
		if err != nil {
			f.Fatal(err)
		}
		lines := bytes.SplitAfter(b, []byte("\n"))
		for i := 0; i+3 <= len(lines); i += 3 {
			if seed := bytes.Join(lines[i:i+3], nil); len(seed) < 2<<10 {
				f.Add(seed)
			}
		}
	}
	f.Add([]byte(`{"msg":"audit","time":"2026-10-05T10:00:00Z","tool":"t","outcome":"error","args":"not an object","quote":{"id":"q"},"error_rule":-3,"calls":[{"status":999}]}`))
	f.Add([]byte("{\"msg\":\"audit\"\n\x00\xff\n{}\n[]\n\"x\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var l Log
		if err := l.Read("fuzz.log", bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		if got := len(l.Records) + l.OtherLines + len(l.Malformed); got > l.Lines {
			t.Fatalf("%d lines, but %d records, other lines and malformed", l.Lines, got)
		}
		r := Analyze(&l, Options{Tools: []string{"t", "u"}, Places: &Places{File: "o.yaml", Tools: map[string]*ToolPlaces{"t": {Line: 3}}}})
		for _, format := range Formats {
			var out bytes.Buffer
			if err := Write(&out, r, format); err != nil {
				t.Fatal(err)
			}
			if format == "json" && !json.Valid(out.Bytes()) {
				t.Fatalf("not JSON: %s", out.String())
			}
		}
	})
}

// Declines are counted per tool for any tool that asks (an approval on a
// plain write, or the --approve policy), as the audit log records them:
// one record asking, one answering.
func TestDeclinesPerTool(t *testing.T) {
	var l Log
	rec := func(sec int, tool, approval, outcome string, msgs ...string) string {
		m := ""
		if len(msgs) > 0 {
			m = `,"messages":["` + strings.Join(msgs, `","`) + `"]`
		}
		return fmt.Sprintf(`{"time":"2026-10-05T10:00:%02dZ","msg":"audit","tool":"%s","session":"s","args":{"a":1},"approval":"%s","args_sha256":"ab","outcome":"%s"%s,"ms":1}`+"\n", sec, tool, approval, outcome, m)
	}
	in := rec(1, "delete_repo", "asked", "awaiting approval") + rec(2, "delete_repo", "decline", "error", "approval_call_declined") +
		rec(3, "delete_repo", "asked", "awaiting approval") + rec(4, "delete_repo", "decline", "error", "approval_call_declined") +
		rec(5, "delete_repo", "asked", "awaiting approval") + rec(6, "delete_repo", "timed out", "error", "approval_call_timed_out") +
		rec(7, "create_issue", "asked", "awaiting approval") + rec(8, "create_issue", "accept", "ok")
	if err := l.Read("audit.log", strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	r := Analyze(&l, Options{})
	byTool := map[string]*ToolStats{}
	for _, ts := range r.Tools {
		byTool[ts.Tool] = ts
	}
	if ap := byTool["delete_repo"].Approvals; ap == nil || ap.Asked != 3 || ap.Declined != 2 || ap.TimedOut != 1 {
		t.Fatalf("delete_repo approvals: %+v", ap)
	}
	if ap := byTool["create_issue"].Approvals; ap == nil || ap.Accepted != 1 || ap.Declined != 0 {
		t.Fatalf("create_issue approvals: %+v", ap)
	}
	found := false
	for _, f := range r.Findings {
		if f.Tool == "delete_repo" && f.Signal == "approvals declined" {
			found = true
		}
		if f.Tool == "create_issue" && f.Signal == "approvals declined" {
			t.Errorf("a tool nobody declined has a finding: %+v", f)
		}
	}
	if !found {
		t.Fatalf("no finding for the tool people keep declining: %+v", r.Findings)
	}
}
