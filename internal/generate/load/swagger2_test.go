package load

import (
	"os"
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
