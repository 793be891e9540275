package load

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// corpusSpecs are the corpus's single-file specs of each kind this test
// compares on (skipped when ../shared/corpus is absent).
func corpusSpecs(t *testing.T, names ...string) []string {
	var out []string
	for _, n := range names {
		p := filepath.Join("..", "..", "..", "..", "shared", "corpus", n)
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Skip("corpus not found beside the repository (../shared/corpus)")
	}
	return out
}

// corpusPresent reports whether ../shared/corpus is beside the repository.
func corpusPresent() bool {
	_, err := os.Stat(filepath.Join("..", "..", "..", "..", "shared", "corpus"))
	return err == nil
}

// The places found without origins are the ones kin-openapi's origins
// held: for every schema of the spec, where it starts and where each of
// its keywords is, compared with a load of the same text with origins.
func TestSchemaPlacesMatchOrigins(t *testing.T) {
	specs := []string{"testdata/places-json/openapi.json"}
	if corpusPresent() {
		specs = append(specs, corpusSpecs(t, "discourse-31.yaml", "petstore-expanded.yaml", "wild/sentry-3.0.json", "wild/plaid-3.0.yaml")...)
	}
	for _, path := range specs {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			spec, err := LoadData(path, data, Options{SkipValidation: true})
			if err != nil {
				t.Fatal(err)
			}
			if spec.Origins() || spec.SchemaPlacer() == nil {
				t.Fatal("a spec in one file is loaded without origins")
			}
			abs, _ := filepath.Abs(path)
			withOrigins, err := loadDoc(openAPI3, data, &url.URL{Path: filepath.ToSlash(abs)}, spec.reader, nil, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			var want schemaPlaces
			want.pointer(withOrigins, nil)
			spec.places.pointer(spec.Doc, nil)
			byPtr := map[string]any{}
			holders := map[string]*openapi3.SchemaRef{}
			for node, ptr := range spec.places.ptrs {
				switch n := node.(type) {
				case *openapi3.Schema:
					byPtr[ptr] = node
				case *openapi3.SchemaRef:
					holders[ptr] = n
				}
			}
			place := spec.SchemaPlacer()
			checked := 0
			for node, ptr := range want.ptrs {
				s, ok := node.(*openapi3.Schema)
				if !ok || s.Origin == nil || s.Origin.Key == nil {
					continue
				}
				mine := byPtr[ptr]
				if mine == nil {
					t.Errorf("%s: not indexed without origins", ptr)
					continue
				}
				at := func(l *openapi3.Location) string {
					if l == nil {
						return "nowhere"
					}
					return fmt.Sprintf("%d:%d", l.Line, l.Column)
				}
				if got, want := at(place(mine, "")), at(s.Origin.Key); got != want {
					t.Errorf("%s: placed at %s, origin %s", ptr, got, want)
				}
				for _, kw := range []string{"type", "default", "pattern", "description"} {
					if loc, ok := s.Origin.Fields.Lookup(kw); ok {
						if got, want := at(place(mine, kw)), at(&loc); got != want {
							t.Errorf("%s/%s: placed at %s, origin %s", ptr, kw, got, want)
						}
						checked++
					}
				}
			}
			if checked == 0 {
				t.Fatal("no keyword compared")
			}
		})
	}
}

// One pass over the component schemas (cleanSchemas) and the view that
// follows from it find exactly the warnings validating each component on
// its own finds, on specs whose components pass and specs whose do not,
// 3.0 and 3.1 (which also validates defaults and examples against the
// schemas their references lead to).
func TestCleanSchemasChangeNoWarning(t *testing.T) {
	specs := []string{"testdata/validate-once/openapi.yaml"}
	specs = append(specs, corpusSpecs(t, "discourse-31.yaml", "petstore-expanded.yaml", "stripe.yaml",
		"wild/mistral-3.1.yaml")...)
	for _, path := range specs {
		t.Run(filepath.Base(path), func(t *testing.T) {
			spec, err := Load(path, Options{SkipValidation: true})
			if err != nil {
				t.Fatal(err)
			}
			messages := func() []string {
				ws := validate(path, spec.Doc)
				for _, w := range ws {
					if strings.Contains(w.Message, "validation crashed") {
						t.Fatal(w)
					}
				}
				var out []string
				for _, w := range ws {
					out = append(out, w.String())
				}
				return out
			}
			got := messages()
			probeSchemas = false
			defer func() { probeSchemas = true }()
			want := messages()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("with the one pass:\n%q\nwithout:\n%q", got, want)
			}
		})
	}
}
