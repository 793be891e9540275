package load

import (
	"fmt"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v4"
)

// Across the cut, the halves read what the whole text reads: a key
// repeated on both sides stays twice in its mapping (as go-yaml's tree of
// the whole keeps it, for kin-openapi to decide), and a key at the cut
// indented as no mapping above it is refused, as the whole text is.
func TestSplitAcrossTheCut(t *testing.T) {
	paths := func(from, to int) string {
		var b strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, "  /a%d:\n    get:\n      summary: s\n      responses: {'200': {description: ok}}\n", i)
		}
		return b.String()
	}
	n := minSplit / 60
	for name, text := range map[string]string{
		"repeated path":          "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n" + paths(0, n) + paths(0, n),
		"repeated top-level key": "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n" + paths(0, n) + "info: {title: u, version: '2'}\npaths2:\n" + paths(0, n),
	} {
		var whole yaml.Node
		if err := yaml.Unmarshal([]byte(text), &whole); err != nil || !prepareTree(&whole) {
			t.Fatalf("%s: the whole text: %v", name, err)
		}
		split := parseSplit([]byte(text))
		if split == nil {
			t.Errorf("%s: not cut; the case tests nothing", name)
			continue
		}
		if d := sameTree(split, &whole, ""); d != "" {
			t.Errorf("%s: the halves' tree differs from the whole's at %s", name, d)
		}
	}
	misplaced := "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n" + paths(0, n) + strings.ReplaceAll(paths(n, 2*n), "\n  /a", "\n   /a")
	var whole yaml.Node
	if yaml.Unmarshal([]byte(misplaced), &whole) == nil {
		t.Fatal("a key indented as no mapping above it: the whole text parses; the case tests nothing")
	}
	if parseSplit([]byte(misplaced)) != nil {
		t.Error("a key indented as no mapping above it: parsed in halves, though the whole text does not parse")
	}
}
