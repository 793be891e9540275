package load

import (
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
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
		if err != nil || !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") && !strings.HasSuffix(path, ".json") {
			continue
		}
		kind, _, err := sniff(path, data)
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
			got, err := decodeTree(openapi3.NewLoader(), tree, location)
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
