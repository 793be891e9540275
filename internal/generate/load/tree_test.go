package load

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	yaml "go.yaml.in/yaml/v4"
)

// TestTreeDecodeIsKinOpenAPIs decodes every OpenAPI 3 spec in one file of
// ../shared/corpus and its wild corpus (skipped when absent), and the
// small specs under testdata, the way the loader does (parsed once,
// decoded from the tree), and compares the document, unexported fields
// included, with what kin-openapi's own LoadFromDataWithPath makes of the
// same text.
func TestTreeDecodeIsKinOpenAPIs(t *testing.T) {
	var specs []string
	for _, pattern := range []string{
		filepath.Join("..", "..", "..", "testdata", "*", "*.yaml"),
		filepath.Join("..", "..", "..", "testdata", "*", "*", "*.yaml"),
		filepath.Join("..", "..", "..", "testdata", "*", "*", "*.json"),
		filepath.Join("..", "..", "..", "..", "shared", "corpus", "*.*"),
		filepath.Join("..", "..", "..", "..", "shared", "corpus", "wild", "*.*"),
	} {
		m, _ := filepath.Glob(pattern)
		specs = append(specs, m...)
	}
	decoded := 0
	for _, path := range specs {
		data, err := os.ReadFile(path)
		if err != nil || !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") && !strings.HasSuffix(path, ".json") ||
			testing.Short() && len(data) > 1<<20 {
			continue
		}
		kind, _, _, err := sniff(path, data)
		if err != nil || kind == swagger2 || hasExternalRefs(data) {
			continue
		}
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			abs, _ := filepath.Abs(path)
			location := &url.URL{Path: filepath.ToSlash(abs)}
			want, wantErr := openapi3.NewLoader().LoadFromDataWithPath(data, location)
			tree := parseTree(data)
			if tree == nil {
				return // kin-openapi loads it itself
			}
			decoded++
			got, err := decodeTree(openapi3.NewLoader(), &locator{tree: tree}, location)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("error %v, kin-openapi's %v", err, wantErr)
			}
			if err == nil && !reflect.DeepEqual(got, want) {
				t.Errorf("the document decoded from the tree differs from kin-openapi's")
			}
		})
	}
	if decoded == 0 {
		t.Error("no spec was decoded from its tree")
	}
}

// findTopLevelVersion finds what the regexp it stands for finds, in every
// spec of the corpus and in texts made to trip it.
func TestFindTopLevelVersionIsTheRegexps(t *testing.T) {
	texts := []string{
		"", "openapi: 3.0.0", "x: 1\nopenapi: 3.1.0\n", "description: see openapi: 3\nopenapi: \"3.0.1\"",
		"'swagger': '2.0'\nopenapi: 3.0.0", "openapi: 3.0.0\nswagger: 2.0", " openapi: 3.0.0\nswagger: \"2.0\"",
		"\"openapi\"  :\t'3.0.3' # c", "openapix: 3\nopenapi: x\nopenapi: 3.0.0", "a\n'openapi':3", "\"openapi: 3",
		"\"swagger\": \"2.0\"\nopenapi: 3.0.0", "openapi: 3.0.0\n\"swagger\": \"2.0\"", "x: 1\n'swagger': '2.0'\n'openapi': 3", "openapi\nswagger: \"2.0\"\nopenapi: 3.0.0",
	}
	m, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "shared", "corpus", "*", "*.yaml"))
	m2, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "shared", "corpus", "*.yaml"))
	for _, p := range append(m, m2...) {
		b, err := os.ReadFile(p)
		if err == nil {
			texts = append(texts, string(b))
		}
	}
	for _, text := range texts {
		if got, want := findTopLevelVersion([]byte(text)), topLevelVersion.FindSubmatchIndex([]byte(text)); !reflect.DeepEqual(got, want) {
			t.Errorf("%.40q: found %v, the regexp %v", text, got, want)
		}
	}
}

// sameTree reports where two node trees differ in what a decode or a
// position reads (comments aside), or "".
func sameTree(a, b *yaml.Node, at string) string {
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Value != b.Value || a.Style != b.Style || a.Anchor != b.Anchor ||
		a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content) {
		return fmt.Sprintf("%s: %d:%d %q (%d children) vs %d:%d %q (%d children)", at, a.Line, a.Column, a.Value, len(a.Content), b.Line, b.Column, b.Value, len(b.Content))
	}
	for i := range a.Content {
		if d := sameTree(a.Content[i], b.Content[i], at+"/"+a.Content[i].Value); d != "" {
			return d
		}
	}
	return ""
}

// A text parsed in two halves on two cores gives the tree the whole text
// gives: every spec of the corpus that is cut, and texts cut where a line
// only looks like a key.
func TestSplitParseIsTheWholeParse(t *testing.T) {
	var texts []string
	for _, pattern := range []string{
		filepath.Join("..", "..", "..", "..", "shared", "corpus", "*.*"),
		filepath.Join("..", "..", "..", "..", "shared", "corpus", "wild", "*.*"),
	} {
		m, _ := filepath.Glob(pattern)
		for _, p := range m {
			if b, err := os.ReadFile(p); err == nil && len(b) >= minSplit && (!testing.Short() || len(b) < 1<<20) {
				texts = append(texts, string(b))
			}
		}
	}
	// Path items around a middle that is a block scalar's line, a quoted
	// scalar's second line, a list's item, a flow mapping's line, a key
	// under a key with a value: none is a key of paths.
	for _, middle := range []string{
		"  /m:\n    get:\n      description: |\n        x\n  /not: a key\n        y\n",
		"  /m:\n    get:\n      description: \"x\n  /not: a key\"\n",
		"  /m:\n    parameters:\n    - in: query\n      name: q\n",
		"  /m: {get: {description: x,\n  /not: a key}}\n",
		"  /m: &a\n    get: {}\n",
		"  \"/quoted\":\n    get: {}\n  '/single': {}\n",
		"  /m:\n    get:\n      description: \"a\u2028b\"\n",
		"  /m:\n    get:\n      description: \"a\rb\"\n",
	} {
		var b strings.Builder
		b.WriteString("openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n")
		for i := 0; b.Len() < minSplit/2; i++ {
			fmt.Fprintf(&b, "  /a%d:\n    get:\n      responses: {'200': {description: ok}}\n", i)
		}
		half := b.Len()
		for range 2000 / len(middle) {
			b.WriteString(middle)
		}
		for i := 0; b.Len() < 2*half+2000; i++ {
			fmt.Fprintf(&b, "  /b%d:\n    get:\n      responses: {'200': {description: ok}}\n", i)
		}
		b.WriteString("components:\n  schemas:\n    s: {}\n")
		texts = append(texts, b.String())
	}
	// JSON, pretty and on one line, with strings that hold what is
	// structure outside them, a key with an escape around the middle, and
	// lists.
	for _, indent := range []string{"", "  "} {
		var b strings.Builder
		b.WriteString(`{"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {`)
		for i := 0; b.Len() < minSplit*2; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			if indent != "" {
				b.WriteString("\n" + indent)
			}
			fmt.Fprintf(&b, `"/a%d\"{,}\\": {"get": {"description": "x\"},{[\\", "tags": ["a", "b"], "responses": {"200": {"description": "ok"}}}}`, i)
		}
		b.WriteString(`}, "components": {"schemas": {"s": {}}}}`)
		texts = append(texts, b.String())
	}
	cuts := 0
	if len(texts) == 0 {
		t.Fatal("no text to cut")
	}
	for _, text := range texts {
		data := []byte(text)
		split := parseSplit(data)
		var whole yaml.Node
		err := yaml.Unmarshal(data, &whole)
		if split == nil {
			continue
		}
		cuts++
		if err != nil || !prepareTree(&whole) {
			t.Errorf("%.60q: parsed in halves, but not whole: %v", text, err)
			continue
		}
		if d := sameTree(split, &whole, ""); d != "" {
			t.Errorf("%.60q: the halves' tree differs from the whole's at %s", text, d)
		}
	}
	if cuts < 3 {
		t.Errorf("%d texts parsed in halves, want at least the one quoted keys are cut in and the JSON ones", cuts)
	}
}

// The index a decoded tree is kept as places every pointer where the tree
// does: every node of each spec in one file of the corpus, and past every
// $ref into what it points at (skipped when ../shared is absent; the small
// specs under testdata always run).
func TestPosIndexPlacesAsTheTree(t *testing.T) {
	var specs []string
	for _, pattern := range []string{
		filepath.Join("..", "..", "..", "testdata", "*", "*.yaml"),
		filepath.Join("..", "..", "..", "testdata", "*", "*", "*.yaml"),
		filepath.Join("..", "..", "..", "..", "shared", "corpus", "*.yaml"),
		filepath.Join("..", "..", "..", "..", "shared", "corpus", "wild", "*.*"),
	} {
		m, _ := filepath.Glob(pattern)
		specs = append(specs, m...)
	}
	indexed := 0
	for _, path := range specs {
		data, err := os.ReadFile(path)
		if err != nil || hasExternalRefs(data) || testing.Short() && len(data) > 1<<20 {
			continue
		}
		tree := parseTree(data)
		if tree == nil {
			continue
		}
		indexed++
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			want := map[string][]string{}
			var walk func(n *yaml.Node, toks []string)
			walk = func(n *yaml.Node, toks []string) {
				want[strings.Join(toks, "/")] = toks
				switch n.Kind {
				case yaml.MappingNode:
					for i := 0; i+1 < len(n.Content); i += 2 {
						walk(n.Content[i+1], append(slices.Clone(toks), n.Content[i].Value))
					}
					if _, ref := refOf(n); ref != nil {
						past := append(slices.Clone(toks), "properties", "type", "0", "nowhere")
						for i := len(toks) + 1; i <= len(past); i++ {
							want[strings.Join(past[:i], "/")] = past[:i]
						}
					}
				case yaml.SequenceNode:
					for i, c := range n.Content {
						walk(c, append(slices.Clone(toks), strconv.Itoa(i)))
					}
				}
			}
			walk(tree.Content[0], nil)
			abs, _ := filepath.Abs(path)
			byTree := (&locator{path: path, data: data, tree: tree, loc: &url.URL{Path: filepath.ToSlash(abs)}}).walkYAML(want)
			byIndex := (&locator{path: path, index: newPosIndex(tree)}).walkYAML(want)
			if len(byTree) < len(want)/2 {
				t.Fatalf("the tree places %d of %d pointers", len(byTree), len(want))
			}
			for ptr := range want {
				if byTree[ptr] != byIndex[ptr] {
					t.Errorf("%s: the tree places it at %v, the index at %v", ptr, byTree[ptr], byIndex[ptr])
				}
			}
		})
	}
	if indexed == 0 {
		t.Error("no spec was indexed")
	}
}

// Once the index no longer needs it, decodeDoc lets the tree go as it
// decodes it: afterwards no member of the document's mapping but the
// paths, no path item and no component schema is left in it (stripe's tree is 26 MiB beside
// a document of 20 MiB). Nothing is let go before the index is made.
func TestDecodeLetsTheTreeGo(t *testing.T) {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n")
	for i := range 100 {
		fmt.Fprintf(&b, "  /p%d:\n    get:\n      responses:\n        '200': {description: ok}\n", i)
	}
	b.WriteString("components:\n  schemas:\n")
	for i := range 200 {
		fmt.Fprintf(&b, "    S%d: {type: string}\n", i)
	}
	tree := parseTree([]byte(b.String()))
	root := tree.Content[0]
	paths, schemas := root.Content[5], root.Content[7].Content[1]
	if root.Content[4].Value != "paths" || len(paths.Content) != 200 || len(schemas.Content) != 400 {
		t.Fatalf("unexpected tree: %s at 4", root.Content[4].Value)
	}
	doc := &openapi3.T{}
	var first sync.Once
	indexed := func() {
		first.Do(func() {
			if slices.Contains(paths.Content, nil) || slices.Contains(root.Content, nil) || slices.Contains(schemas.Content, nil) {
				t.Error("the tree was let go before the index was made")
			}
		})
	}
	if err := decodeDoc(doc, root, indexed); err != nil {
		t.Fatal(err)
	}
	if doc.Paths.Len() != 100 || doc.Info == nil || doc.Components == nil || len(doc.Components.Schemas) != 200 {
		t.Fatalf("decoded %d paths, info %v, components %v", doc.Paths.Len(), doc.Info, doc.Components)
	}
	for i, n := range root.Content {
		if n != nil && i != 4 && i != 5 {
			t.Errorf("member %d of the document's mapping is still in the tree", i/2)
		}
	}
	for i, n := range paths.Content {
		if n != nil {
			t.Errorf("path item %d is still in the tree", i/2)
		}
	}
	for i, n := range schemas.Content {
		if n != nil {
			t.Errorf("component schema %d is still in the tree", i/2)
		}
	}
}
