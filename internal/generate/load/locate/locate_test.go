package locate

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/generate/load/specfile"
)

// A YAML spec's pointers are placed at the first of a key written twice,
// in a small mapping and in one large enough that its keys are looked up
// in a map (bigObject).
func TestWalkYAMLPlacesInLargeMappings(t *testing.T) {
	for _, n := range []int{3, bigObject + 10} {
		var b strings.Builder
		b.WriteString("openapi: 3.0.3\npaths:\n")
		for i := range n {
			fmt.Fprintf(&b, "  /p%d: {get: {operationId: op%d}}\n", i, i)
		}
		b.WriteString("  /p1: {put: {operationId: again}}\n")
		dir := t.TempDir()
		path := filepath.Join(dir, "spec.yaml")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		reader, err := specfile.NewReader(path, dir, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		l := New(path, []byte(b.String()), false, reader, &url.URL{Path: filepath.ToSlash(path)})
		last := fmt.Sprintf("/paths/~1p%d/get/operationId", n-1)
		found := l.Find([]string{"/paths/~1p1/get/operationId", last, "/paths/~1p1/put", "/paths/~1none/get"})
		want := map[string]string{
			"/paths/~1p1/get/operationId": "4:15",
			last:                          fmt.Sprintf("%d:%d", n+2, 1+len(fmt.Sprintf("  /p%d: {get: {", n-1))),
			"/paths/~1p1/put":             "4:3", // only in the second /p1: the first is as deep as it goes
			"/paths/~1none/get":           "2:1",
		}
		for p, at := range want {
			got := ""
			if pos, ok := found[p]; ok {
				got = fmt.Sprintf("%d:%d", pos.Line, pos.Col)
			}
			if got != at {
				t.Errorf("%d paths: %s placed at %q, want %q", n, p, got, at)
			}
		}
	}
}
