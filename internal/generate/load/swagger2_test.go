package load

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/getkin/kin-openapi/openapi2"
)

// The level-at-a-time decode reads every Swagger 2.0 JSON document as
// kin-openapi reads it whole: the corpus's (each must take the split
// path, or the comparison tests nothing), and small ones where the split
// must step aside or read as encoding/json does (a member twice, a member
// spelled in another case or with an escape, null and non-object members,
// a $ref in another case, extensions at each level).
func TestSwagger2SplitDecodesAsWhole(t *testing.T) {
	const info = `"swagger":"2.0","info":{"title":"t","version":"1"}`
	op := func(s string) []byte {
		return []byte(`{` + info + `,"paths":{"/a":{"get":{"responses":{"200":{"description":"ok","schema":` + s + `}}}}}}`)
	}
	docs := map[string][]byte{
		"extensions": []byte(`{` + info + `,"x-top":{"a":[1,2]},
			"paths":{"/a":{"x-item":true,"get":{"x-op":1,"responses":{"x-r":{"n":1},"200":{"description":"ok","x-resp":"y","schema":{"$ref":"#/definitions/A"}}}}},"/b":{}},
			"definitions":{"A":{"type":"object","x-d":1,"properties":{"n":{"type":"integer","x-p":[{"a":1}]}}}}}`),
		"nulls":             []byte(`{` + info + `,"paths":null,"definitions":null}`),
		"no paths":          []byte(`{` + info + `}`),
		"member twice":      []byte(`{` + info + `,"paths":{"/a":{}},"paths":{"/b":{}}}`),
		"path twice":        []byte(`{` + info + `,"paths":{"/a":{"get":{"responses":{}}},"/a":{}}}`),
		"case":              []byte(`{` + info + `,"Paths":{"/a":{}},"definitions":{}}`),
		"trailing garbage":  []byte(`{` + info + `,"paths":{}} {}`),
		"missing colon":     []byte(`{` + info + `,"paths":{"/a":{"get" {"responses":{}}}}}`),
		"operation twice":   []byte(`{` + info + `,"paths":{"/a":{"get":{"responses":{"200":{"description":"a"}}},"get":{"responses":{"201":{"description":"b"}}}}}}`),
		"operation in case": []byte(`{` + info + `,"paths":{"/a":{"GET":{"responses":{"200":{"description":"a"}}}}}}`),
		"escaped name":      []byte(`{` + info + `,"paths":{"/a":{"\u0067et":{"responses":{"200":{"description":"a"}}}}}}`),
		"null operation":    []byte(`{` + info + `,"paths":{"/a":{"get":null,"put":{"parameters":null,"responses":null}}}}`),
		"null in lists":     []byte(`{` + info + `,"paths":{"/a":{"parameters":[null,{"name":"p","in":"query","type":"string"}],"get":{"responses":{"200":null,"201":{"description":"x"}}}}}}`),
		"empty lists":       []byte(`{` + info + `,"paths":{"/a":{"parameters":[],"get":{"parameters":[],"responses":{}}}},"definitions":{"A":{"allOf":[],"properties":{}}}}`),
		"wrong kinds":       []byte(`{` + info + `,"paths":{"/a":{"get":{"responses":{"200":{"description":"ok","schema":{"items":[{"type":"string"}]}}}}}}}`),
		"ref in case":       op(`{"$REF":"#/definitions/A","description":"d"}`),
		"ref with siblings": op(`{"$ref":"#/definitions/A","x-a":1,"description":"d"}`),
		"ref not a string":  op(`{"$ref":5,"type":"object"}`),
		"deep schema":       op(`{"type":"object","properties":{"a":{"type":"array","items":{"allOf":[{"$ref":"#/definitions/A"},{"type":"object","not":{"type":"string"},"properties":{"b":{"type":"string","x-b":true}}}]}},"p":{"type":"object","properties":null}},"additionalProperties":{"type":"object","properties":{"c":{"type":"string"}}}}`),
		"property twice":    op(`{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"integer"}}}`),
		"properties twice":  op(`{"type":"object","properties":{"a":{"type":"string"}},"properties":{"b":{"type":"integer"}}}`),
		"response twice":    []byte(`{` + info + `,"paths":{"/a":{"get":{"responses":{"200":{"description":"a"},"200":{"description":"b"}}}}}}`),
		"shared parts":      []byte(`{` + info + `,"parameters":{"p":{"name":"p","in":"body","schema":{"type":"object","properties":{"a":{"type":"string"}}}}},"responses":{"r":{"description":"r","schema":{"type":"array","items":{"type":"string"}},"headers":{"h":{"type":"string"}}}},"paths":{}}`),
		"bad type":          []byte(`{` + info + `,"paths":{"/a":{"get":{"parameters":[{"name":"p","in":"query","type":5}],"responses":{}}}}}`),
	}
	var corpus []string
	for _, path := range corpusSpecs(t, "kubernetes-v2.json", "wild/argo-workflows-2.0.json", "wild/weaviate-2.0.json", "wild/openfga-2.0.json", "wild/amadeus-flight-offers-2.0.json") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		docs[path] = data
		corpus = append(corpus, path)
	}
	for _, path := range corpus {
		var doc openapi2.T
		if x, err := unmarshalSwagger2Split(docs[path], &doc, nil); err != nil || x == nil {
			t.Errorf("%s: not decoded one level at a time (%v); the comparison tests nothing", path, err)
		}
	}
	for name, data := range docs {
		var whole, split openapi2.T
		wholeErr := openapi2.UnmarshalFromData(data, &whole)
		_, splitErr := unmarshalSwagger2(data, &split, nil)
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
		_, oursErr := unmarshalSwagger2(data, &ours, nil)
		if (kinErr == nil) != (oursErr == nil) || (kinErr != nil && kinErr.Error() != oursErr.Error()) {
			t.Errorf("%s: errors differ: kin-openapi %v, loader %v", name, kinErr, oursErr)
			continue
		}
		if !reflect.DeepEqual(kin, ours) {
			t.Errorf("%s: the loader's reading differs from kin-openapi's", name)
		}
	}
}

// A parameter copied from one decoded from the same text is what a decode
// would make, and shares nothing with the other: changing one's lists,
// maps and pointers leaves the other as decoded.
func TestRepeatedParametersShareNothing(t *testing.T) {
	const param = `{"name":"p","in":"query","type":"array","items":null,"enum":[["a"],{"b":1}],"default":{"c":[1]},"minimum":1,"maximum":2,"multipleOf":1,"maxLength":3,"maxItems":4,"x-e":{"d":[true]}}`
	data := []byte(`{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{"/a":{"parameters":[` + param + `],"get":{"parameters":[` + param + `],"responses":{}}}}}`)
	var kin, ours openapi2.T
	if err := openapi2.UnmarshalFromData(data, &kin); err != nil {
		t.Fatal(err)
	}
	if _, err := unmarshalSwagger2Split(data, &ours, nil); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(kin, ours) {
		t.Fatal("the decode differs from kin-openapi's")
	}
	a, b := ours.Paths["/a"].Parameters[0], ours.Paths["/a"].Get.Parameters[0]
	(*a.Type)[0] = "changed"
	a.Enum[0].([]any)[0] = "changed"
	a.Enum[1].(map[string]any)["b"] = "changed"
	a.Default.(map[string]any)["c"].([]any)[0] = "changed"
	*a.Minimum, *a.Maximum, *a.MultipleOf, *a.MaxLength, *a.MaxItems = 9, 9, 9, 9, 9
	a.Extensions["x-e"].(map[string]any)["d"].([]any)[0] = "changed"
	a.Extensions["x-new"] = true
	if !reflect.DeepEqual(b, kin.Paths["/a"].Get.Parameters[0]) {
		t.Error("a parameter shares what it holds with another decoded from the same text")
	}
}

// cloneParameter copies every field of kin-openapi's Parameter that can
// hold something shared; a field it does not know fails here.
func TestCloneParameterCopiesEveryField(t *testing.T) {
	known := map[string]bool{"Extensions": true, "Type": true, "Schema": true, "Items": true, "Enum": true,
		"Default": true, "MultipleOf": true, "Minimum": true, "Maximum": true, "MaxLength": true, "MaxItems": true}
	typ := reflect.TypeFor[openapi2.Parameter]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		switch f.Type.Kind() {
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64:
			continue
		}
		if !known[f.Name] {
			t.Errorf("kin-openapi's Parameter has a field %s (%s) that cloneParameter does not copy", f.Name, f.Type)
		}
	}
}
