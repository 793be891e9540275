package load

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tailormcp/tailor/internal/diag"
)

// cacheSpec copies testdata/cache (a spec whose warnings are in the root
// and in a $ref'd file) into a temporary directory and returns the root's
// path there.
func cacheSpec(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"openapi.yaml", "pets.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "cache", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "openapi.yaml")
}

// validated loads path and returns its validation warnings and whether
// validation ran.
func validated(t *testing.T, path string, background bool) ([]diag.Diagnostic, bool) {
	t.Helper()
	before := validateCalls.Load()
	spec, err := Load(path, Options{ValidateInBackground: background})
	if err != nil {
		t.Fatal(err)
	}
	ws := append(spec.Warnings, spec.ValidationWarnings()...)
	return ws, validateCalls.Load() != before
}

// entries lists the cache entries under dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "validation", "*.entry"))
	if err != nil {
		t.Fatal(err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, "validation", ".tmp-*")); len(tmp) > 0 {
		t.Errorf("temporary files left behind: %v", tmp)
	}
	return files
}

func TestValidationCacheHitRepeatsTheWarnings(t *testing.T) {
	for _, background := range []bool{false, true} {
		for _, naming := range []string{"absolute", "relative"} {
			t.Run(naming+map[bool]string{false: "", true: "/background"}[background], func(t *testing.T) {
				t.Setenv("TAILOR_CACHE", t.TempDir())
				path := cacheSpec(t)
				if naming == "relative" {
					t.Chdir(filepath.Dir(filepath.Dir(path)))
					path = filepath.Join(filepath.Base(filepath.Dir(path)), "openapi.yaml")
				}
				miss, ran := validated(t, path, background)
				if !ran {
					t.Fatal("first load did not validate")
				}
				// Both files, with lines: what must survive the cache.
				var files []string
				for _, w := range miss {
					if w.Pos.Line == 0 {
						t.Errorf("warning without a line: %s", w)
					}
					files = append(files, filepath.Base(w.Pos.File))
				}
				if !slices.Contains(files, "openapi.yaml") || !slices.Contains(files, "pets.yaml") {
					t.Fatalf("want warnings in openapi.yaml and pets.yaml, got %v", miss)
				}
				hit, ran := validated(t, path, background)
				if ran {
					t.Error("second load validated again")
				}
				if !slices.Equal(hit, miss) {
					t.Errorf("warnings differ:\nmiss %v\nhit  %v", miss, hit)
				}
			})
		}
	}
}

func TestValidationCacheKeysEveryFileRead(t *testing.T) {
	for _, tc := range []struct{ name, file, old, new string }{
		{"root spec", "openapi.yaml", "title: Validation cache", "title: Validation cachE"},
		{"$ref'd file", "pets.yaml", "description: ok", "description: oK"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("TAILOR_CACHE", t.TempDir())
			path := cacheSpec(t)
			before, _ := validated(t, path, true)
			file := filepath.Join(filepath.Dir(path), tc.file)
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), tc.old) {
				t.Fatalf("%s has no %q", tc.file, tc.old)
			}
			if err := os.WriteFile(file, []byte(strings.Replace(string(data), tc.old, tc.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			after, ran := validated(t, path, true)
			if !ran {
				t.Error("a changed file was a cache hit")
			}
			if !slices.Equal(after, before) {
				t.Errorf("warnings changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

func TestValidationCacheRepairsBadEntries(t *testing.T) {
	for _, tc := range []struct{ name, content string }{
		{"empty", ""},
		{"not JSON", "\x00\xff garbage"},
		{"truncated", `{"Key":"`},
		{"another key", `{"Key":"0000","Warnings":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("TAILOR_CACHE", dir)
			path := cacheSpec(t)
			want, _ := validated(t, path, false)
			files := entries(t, dir)
			if len(files) != 1 {
				t.Fatalf("cache entries: %v, want one", files)
			}
			if err := os.WriteFile(files[0], []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			got, ran := validated(t, path, true)
			if !ran || !slices.Equal(got, want) {
				t.Errorf("bad entry: validated %v, warnings %v, want %v", ran, got, want)
			}
			got, ran = validated(t, path, true)
			if ran || !slices.Equal(got, want) {
				t.Errorf("after repair: validated %v, warnings %v, want %v", ran, got, want)
			}
		})
	}
}

func TestValidationCacheOff(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	t.Setenv("TAILOR_CACHE", "off")
	path := cacheSpec(t)
	for i := range 2 {
		if _, ran := validated(t, path, true); !ran {
			t.Errorf("run %d did not validate", i+1)
		}
	}
	filepath.WalkDir(home, func(p string, _ os.DirEntry, _ error) error {
		if p != home {
			t.Errorf("TAILOR_CACHE=off wrote %s", p)
		}
		return nil
	})
}

// TestValidationCacheConcurrent: runs that miss together all get the
// warnings and leave one sound entry.
func TestValidationCacheConcurrent(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TAILOR_CACHE", dir)
	path := cacheSpec(t)
	results := make([][]diag.Diagnostic, 8)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			spec, err := Load(path, Options{ValidateInBackground: true})
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = spec.ValidationWarnings()
		})
	}
	wg.Wait()
	for _, r := range results[1:] {
		if !slices.Equal(r, results[0]) {
			t.Errorf("warnings differ: %v and %v", r, results[0])
		}
	}
	if files := entries(t, dir); len(files) != 1 {
		t.Errorf("cache entries: %v, want one", files)
	}
	if got, ran := validated(t, path, true); ran || !slices.Equal(got, results[0]) {
		t.Errorf("after concurrent runs: validated %v, warnings %v", ran, got)
	}
}

// TestKinVersionFallback: test binaries carry no module versions, so the
// key uses kinVersion; it must follow go.mod.
func TestKinVersionFallback(t *testing.T) {
	gomod, err := os.ReadFile(filepath.Join("..", "..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*github\.com/getkin/kin-openapi (\S+)`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod does not require kin-openapi")
	}
	if string(m[1]) != kinVersion {
		t.Errorf("kinVersion is %s, go.mod requires %s: update it (and validationVersion if messages changed)", kinVersion, m[1])
	}
}
