package load

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/getkin/kin-openapi/openapi2"
)

// The split decode reads every Swagger 2.0 JSON document as kin-openapi
// reads it whole: the corpus's, and small ones where the split must step
// aside (a member twice, a member spelled in another case, null members,
// extensions at each level).
func TestSwagger2SplitDecodesAsWhole(t *testing.T) {
	docs := map[string][]byte{
		"extensions": []byte(`{"swagger":"2.0","info":{"title":"t","version":"1"},"x-top":{"a":[1,2]},
			"paths":{"/a":{"x-item":true,"get":{"responses":{"200":{"description":"ok","schema":{"$ref":"#/definitions/A"}}}}},"/b":{}},
			"definitions":{"A":{"type":"object","x-d":1,"properties":{"n":{"type":"integer"}}}}}`),
		"nulls":            []byte(`{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":null,"definitions":null}`),
		"no paths":         []byte(`{"swagger":"2.0","info":{"title":"t","version":"1"}}`),
		"member twice":     []byte(`{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{"/a":{}},"paths":{"/b":{}}}`),
		"path twice":       []byte(`{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"responses":{}}},"/a":{}}}`),
		"case":             []byte(`{"swagger":"2.0","info":{"title":"t","version":"1"},"Paths":{"/a":{}},"definitions":{}}`),
		"trailing garbage": []byte(`{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{}} {}`),
	}
	for _, path := range corpusSpecs(t, "kubernetes-v2.json", "wild/argo-workflows-2.0.json", "wild/weaviate-2.0.json", "wild/openfga-2.0.json") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		docs[path] = data
	}
	for name, data := range docs {
		var whole, split openapi2.T
		wholeErr := openapi2.UnmarshalFromData(data, &whole)
		splitErr := unmarshalSwagger2(data, &split)
		if (wholeErr == nil) != (splitErr == nil) || (wholeErr != nil && wholeErr.Error() != splitErr.Error()) {
			t.Errorf("%s: errors differ: whole %v, split %v", name, wholeErr, splitErr)
			continue
		}
		if !reflect.DeepEqual(whole, split) {
			t.Errorf("%s: the split decode differs from the whole", name)
		}
	}
}

// A Swagger 2.0 YAML document read through the loader's own parse reads
// as kin-openapi reads it (its YAML → plain values → JSON route): every
// 2.0 YAML spec of the corpus and of testdata, and documents written to
// need kin-openapi's own reading (tags written out, merge keys, aliases,
// null keys) or to differ in YAML only (dates, numeric keys).
func TestSwagger2YAMLDecodesAsKinOpenAPI(t *testing.T) {
	const head = "swagger: '2.0'\ninfo: {title: t, version: '1'}\n"
	docs := map[string][]byte{
		"dates and numeric keys": []byte(head + "paths:\n  /a:\n    get:\n      responses:\n        200: {description: ok, examples: {application/json: 2020-01-02}}\n        default: {description: '2021-03-04'}\n"),
		"tag written out":        []byte(head + "x-when: !!timestamp 2020-01-02\npaths: {}\n"),
		"local tag":              []byte(head + "x-doc: !md text\npaths: {}\n"),
		"merge key":              []byte(head + "x-base: &b {description: ok}\npaths:\n  /a:\n    get:\n      responses:\n        '200': {<<: *b}\n"),
		"inline merge key":       []byte(head + "paths:\n  /a:\n    get:\n      responses:\n        '200': {<<: {description: ok}}\n"),
		"null key":               []byte(head + "paths: {~: {}}\n"),
		"infinite number":        []byte(head + "x-n: .inf\npaths: {}\n"),
		"not a mapping":          []byte("- swagger: '2.0'\n"),
	}
	for _, path := range corpusSpecs(t, "petstore-minimal-v2.yaml", "uber-v2.yaml", "wild/moby-2.0.yaml", "wild/harbor-2.0.yaml",
		"wild/netlify-2.0.yaml", "wild/bigcommerce-catalog-2.0.yaml", "wild/firecracker-2.0.yaml", "wild/prometheus-alertmanager-2.0.yaml") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if swagger2YAMLAsJSON(data) == nil {
			t.Errorf("%s: not read through the loader's parse; the comparison tests nothing", path)
		}
		docs[path] = data
	}
	testdata, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "*", "*", "*.yaml"))
	for _, path := range testdata {
		if data, err := os.ReadFile(path); err == nil && bytes.Contains(data, []byte("swagger:")) {
			docs[path] = data
		}
	}
	for name, data := range docs {
		var kin, ours openapi2.T
		kinErr := openapi2.UnmarshalFromData(data, &kin)
		oursErr := unmarshalSwagger2(data, &ours)
		if (kinErr == nil) != (oursErr == nil) || (kinErr != nil && kinErr.Error() != oursErr.Error()) {
			t.Errorf("%s: errors differ: kin-openapi %v, loader %v", name, kinErr, oursErr)
			continue
		}
		if !reflect.DeepEqual(kin, ours) {
			t.Errorf("%s: the loader's reading differs from kin-openapi's", name)
		}
	}
}
