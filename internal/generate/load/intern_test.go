package load

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// internSpec is a spec large enough to be read in pieces whose operations
// write the same small schemas again and again, with, when refInside, a
// $ref that points inside a component's properties at one of them.
func internSpec(t *testing.T, refInside bool) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: t, version: '1'}\ncomponents:\n  schemas:\n")
	b.WriteString("    Code: {type: string, maxLength: 5000}\n")
	b.WriteString("    Thing:\n      type: object\n      properties:\n        code: {type: string, maxLength: 5000}\n        when: {type: string, default: now}\n")
	b.WriteString("paths:\n")
	for i := 0; b.Len() < minStreamed+pieceSize; i++ {
		fmt.Fprintf(&b, "  /things%d:\n    get:\n      parameters:\n", i)
		fmt.Fprintf(&b, "      - {name: a, in: query, schema: {type: string, maxLength: 5000}}\n")
		fmt.Fprintf(&b, "      - {name: b, in: query, schema: {type: string, maxLength: 5000, description: the b}}\n")
		fmt.Fprintf(&b, "      - {name: c, in: query, schema: {type: string, pattern: '^x'}}\n")
		fmt.Fprintf(&b, "      - {name: d, in: query, schema: {type: integer, minimum: 1}}\n")
		fmt.Fprintf(&b, "      - {name: e, in: query, schema: {type: integer, enum: [1, 2]}}\n")
		fmt.Fprintf(&b, "      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/Code'}\n")
	}
	if refInside {
		b.WriteString("  /inside:\n    get:\n      parameters:\n      - {name: i, in: query, schema: {$ref: '#/components/schemas/Thing/properties/code'}}\n      responses: {'200': {description: ok}}\n")
	}
	p := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func paramSchema(t *testing.T, doc *openapi3.T, path string, i int) *openapi3.Schema {
	t.Helper()
	item := doc.Paths.Value(path)
	if item == nil || item.Get == nil || len(item.Get.Parameters) <= i {
		t.Fatalf("no parameter %d of GET %s", i, path)
	}
	return item.Get.Parameters[i].Value.Schema.Value
}

// Equal plain leaves share one value; the ones the converter warns about
// at their place (a pattern), those with a keyword the key does not spell
// (minimum) and the schemas $refs point at do not.
func TestInternLeavesShares(t *testing.T) {
	for _, refInside := range []bool{false, true} {
		t.Run(fmt.Sprintf("refInside=%v", refInside), func(t *testing.T) {
			path := internSpec(t, refInside)
			// Read in pieces, the leaves are shared as they come; a $ref
			// found at the end to point at one of them sends the spec to
			// be read whole.
			data, _ := os.ReadFile(path)
			pieces := cutPieces(data)
			if pieces == nil {
				t.Fatal("the spec is not read in pieces")
			}
			abs, _ := filepath.Abs(path)
			_, err := decodeStream(openapi3.NewLoader(), &locator{data: data, pieces: pieces}, &url.URL{Path: filepath.ToSlash(abs)})
			if refInside != errors.Is(err, errNotStreamed) {
				t.Fatalf("read in pieces: %v", err)
			}
			spec, err := Load(path, Options{SkipValidation: true})
			if err != nil {
				t.Fatal(err)
			}
			doc := spec.Doc
			a0, a1 := paramSchema(t, doc, "/things0", 0), paramSchema(t, doc, "/things1", 0)
			if a0 != a1 {
				t.Error("the same {type: string, maxLength: 5000} of two operations is not shared")
			}
			if paramSchema(t, doc, "/things0", 1) == a0 {
				t.Error("a schema with a description shares the one without")
			}
			if paramSchema(t, doc, "/things1", 1) != paramSchema(t, doc, "/things2", 1) {
				t.Error("the same described schema of two operations is not shared")
			}
			if paramSchema(t, doc, "/things0", 4) != paramSchema(t, doc, "/things1", 4) {
				t.Error("the same enum of two operations is not shared")
			}
			for i, why := range map[int]string{2: "a pattern", 3: "a minimum"} {
				if paramSchema(t, doc, "/things0", i) == paramSchema(t, doc, "/things1", i) {
					t.Errorf("schemas with %s are shared", why)
				}
			}
			code := doc.Components.Schemas["Code"].Value
			if code == a0 {
				t.Error("a component's own schema is shared with inline ones")
			}
			thing := doc.Components.Schemas["Thing"].Value
			inside := thing.Properties["code"].Value
			if refInside {
				if inside == a0 {
					t.Error("the property a $ref points at is shared with inline schemas")
				}
				if got := paramSchema(t, doc, "/inside", 0); got != inside {
					t.Error("the $ref inside Thing does not lead to Thing's property")
				}
			} else if inside != a0 {
				t.Error("a component's inline property is not shared with the same inline schemas")
			}
		})
	}
}

// leafKey tells apart schemas that differ in any keyword it spells, and
// refuses those with keywords it does not.
func TestLeafKey(t *testing.T) {
	u := func(n uint64) *uint64 { return &n }
	yes := true
	base := func() *openapi3.Schema {
		return &openapi3.Schema{Type: &openapi3.Types{"string"}, MaxLength: u(10)}
	}
	variants := map[string]func(s *openapi3.Schema){
		"no type":              func(s *openapi3.Schema) { s.Type = nil },
		"empty type":           func(s *openapi3.Schema) { s.Type = &openapi3.Types{} },
		"two types":            func(s *openapi3.Schema) { s.Type = &openapi3.Types{"string", "null"} },
		"format":               func(s *openapi3.Schema) { s.Format = "date" },
		"description":          func(s *openapi3.Schema) { s.Description = "d" },
		"title":                func(s *openapi3.Schema) { s.Title = "d" },
		"enum":                 func(s *openapi3.Schema) { s.Enum = []any{"a"} },
		"empty enum":           func(s *openapi3.Schema) { s.Enum = []any{} },
		"float enum":           func(s *openapi3.Schema) { s.Enum = []any{1.0} },
		"int enum":             func(s *openapi3.Schema) { s.Enum = []any{1} },
		"extension":            func(s *openapi3.Schema) { s.Extensions = map[string]any{"x-a": true} },
		"nullable":             func(s *openapi3.Schema) { s.Nullable = true },
		"readOnly":             func(s *openapi3.Schema) { s.ReadOnly = true },
		"writeOnly":            func(s *openapi3.Schema) { s.WriteOnly = true },
		"deprecated":           func(s *openapi3.Schema) { s.Deprecated = true },
		"minLength":            func(s *openapi3.Schema) { s.MinLength = 1 },
		"minLength 101":        func(s *openapi3.Schema) { s.MinLength = 101 },
		"no maxLength":         func(s *openapi3.Schema) { s.MaxLength = nil },
		"maxLength 1":          func(s *openapi3.Schema) { s.MaxLength = u(1) },
		"additionalProperties": func(s *openapi3.Schema) { s.AdditionalProperties.Has = &yes },
	}
	key := func(s *openapi3.Schema) string {
		k, ok := leafKey(nil, s)
		if !ok {
			t.Fatalf("%+v is not shared", s)
		}
		return string(k)
	}
	seen := map[string]string{key(base()): "the base"}
	for name, change := range variants {
		s := base()
		change(s)
		k := key(s)
		if other, dup := seen[k]; dup {
			t.Errorf("%s and %s have the same key", name, other)
		}
		seen[k] = name
	}
	for name, change := range map[string]func(s *openapi3.Schema){
		"default":     func(s *openapi3.Schema) { s.Default = "x" },
		"pattern":     func(s *openapi3.Schema) { s.Pattern = "^x" },
		"minimum":     func(s *openapi3.Schema) { m := 1.0; s.Min = &m },
		"example":     func(s *openapi3.Schema) { s.Example = "x" },
		"origin":      func(s *openapi3.Schema) { s.Origin = &openapi3.Origin{} },
		"uniqueItems": func(s *openapi3.Schema) { s.UniqueItems = true },
	} {
		s := base()
		change(s)
		if _, ok := leafKey(nil, s); ok {
			t.Errorf("a schema with %s is shared", name)
		}
	}
}

func TestOnlyComponentSchemas(t *testing.T) {
	for refs, want := range map[string]bool{
		",#/components/schemas/A,#/components/schemas/B~1C":               true,
		",#/components/schemas/A/properties/b":                            false,
		",#/components/parameters/p":                                      false,
		",spec.yaml#/components/schemas/A":                                false,
		",#/components/schemas/":                                          false,
		",#/paths/~1a/get/responses/200/content/application~1json/schema": false,
	} {
		if got := onlyComponentSchemas(strings.Split(refs, ",")); got != want {
			t.Errorf("%q: %v, want %v", refs, got, want)
		}
	}
}
