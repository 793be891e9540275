package bench

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestQuick runs the benchmark once, quickly, on the bundled example, so
// that the harness cannot rot: CI times nothing, but every figure must be
// produced. openapi-mcp-generator is installed from npm and measured too
// when npm is on PATH (TAILOR_BENCH_ALT=0 leaves it out).
func TestQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs servers; not a unit test")
	}
	cfg := QuickConfig()
	cfg.Specs = []Spec{PetstoreSpec(RepoRoot())}
	// The wild corpus's figure, on the example (the corpus may be absent).
	cfg.Wild, cfg.WildRuns = []Spec{{Name: "petstore-as-wild", Path: PetstoreSpec(RepoRoot()).Path}}, 1
	cfg.Work = t.TempDir()
	cfg.Log = testLog{t}
	_, err := exec.LookPath("npm")
	cfg.Alt = err == nil && os.Getenv("TAILOR_BENCH_ALT") != "0"
	if !cfg.Alt {
		t.Log("openapi-mcp-generator left out (no npm, or TAILOR_BENCH_ALT=0)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	rep, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	md := rep.Markdown()
	t.Log("\n" + md)

	// Every figure of issue 6, with a tailor value, and an
	// openapi-mcp-generator value where it is the comparison.
	figures := map[string]bool{}
	for _, row := range rep.Rows {
		figures[row.Figure] = true
		if row.Spec != "petstore" && !strings.HasPrefix(row.Spec, "wild (1 spec") {
			t.Errorf("row %q is for %s, not petstore", row.Figure, row.Spec)
		}
		if len(row.Tailor) == 0 {
			t.Errorf("row %q has no tailor value", row.Figure)
		}
		if cfg.Alt && row.OtherLabel == "" && row.Target.Kind != MaxTailor && len(row.Other) == 0 {
			t.Errorf("row %q has no openapi-mcp-generator value", row.Figure)
		}
		if row.OtherLabel != "" && len(row.Other) == 0 {
			t.Errorf("row %q has no %s value", row.Figure, row.OtherLabel)
		}
	}
	for _, want := range []string{
		"generation wall time, spec → formatted files",
		"generator peak RSS",
		"cold start over stdio",
		"go-sdk server with no tools",
		"resident memory",
		"tools/list size",
		"tools/list tokens",
		"tools/call over stdio, overhead over the direct request, median",
		"tools/call over stdio, overhead over the direct request, p99",
		"streamable HTTP",
		"--dynamic: tools/list tokens at start",
		"--dynamic: cold start over the go-sdk floor",
		"--dynamic: round trips",
		"tailor ÷ the floor (a go-sdk server whose handler makes the same request), median",
		"cold start, tailor serve",
		"wild corpus: median over the specs",
	} {
		found := false
		for f := range figures {
			if strings.Contains(f, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("no figure %q in the report", want)
		}
	}
	if len(rep.Lists) == 0 || rep.Lists[0].Tools != 3 {
		t.Errorf("tools/list breakdown: %+v, want the example's 3 tools", rep.Lists)
	}
	for _, want := range []string{"| figure | spec | tailor | other | ratio | target | met |", "| go-sdk |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown report lacks %q", want)
		}
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
