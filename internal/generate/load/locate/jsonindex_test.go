package locate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/go-openapi/jsonpointer"

	"github.com/tailormcp/tailor/internal/diag"
)

// Every pointer of a JSON spec is placed at its key (an element at its
// value), and a pointer past what the text has at the deepest part it
// has: checked on the text itself, for every member and element of
// corpus specs.
func TestJSONIndexPlacesEveryPointer(t *testing.T) {
	for _, path := range corpusSpecs(t, "kubernetes-v2.json", "wild/weaviate-2.0.json") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		l := &Locator{path: path, data: data}
		want := map[string][]string{}
		values := map[string]any{}
		keys := map[string]string{}
		var walk func(v any, ptr string)
		walk = func(v any, ptr string) {
			switch v := v.(type) {
			case map[string]any:
				for k, c := range v {
					p := ptr + "/" + jsonpointer.Escape(k)
					keys[p] = k
					walk(c, p)
				}
			case []any:
				for i, c := range v {
					p := ptr + "/" + strconv.Itoa(i)
					values[p] = c
					walk(c, p)
				}
			}
		}
		walk(doc, "")
		for p := range keys {
			want[p], want[p+"/~1no such member"] = l.tokens(p), l.tokens(p+"/~1no such member")
		}
		for p := range values {
			want[p] = l.tokens(p)
		}
		x := newJSONIndex(data)
		if x == nil {
			t.Fatalf("%s: not indexed", path)
		}
		found := l.findJSON(x, want)
		lines := bytes.SplitAfter(data, []byte("\n"))
		starts := make([]int, len(lines))
		for i := 1; i < len(lines); i++ {
			starts[i] = starts[i-1] + len(lines[i-1])
		}
		offset := func(p diag.Pos) int {
			return starts[p.Line-1] + len(string([]rune(string(lines[p.Line-1]))[:p.Col-1]))
		}
		for p, key := range keys {
			pos, ok := found[p]
			if !ok {
				t.Fatalf("%s: %s not placed", path, p)
			}
			var got string
			if err := json.NewDecoder(bytes.NewReader(data[offset(pos):])).Decode(&got); err != nil || got != key {
				t.Fatalf("%s: %s placed at %d:%d, where %q is written, not its key", path, p, pos.Line, pos.Col, got)
			}
			if found[p+"/~1no such member"] != pos {
				t.Fatalf("%s: %s/~1no such member placed at %v, not where %s is", path, p, found[p+"/~1no such member"], p)
			}
		}
		for p, value := range values {
			at := offset(found[p])
			if m, ok := value.(map[string]any); ok && len(m) > 0 {
				// An object element is placed at its first member's key.
				at = bytes.LastIndexByte(data[:at], '{')
			}
			var got any
			if err := json.NewDecoder(bytes.NewReader(data[at:])).Decode(&got); err != nil || !reflect.DeepEqual(got, value) {
				t.Fatalf("%s: %s placed at %v, where its element is not", path, p, found[p])
			}
		}
	}
}

// Of a path the text writes twice the last is placed, and the deepest
// place any of them reaches wins; escaped keys read as encoding/json reads
// them; an array's element is named only as strconv.Itoa writes its index,
// and placed, when it is an object with members, at its first key.
func TestJSONIndexPlacesAsWritten(t *testing.T) {
	data := []byte("{\"a\":{\"b\":1},\n\"a\":{\"c\":{\"d\":1}},\n\"e\":[{\"f\":1},\n {\"f\":2}],\n\"\\u0061\":{\"b\":{\"x\":1}}}")
	cases := map[string]string{
		"/a/b":     "5:11",
		"/a/c/d":   "2:11",
		"/a/b/x":   "5:16",
		"/a/z":     "5:1",
		"/e/1/f":   "4:3",
		"/e/1":     "4:3",
		"/e/01/f":  "3:1",
		"/nothing": "",
		"":         "",
	}
	// The same text with the outer object made large enough that its keys
	// are looked up in a map (bigObject): members added at its end move
	// nothing before them.
	padding := make([]string, bigObject)
	for i := range padding {
		padding[i] = `"p` + strconv.Itoa(i) + `":0`
	}
	large := append(data[:len(data)-1:len(data)-1], []byte(","+strings.Join(padding, ",")+"}")...)
	cases["/p63"] = "5:" + strconv.Itoa(bytes.LastIndex(large, []byte(`"p63"`))-bytes.LastIndexByte(large, '\n'))
	for _, text := range [][]byte{data, large} {
		l := &Locator{path: "x.json", data: text}
		want := map[string][]string{}
		for p := range cases {
			want[p] = l.tokens(p)
		}
		found := l.findJSON(newJSONIndex(text), want)
		for p, at := range cases {
			if p == "/p63" && len(text) == len(data) {
				at = ""
			}
			got := ""
			if pos, ok := found[p]; ok {
				got = strconv.Itoa(pos.Line) + ":" + strconv.Itoa(pos.Col)
			}
			if got != at {
				t.Errorf("%d bytes: %q placed at %q, want %q", len(text), p, got, at)
			}
		}
	}
	for _, bad := range []string{`{"a":1} {}`, `{"a":[1}`, `{"a":1`, `]`, ``, `{"a":"\x"}`} {
		if newJSONIndex([]byte(bad)) != nil {
			t.Errorf("%q indexed", bad)
		}
	}
	if strings.Count(string(data), "\n") != 4 {
		t.Fatal("the text's lines changed")
	}
}

// corpusSpecs are the named specs of ../shared/corpus that are there; the
// test is skipped when none is.
func corpusSpecs(t *testing.T, names ...string) []string {
	var out []string
	for _, n := range names {
		p := filepath.Join("..", "..", "..", "..", "..", "shared", "corpus", n)
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Skip("corpus not found beside the repository (../shared/corpus)")
	}
	return out
}
