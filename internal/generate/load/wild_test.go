package load_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/generate/load"
)

var placeholder = regexp.MustCompile(`\{([^}/]+)\}`)

// TestWildSpecsLoad loads every description in ../shared/corpus/wild as
// its vendor publishes it (skipped when that folder is absent): each
// loads, has the operations MANIFEST.tsv counts, and every operation has
// a parameter for each placeholder of its path (operations behind a $ref
// used to load without any).
func TestWildSpecsLoad(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "shared", "corpus", "wild")
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Skip("corpus not found beside the repository (../shared/corpus/wild)")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	n := 0
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 7 {
			continue
		}
		entry, want := cols[1], cols[6]
		n++
		t.Run(cols[0], func(t *testing.T) {
			if testing.Short() {
				st, err := os.Stat(filepath.Join(dir, entry))
				if err == nil && st.Size() > 1<<20 {
					t.Skip("large spec in -short mode")
				}
			}
			spec, err := load.Load(filepath.Join(dir, entry), load.Options{SkipValidation: true})
			if err != nil {
				t.Fatal(err)
			}
			ops := 0
			if spec.Doc.Paths != nil {
				for path, item := range spec.Doc.Paths.Map() {
					for method, op := range item.Operations() {
						ops++
						params := map[string]bool{}
						for _, p := range item.Parameters {
							if p != nil && p.Value != nil {
								params[p.Value.In+" "+p.Value.Name] = true
							}
						}
						for _, p := range op.Parameters {
							if p != nil && p.Value != nil {
								params[p.Value.In+" "+p.Value.Name] = true
							}
						}
						for _, m := range placeholder.FindAllStringSubmatch(path, -1) {
							if !params["path "+m[1]] && !declaredElsewhere(params, m[1]) {
								t.Errorf("%s %s: no parameter for {%s}", method, path, m[1])
							}
						}
					}
				}
			}
			if w, _ := strconv.Atoi(want); ops != w {
				t.Errorf("%d operations, MANIFEST.tsv says %d", ops, w)
			}
		})
	}
	if n != 30 {
		t.Errorf("MANIFEST.tsv lists %d specs, want 30", n)
	}
}

// declaredElsewhere reports whether the spec declares a placeholder's
// parameter in another location (intercom declares one as a query
// parameter): the spec's own mistake, not a parameter the loader lost.
func declaredElsewhere(params map[string]bool, name string) bool {
	for k := range params {
		if _, n, _ := strings.Cut(k, " "); n == name {
			return true
		}
	}
	return false
}
