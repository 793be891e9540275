package repair

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	yaml "go.yaml.in/yaml/v4"
)

// emitSamples are YAML documents with the constructs real specs use.
var emitSamples = []string{
	"openapi: 3.0.3\ninfo:\n  title: t\n  version: \"1\"\npaths: {}\n",
	"a: 1\nb:\n  - x\n  - y: 2\n    z: [1, 2, {q: r}]\nc: {d: e, f: [g]}\n",
	"desc: |\n  line one\n  line two\n\nnext: >-\n  folded\n  text\n",
	"base: &b {type: string, maxLength: 3}\nuse: *b\nmerged:\n  <<: *b\n  minLength: 1\n",
	"nums: [0x1F, 0o17, 1_000, 1.0, .inf, -.inf, .nan, 1e3, -0, 007]\nbools: [true, False, TRUE]\nnulls: [~, null, Null]\n",
	"\"quoted key\": 'single'\n? complex\n: value\nempty_map: {}\nempty_list: []\n",
	"unicode: \"caf\u00e9 \u2028 \u0085 \ufeff tab\t\"\nctrl: \"\\x01\\x7f\"\n",
	"{\"openapi\": \"3.1.0\",\n  \"paths\": {\n    \"/a\": {\"get\": {}}\n  }\n}\n",
	"list:\n- a\n- b\nmap:\n  k: v\n",
	"when: 2001-12-14\ntagged: !custom value\nbin: !!binary aGVsbG8=\n",
	"- top\n- level\n- list\n",
	"scalar at the top\n",
	"key: value # a comment\n# another\nother: [a, # inside\n  b]\n",
}

// TestEmitInPlaceKeepsValuesAndLines: what emitInPlace writes reads back as
// the same document, every scalar on the line it had.
func TestEmitInPlaceKeepsValuesAndLines(t *testing.T) {
	samples := append([]string(nil), emitSamples...)
	specs, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "testdata", "cases", "*", "openapi.*"))
	if len(specs) < 50 {
		t.Fatalf("%d specs in testdata/cases; the test reads them all", len(specs))
	}
	for _, p := range specs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, string(data))
	}
	for _, s := range samples {
		checkEmit(t, []byte(s))
	}
}

// checkEmit emits data's tree and compares. It returns without checking
// when data is not YAML, or not a document emitInPlace is given (the
// repair pass only emits files that parsed).
func checkEmit(t *testing.T, data []byte) {
	t.Helper()
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return
	}
	var want any
	if doc.Decode(&want) != nil {
		return // aliases the decoder refuses (cycles, too many)
	}
	out := emitInPlace(&doc)
	var back yaml.Node
	if err := yaml.Unmarshal(out, &back); err != nil {
		t.Fatalf("emitted text does not parse: %v\ninput:\n%s\noutput:\n%s", err, data, out)
	}
	var got any
	if err := back.Decode(&got); err != nil {
		t.Fatalf("emitted text does not decode: %v\n%s", err, out)
	}
	if !reflect.DeepEqual(normal(want), normal(got)) {
		t.Fatalf("emitted text reads differently:\ninput:\n%s\noutput:\n%s\nwant %#v\n got %#v", data, out, want, got)
	}
	var a, b []*yaml.Node
	scalars(&doc, &a)
	scalars(&back, &b)
	if len(a) != len(b) {
		t.Fatalf("%d scalars became %d\n%s", len(a), len(b), out)
	}
	for i := range a {
		if a[i].Line != b[i].Line {
			t.Fatalf("scalar %q moved from line %d to %d\ninput:\n%s\noutput:\n%s", a[i].Value, a[i].Line, b[i].Line, data, out)
		}
	}
}

// scalars lists the scalar nodes of n in document order, aliases not
// followed.
func scalars(n *yaml.Node, out *[]*yaml.Node) {
	if n == nil {
		return
	}
	if n.Kind == yaml.ScalarNode {
		*out = append(*out, n)
	}
	for _, c := range n.Content {
		scalars(c, out)
	}
}

// normal makes decoded values comparable: NaN is not equal to itself.
func normal(v any) any {
	switch x := v.(type) {
	case float64:
		if x != x {
			return "NaN"
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normal(e)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = normal(e)
		}
		return out
	case map[any]any:
		out := map[any]any{}
		for k, e := range x {
			out[normal(k)] = normal(e)
		}
		return out
	}
	return v
}

// FuzzEmitInPlace checks emitInPlace on arbitrary YAML; the samples are
// its seeds.
//
//	go test ./internal/generate/load/repair -run '^$' -fuzz FuzzEmitInPlace -fuzztime 60s
func FuzzEmitInPlace(f *testing.F) {
	for _, s := range emitSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		checkEmit(t, data)
	})
}
