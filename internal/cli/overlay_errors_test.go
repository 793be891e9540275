package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOverlayErrors runs tailor generate on every bad overlay in
// testdata/overlay-errors/<case>/overlay.yaml, against the spec shared by
// all cases (testdata/overlay-errors/openapi.yaml), and compares stderr
// with the case's stderr.txt (-update rewrites them). Each case runs
// inside its folder, so messages name overlay.yaml as the user would see
// it.
//
// The command line is generate --spec ../openapi.yaml --overlay
// overlay.yaml --out $OUT/out, or args.txt (one argument per line, $OUT a
// fresh directory). The run must fail when stderr.txt holds an error, and
// succeed otherwise (a case of warnings only).
func TestOverlayErrors(t *testing.T) {
	root, err := filepath.Abs(filepath.Join(repoRoot, "testdata", "overlay-errors"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	// Cases with several independent mistakes: each must be reported, in
	// one run.
	mistakes := map[string]int{"three-mistakes": 3, "three-shape-mistakes": 3}
	// Every line is file:line:col: severity: message, about the overlay.
	// A diagnostic is about the overlay, or about the line of the spec that
	// the overlay's actions broke, naming the overlay.
	clear := regexp.MustCompile(`^(overlay\.yaml:[1-9][0-9]*:[1-9][0-9]*: (error|warning): \S|\.\./openapi\.yaml:[1-9][0-9]*:[1-9][0-9]*: error: after the overlay's actions \(overlay\.yaml\): \S)`)
	cases := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		cases++
		dir := filepath.Join(root, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			t.Chdir(dir)
			out := t.TempDir()
			code, stdout, stderr := run(t, overlayCaseArgs(t, out)...)

			if *update {
				write(t, "stderr.txt", stderr)
				return
			}
			want := read(t, "stderr.txt")
			if stderr != want {
				t.Errorf("stderr differs (run go test ./internal/cli -run OverlayErrors -update to accept)\nhave:\n%s\nwant:\n%s", stderr, want)
			}
			if stdout != "" {
				t.Errorf("stdout is not empty:\n%s", stdout)
			}
			wantCode := ExitOK
			if strings.Contains(want, ": error: ") {
				wantCode = ExitFailed
			}
			if code != wantCode {
				t.Errorf("exit code %d, want %d", code, wantCode)
			}
			if code != ExitOK {
				if left, _ := os.ReadDir(out); len(left) > 0 {
					t.Errorf("a failed run left files in --out: %v", left)
				}
			}
			errorLines := map[string]bool{}
			for _, line := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
				if !clear.MatchString(line) {
					t.Errorf("not a file:line:col diagnostic about the overlay: %s", line)
				}
				if strings.Contains(line, out) || strings.Contains(line, dir) {
					t.Errorf("message names a machine path: %s", line)
				}
				if strings.Contains(line, ": error: ") {
					pos, _, _ := strings.Cut(line, ": error: ")
					errorLines[pos] = true
				}
			}
			if n, ok := mistakes[e.Name()]; ok && len(errorLines) != n {
				t.Errorf("errors at %d places, want each of the %d mistakes reported in one run:\n%s", len(errorLines), n, stderr)
			}
		})
	}
	if cases < 20 {
		t.Errorf("only %d cases in %s", cases, root)
	}
}

func overlayCaseArgs(t *testing.T, out string) []string {
	t.Helper()
	data, err := os.ReadFile("args.txt")
	if os.IsNotExist(err) {
		return []string{"generate", "--spec", filepath.Join("..", "openapi.yaml"), "--overlay", "overlay.yaml", "--out", filepath.Join(out, "out")}
	}
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, a := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		args = append(args, strings.ReplaceAll(a, "$OUT", out))
	}
	return args
}
