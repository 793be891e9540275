package load

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/getkin/kin-openapi/openapi3"
	yaml "go.yaml.in/yaml/v4"
)

// streamTexts are the texts the stream tests read: every spec of the
// corpus large enough to be read in pieces, and large texts with lines
// near the cuts that only look like keys of paths or schemas.
func streamTexts(t *testing.T) map[string][]byte {
	texts := map[string][]byte{}
	for _, pattern := range []string{
		filepath.Join("..", "..", "..", "..", "shared", "corpus", "*.*"),
		filepath.Join("..", "..", "..", "..", "shared", "corpus", "wild", "*.*"),
	} {
		m, _ := filepath.Glob(pattern)
		for _, p := range m {
			if b, err := os.ReadFile(p); err == nil && len(b) >= minStreamed && (!testing.Short() || len(b) < 1<<20) {
				texts[filepath.Base(p)] = b
			}
		}
	}
	tricky := []string{
		"  /m%d:\n    get:\n      description: |\n        x\n  /not: a key\n        y\n      responses: {'200': {description: ok}}\n",
		"  /m%d:\n    get:\n      description: \"x\n  /not: a key\"\n      responses: {'200': {description: ok}}\n",
		"  /m%d:\n    parameters:\n    - in: query\n      name: q\n      schema: {type: string}\n    get: {responses: {'200': {description: ok}}}\n",
		"  /m%d: {get: {description: x,\n  /not: a key, responses: {'200': {description: ok}}}}\n",
		"  \"/quoted%d\":\n    get: {responses: {'200': {description: ok}}}\n  '/single': {}\n",
		"  # a comment\n  /m%d:\n\n    get: {responses: {'200': {description: ok}}}\n",
	}
	for i, line := range tricky {
		var b strings.Builder
		b.WriteString("openapi: 3.0.0\ninfo:\n  title: t\n  description: |\n    paths:\n  version: '1'\ncomponents:\n  schemas:\n")
		for j := 0; b.Len() < 3*pieceSize/2; j++ {
			fmt.Fprintf(&b, "    S%d:\n      type: object\n      description: \"a\n    S%d: no\"\n      properties:\n        p: {$ref: '#/components/schemas/S0'}\n", j, j)
		}
		b.WriteString("  securitySchemes:\n    k: {type: apiKey, in: header, name: k}\npaths:\n")
		for j := 0; b.Len() < 5*pieceSize; j++ {
			fmt.Fprintf(&b, line, j)
		}
		b.WriteString("x-end: true\n")
		texts[fmt.Sprintf("tricky-%d", i)] = []byte(b.String())
	}
	return texts
}

// A text read in pieces is read as the whole text: the pieces join to the
// whole text's tree, the document is kin-openapi's own (unexported fields
// included), and the index places every pointer where the whole tree's
// index does.
func TestStreamReadsAsTheWhole(t *testing.T) {
	streamed := 0
	for name, data := range streamTexts(t) {
		pieces := cutPieces(data)
		if pieces == nil {
			continue
		}
		streamed++
		t.Run(name, func(t *testing.T) {
			abs, _ := filepath.Abs(name)
			location := &url.URL{Path: filepath.ToSlash(abs)}
			var whole yaml.Node
			if err := yaml.Unmarshal(data, &whole); err != nil || !prepareTree(&whole) {
				// Cut where a line only looks like a key: the pieces
				// are not read.
				if _, err := decodeStream(openapi3.NewLoader(), &locator{data: data, pieces: pieces}, location); !errors.Is(err, errNotStreamed) {
					t.Fatalf("the whole text does not parse, but its pieces are read (%v)", err)
				}
				return
			}
			var joined *yaml.Node
			for i, p := range pieces {
				var doc yaml.Node
				if err := yaml.Unmarshal(p.text(data), &doc); err != nil || !prepareTree(&doc) {
					// Cut where a line only looks like a key: the pieces
					// are not read.
					if _, err := decodeStream(openapi3.NewLoader(), &locator{data: data, pieces: pieces}, location); !errors.Is(err, errNotStreamed) {
						t.Fatalf("piece %d does not parse, but the pieces are read (%v)", i, err)
					}
					return
				}
				if i == 0 {
					joined = doc.Content[0]
					continue
				}
				var ok bool
				if joined, ok = joinMappings(joined, doc.Content[0], p.start, p.from.indent); !ok {
					t.Fatalf("piece %d does not join", i)
				}
			}
			if d := sameTree(joined, whole.Content[0], ""); d != "" {
				t.Fatalf("the pieces' tree differs from the whole's at %s", d)
			}
			want, wantErr := openapi3.NewLoader().LoadFromDataWithPath(data, location)
			l := &locator{data: data, pieces: pieces}
			got, err := decodeStream(openapi3.NewLoader(), l, location)
			if wantErr != nil {
				if err == nil {
					t.Fatalf("read in pieces, though kin-openapi refuses it: %v", wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("not read in pieces: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Error("the document read in pieces differs from kin-openapi's")
			}
			if d := sameIndex(l.index, 0, newPosIndex(&whole), 0, ""); d != "" {
				t.Errorf("the index made from the pieces differs from the whole tree's at %s", d)
			}
		})
	}
	if streamed < 6 {
		t.Errorf("%d texts read in pieces, want at least the tricky ones", streamed)
	}
}

// sameIndex compares node i of a with node j of b and what is under them.
func sameIndex(a *posIndex, i int, b *posIndex, j int, at string) string {
	x, y := a.nodes[i], b.nodes[j]
	if a.names[x.key] != b.names[y.key] || x.line != y.line || x.col != y.col || x.kind() != y.kind() || x.n != y.n || a.refs[x.ref()] != b.refs[y.ref()] {
		return fmt.Sprintf("%s: %+v, want %+v", at, x, y)
	}
	for k := range x.n {
		if d := sameIndex(a, int(x.first+k), b, int(y.first+k), fmt.Sprintf("%s/%d", at, k)); d != "" {
			return d
		}
	}
	return ""
}

// What the pieces are not read with (a name or a merge key whose meaning
// depends on the rest of the text) makes the loader read the text whole,
// which gives kin-openapi's document.
func TestStreamLeavesToTheWholeRead(t *testing.T) {
	// Few keys in long lines: go-yaml looks for a key written twice in
	// time that grows with the square of the mapping's size.
	long := strings.Repeat("s", 1000)
	paths := func(from, to int) string {
		var b strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, "  /a%d:\n    get:\n      summary: %s\n      responses: {'200': {description: ok}}\n", i, long)
		}
		return b.String()
	}
	schemas := func(from, to int) string {
		var b strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, "    S%d:\n      type: object\n      description: %s\n      properties: {a: {type: string}, b: {type: integer}}\n", i, long)
		}
		return b.String()
	}
	n := 3 * pieceSize / 1000
	head := "openapi: 3.0.0\ninfo: {title: t, version: '1'}\n"
	for name, text := range map[string]string{
		"paths twice":      head + "paths:\n" + paths(0, n) + "x-a: 1\npaths:\n" + paths(n, 2*n),
		"components twice": head + "components:\n  schemas:\n" + schemas(0, n) + "x-a: 1\ncomponents:\n  schemas:\n" + schemas(n, 2*n) + "paths: {}\n",
		"a schema twice":   head + "components:\n  schemas:\n" + schemas(0, n) + schemas(0, 1) + schemas(n, 2*n) + "paths: {}\n",
		"a merge key":      head + "paths:\n" + paths(0, n) + "  <<: {}\n" + paths(n, 2*n),
		"a piece not YAML": head + "paths:\n" + paths(0, n) + "  /x: [\n" + paths(n, 2*n),
	} {
		t.Run(name, func(t *testing.T) {
			data := []byte(text)
			pieces := cutPieces(data)
			if len(pieces) < 3 {
				t.Fatalf("%d pieces; the case tests nothing", len(pieces))
			}
			abs, _ := filepath.Abs("spec.yaml")
			location := &url.URL{Path: filepath.ToSlash(abs)}
			if _, err := decodeStream(openapi3.NewLoader(), &locator{data: data, pieces: pieces}, location); !errors.Is(err, errNotStreamed) {
				t.Fatalf("read in pieces (%v)", err)
			}
			want, wantErr := openapi3.NewLoader().LoadFromDataWithPath(data, location)
			spec, err := LoadData("spec.yaml", data, Options{SkipValidation: true})
			if wantErr != nil {
				if err == nil {
					t.Errorf("loaded, though kin-openapi refuses it: %v", wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(spec.Doc, want) {
				t.Error("the document differs from kin-openapi's")
			}
		})
	}
}

// What kin-openapi refuses in a text read in pieces (a $ref to nothing)
// is refused as the whole tree's decode refuses it, for the repair pass,
// without reading the text again.
func TestStreamRefusesAsTheTree(t *testing.T) {
	var b strings.Builder
	b.WriteString("openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n")
	for i := 0; b.Len() < minStreamed+pieceSize; i++ {
		fmt.Fprintf(&b, "  /a%d:\n    get:\n      responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/S'}}}}}\n", i)
	}
	b.WriteString("components:\n  schemas:\n    T: {type: string}\n")
	data := []byte(b.String())
	location := &url.URL{Path: "/spec.yaml"}
	if _, err := openapi3.NewLoader().LoadFromDataWithPath(data, location); err == nil {
		t.Fatal("kin-openapi loads it; the case tests nothing")
	}
	pieces := cutPieces(data)
	if len(pieces) < 3 {
		t.Fatalf("%d pieces; the case tests nothing", len(pieces))
	}
	if _, err := decodeStream(openapi3.NewLoader(), &locator{data: data, pieces: pieces}, location); !errors.Is(err, errTreeRefused) {
		t.Errorf("got %v, want the whole tree's refusal", err)
	}
	tree := parseTree(data)
	if _, err := decodeTree(openapi3.NewLoader(), &locator{tree: tree}, location); err == nil {
		t.Error("the whole tree's decode does not refuse it")
	}
}

// The index stays in memory for the whole run: a node is 24 bytes.
func TestPosNodeSize(t *testing.T) {
	if n := unsafe.Sizeof(posNode{}); n != 24 {
		t.Errorf("posNode is %d bytes, want 24", n)
	}
}
