package load

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
)

// The conversion in halves makes the document kin-openapi's whole
// conversion makes: the same values and the same sharing (a component one
// object, which every $ref to it points at: the schema converter names
// $defs by object), for every Swagger 2.0 spec in one file of the corpus
// with two paths or more, each cut however small (its halves need not be
// worth it), so that every one takes the halves; and small documents where the halves must step aside (a $ref
// to no component, an error) or must relink every kind of $ref.
func TestSwagger2HalvesConvertAsWhole(t *testing.T) {
	const head = `"swagger":"2.0","info":{"title":"t","version":"1"}`
	get := func(responses string) string { return `{"get":{"responses":` + responses + `}}` }
	docs := map[string][]byte{
		"every kind of ref": []byte(`{` + head + `,
			"parameters":{"q":{"name":"q","in":"query","type":"string"},"b":{"name":"b","in":"body","schema":{"$ref":"#/definitions/A"}}},
			"responses":{"r":{"description":"r","schema":{"$ref":"#/definitions/A"},"headers":{"h":{"type":"string"}}}},
			"definitions":{"A":{"type":"object","properties":{"a":{"$ref":"#/definitions/B"}}},"B":{"$ref":"#/definitions/A"},"C":{"type":"object","discriminator":"k","properties":{"k":{"type":"string"}}}},
			"paths":{"/a":` + get(`{"200":{"$ref":"#/responses/r"}}`) + `,
			"/b":{"parameters":[{"$ref":"#/parameters/q"}],"post":{"parameters":[{"$ref":"#/parameters/b"}],"responses":{"200":{"description":"ok","headers":{"x":{"type":"integer"}},"schema":{"type":"array","items":{"allOf":[{"$ref":"#/definitions/B"},{"type":"object","additionalProperties":{"$ref":"#/definitions/A"},"properties":{"n":{"$ref":"#/definitions/C"}}}]}}}}}},
			"/c":{"put":{"consumes":["multipart/form-data"],"parameters":[{"name":"f","in":"formData","type":"file","required":true}],"responses":{"default":{"description":"d","schema":{"$ref":"#/definitions/C"}}}}}}}`),
		"ref into paths":  []byte(`{` + head + `,"paths":{"/a":` + get(`{"200":{"description":"a","schema":{"type":"string"}}}`) + `,"/b":` + get(`{"200":{"description":"b","schema":{"$ref":"#/paths/~1a/get/responses/200/schema"}}}`) + `}}`),
		"missing ref":     []byte(`{` + head + `,"paths":{"/a":` + get(`{"200":{"description":"a"}}`) + `,"/b":` + get(`{"200":{"description":"b","schema":{"$ref":"#/definitions/Nope"}}}`) + `}}`),
		"bad host":        []byte(`{` + head + `,"host":"a/b","paths":{"/a":` + get(`{}`) + `,"/b":` + get(`{}`) + `}}`),
		"one path":        []byte(`{` + head + `,"paths":{"/a":` + get(`{"200":{"description":"a"}}`) + `}}`),
		"null path items": []byte(`{` + head + `,"paths":{"/a":null,"/b":` + get(`{"200":{"description":"b"}}`) + `,"/c":null}}`),
	}
	// Whether each document converts in halves (nil: kin-openapi refuses
	// it, and the halves must step aside).
	halvesWanted := map[string]bool{"every kind of ref": true, "null path items": true, "one path": false, "ref into paths": false, "missing ref": false, "bad host": false}
	paths := corpusSpecs(t, "kubernetes-v2.json", "uber-v2.yaml", "petstore-minimal-v2.yaml")
	wild, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "shared", "corpus", "wild", "*-2.0.*"))
	for _, path := range append(paths, wild...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if hasExternalRefs(data) {
			continue // converted whole: each half would read the files again
		}
		docs[path] = data
	}
	location := &url.URL{Path: "/spec.json"}
	decode := func(name string) *openapi2.T {
		var doc openapi2.T
		if _, err := unmarshalSwagger2(docs[name], &doc, nil); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return &doc
	}
	for name := range docs {
		if _, set := halvesWanted[name]; !set {
			halvesWanted[name] = len(decode(name).Paths) > 1 // a corpus spec: each with a path to cut after
		}
		whole, wholeErr := convertHalf(decode(name), openapi3.NewLoader(), location)
		split, ok := convertInHalves(decode(name), [2]*openapi3.Loader{openapi3.NewLoader(), openapi3.NewLoader()}, location, 1)
		if ok != halvesWanted[name] {
			t.Errorf("%s: converted in halves %v, want %v (kin-openapi's error: %v)", name, ok, halvesWanted[name], wholeErr)
		}
		if !ok {
			continue
		}
		if wholeErr != nil {
			t.Errorf("%s: the halves converted what the whole refuses (%v)", name, wholeErr)
			continue
		}
		if err := sameDocument(whole, split); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(whole, split) {
			t.Errorf("%s: the halves' document differs from the whole's", name)
		}
	}
	// What loadSwagger2 does with a document the halves step aside from:
	// kin-openapi's own conversion, and its error.
	_, err := convertSwagger2(decode("missing ref"), openapi3.NewLoader(), openapi3.NewLoader, location)
	_, want := openapi2conv.ToV3WithLoader(decode("missing ref"), openapi3.NewLoader(), location)
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("missing ref: error %v, want kin-openapi's %v", err, want)
	}
}

// sameDocument compares two values of kin-openapi's types as a graph:
// every field equal, and each object of one the counterpart of exactly
// one object of the other (reflect.DeepEqual would take two copies of a
// component for the one object the whole conversion shares).
func sameDocument(a, b any) error {
	g := graphs{fwd: map[node]uintptr{}, back: map[node]uintptr{}, where: map[node]string{}}
	return g.same(reflect.ValueOf(a), reflect.ValueOf(b), "")
}

type node struct {
	t reflect.Type
	p uintptr
}

type graphs struct {
	fwd, back map[node]uintptr
	// where each object of a was first met, for the message
	where map[node]string
}

func (g graphs) same(a, b reflect.Value, at string) error {
	if a.Kind() != b.Kind() || a.Type() != b.Type() {
		return fmt.Errorf("%s: %s, not %s", at, b.Type(), a.Type())
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Errorf("%s: nil on one side only", at)
			}
			return nil
		}
		na, nb := node{a.Type(), a.Pointer()}, node{b.Type(), b.Pointer()}
		p, seenA := g.fwd[na]
		q, seenB := g.back[nb]
		if seenA || seenB {
			if p != nb.p || q != na.p {
				return fmt.Errorf("%s: %s shared differently (first met at %s)", at, a.Type(), g.where[na])
			}
			return nil
		}
		g.fwd[na], g.back[nb], g.where[na] = nb.p, na.p, at
		return g.same(a.Elem(), b.Elem(), at)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Errorf("%s: nil on one side only", at)
			}
			return nil
		}
		return g.same(a.Elem(), b.Elem(), at)
	case reflect.Struct:
		for i := range a.NumField() {
			if err := g.same(a.Field(i), b.Field(i), at+"."+a.Type().Field(i).Name); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice, reflect.Array:
		if a.Kind() == reflect.Slice && a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Errorf("%s: %d elements, not %d", at, b.Len(), a.Len())
		}
		for i := range a.Len() {
			if err := g.same(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Errorf("%s: %d members, not %d", at, b.Len(), a.Len())
		}
		for it := a.MapRange(); it.Next(); {
			k := it.Key()
			v := b.MapIndex(k)
			if !v.IsValid() {
				return fmt.Errorf("%s: no member %v", at, k)
			}
			if err := g.same(it.Value(), v, fmt.Sprintf("%s[%v]", at, k)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		if a.IsNil() != b.IsNil() {
			return fmt.Errorf("%s: nil on one side only", at)
		}
		return nil
	case reflect.String:
		if a.String() != b.String() {
			return fmt.Errorf("%s: %q, not %q", at, b.String(), a.String())
		}
	case reflect.Bool:
		if a.Bool() != b.Bool() {
			return fmt.Errorf("%s: %v, not %v", at, b.Bool(), a.Bool())
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if a.Int() != b.Int() {
			return fmt.Errorf("%s: %d, not %d", at, b.Int(), a.Int())
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if a.Uint() != b.Uint() {
			return fmt.Errorf("%s: %d, not %d", at, b.Uint(), a.Uint())
		}
	case reflect.Float32, reflect.Float64:
		if a.Float() != b.Float() {
			return fmt.Errorf("%s: %v, not %v", at, b.Float(), a.Float())
		}
	default:
		return fmt.Errorf("%s: cannot compare a %s", at, a.Kind())
	}
	return nil
}
