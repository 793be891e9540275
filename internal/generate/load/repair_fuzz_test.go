package load

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/load/repair"
	"github.com/tailormcp/tailor/internal/generate/load/specfile"
)

// FuzzRepair runs the repair pass on arbitrary root specs beside files with
// the defects it repairs. Whatever the input: no panic, a refusal is
// positioned diagnostics, every file it rewrites parses, and it is quick.
// The golden defect cases are its seeds (they run as tests).
//
//	go test ./internal/generate/load -run '^$' -fuzz FuzzRepair -fuzztime 60s
func FuzzRepair(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "cases", "defect-*", "openapi.*"))
	if len(seeds) == 0 {
		f.Fatal("no seeds")
	}
	dir := f.TempDir()
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		// The files the seeds' $refs reach, under the same names.
		case_ := filepath.Dir(p)
		filepath.WalkDir(case_, func(q string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Base(filepath.Dir(q)) == "out" || q == p {
				return err
			}
			rel, _ := filepath.Rel(case_, q)
			if filepath.Dir(rel) == "out" {
				return nil
			}
			b, _ := os.ReadFile(q)
			os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755)
			return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
		})
	}
	path := filepath.Join(dir, "openapi.yaml")
	loc := &url.URL{Path: filepath.ToSlash(path)}

	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		kind, version, err := sniff(path, data)
		if err != nil {
			return
		}
		fetch, err := specfile.NewReader(path, "", false, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, strict := range []bool{false, true} {
			fixed, err := repair.Run(path, data, loc, kind == swagger2, version, fetch, strict)
			if err != nil {
				var de *diag.Errors
				if !errors.As(err, &de) || len(de.List) == 0 {
					t.Fatalf("refusal is %T, not diagnostics: %v", err, err)
				}
				for _, d := range de.List {
					if d.Pos.File == "" || d.Message == "" {
						t.Fatalf("diagnostic without a file or message: %#v", d)
					}
				}
				continue
			}
			if fixed == nil {
				continue
			}
			for _, set := range []map[string][]byte{fixed.Files, fixed.Shared} {
				for key, b := range set {
					var n yaml.Node
					if err := yaml.Unmarshal(b, &n); err != nil {
						t.Fatalf("%s rewritten does not parse: %v\n%s", key, err, b)
					}
				}
			}
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("took %v on %d bytes", d, len(data))
		}
	})
}
