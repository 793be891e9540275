package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The back-office example's scenario file passes against the example
// backend, served from spec and overlay (make test runs it here).
func TestBackofficeScenarios(t *testing.T) {
	t.Chdir(filepath.Join(repoRoot, "examples", "backoffice"))
	code, stdout, stderr := run(t, "test", "scenarios.yaml", "--spec", "openapi.yaml", "--overlay", "overlay.yaml", "--backend", shopBackend(t))
	if code != ExitOK || !strings.Contains(stdout, "scenarios passed    4\n") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}

	// Raw beside curated, on fresh data: the raw tools refund what the
	// model computed.
	code, stdout, stderr = run(t, "test", "scenarios.yaml", "--spec", "openapi.yaml", "--overlay", "overlay.yaml", "--compare",
		"--backend", shopBackend(t), "--backend", shopBackend(t))
	if code != ExitFailed {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitFailed, stdout, stderr)
	}
	raw, curated, _ := strings.Cut(stdout, "\ncurated: ")
	for _, want := range []string{"FAIL  refund the unshipped case (3 calls)", "call 3 (create_refund): request 1's body $.amount is 344, want 230", "ok    a delivered item goes back with a return (2 calls)"} {
		if !strings.Contains(raw, want) {
			t.Errorf("raw lacks %q:\n%s", want, raw)
		}
	}
	if strings.Contains(curated, "FAIL") {
		t.Errorf("curated failed:\n%s", curated)
	}
}

// TestBackofficeReadmeImprove keeps the example README's `tailor report`
// and `tailor test` outputs the real ones. Result tokens vary by a few
// from run to run (quote ids are random): that line's figures are not
// compared.
func TestBackofficeReadmeImprove(t *testing.T) {
	t.Chdir(filepath.Join(repoRoot, "examples", "backoffice"))
	readme := read(t, "README.md")
	code, stdout, stderr := run(t, "report", "audit-sample.log", "--spec", "openapi.yaml", "--overlay", "overlay.yaml", "--format", "markdown")
	if code != ExitOK {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	// The heading is one level lower in the README.
	_, body, _ := strings.Cut(stdout, "\n")
	if !strings.Contains(readme, strings.TrimSpace(body)) {
		t.Errorf("examples/backoffice/README.md does not show the current `tailor report` output; it is now:\n%s", stdout)
	}

	code, stdout, stderr = run(t, "test", "scenarios.yaml", "--spec", "openapi.yaml", "--overlay", "overlay.yaml", "--compare",
		"--backend", shopBackend(t), "--backend", shopBackend(t))
	if code != ExitFailed {
		t.Fatalf("test: exit %d\n%s\n%s", code, stdout, stderr)
	}
	pattern := regexp.QuoteMeta(strings.TrimSpace(stdout))
	tokens := regexp.MustCompile(`result tokens\\\*( +)[0-9,]+( +)[0-9,]+`)
	pattern = tokens.ReplaceAllString(pattern, `result tokens\*${1}[0-9,]+${2}[0-9,]+`)
	if !regexp.MustCompile(pattern).MatchString(readme) {
		t.Errorf("examples/backoffice/README.md does not show the current `tailor test --compare` output; it is now:\n%s", stdout)
	}
}
