package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/generate/load"
)

// TestShortenKeepsTheTail: names that differ only at the end stay apart,
// without hashes, and a name is always the same for the same input.
func TestShortenKeepsTheTail(t *testing.T) {
	base := "post_crm_v3_objects_2026_09_beta_associations_from_object_type_to_object_type_labels_batch_"
	common := commonWords([]string{base + "archive", base + "create", "get_crm_v3_objects_2026_09_beta_usage"})
	a, b := shorten(base+"archive", MaxToolName, common), shorten(base+"create", MaxToolName, common)
	for _, n := range []string{a, b} {
		if len(n) > MaxToolName || !ValidToolName(n) || !strings.HasPrefix(n, "post_") {
			t.Errorf("%q: not a valid name starting with the verb", n)
		}
	}
	if !strings.HasSuffix(a, "_batch_archive") || !strings.HasSuffix(b, "_batch_create") {
		t.Errorf("the distinguishing tail was lost: %q, %q", a, b)
	}
	if strings.Contains(a, "2026") || strings.Contains(a, "crm") {
		t.Errorf("version segments and words every name has should go first: %q", a)
	}
	if again := shorten(base+"archive", MaxToolName, common); again != a {
		t.Errorf("not deterministic: %q, then %q", a, again)
	}
	// Only a name whose first and last words alone are too long is cut
	// with a hash.
	long := "get_" + strings.Repeat("x", 70)
	if n := shorten(long, MaxToolName, nil); len(n) != MaxToolName || n == shorten(long+"y", MaxToolName, nil) {
		t.Errorf("hash fallback: %q", n)
	}
	if n := shorten("list_pets", MaxToolName, common); n != "list_pets" {
		t.Errorf("a short name changed: %q", n)
	}
}

// ArgName skips the expression for a name it would leave alone: the same
// names come out as through the expression, for ASCII, other scripts and
// invalid UTF-8.
func TestArgNameAsExpression(t *testing.T) {
	viaExpression := func(name string) string {
		a := strings.Trim(unsafeArg.ReplaceAllString(name, "_"), "_")
		if a == "" {
			a = "arg"
		}
		if len(a) > MaxToolName {
			a = shorten(a, MaxToolName, nil)
		}
		return a
	}
	pieces := []string{"a", "Z", "0", "_", ".", "-", "[", "]", " ", "/", "é", "名", "\xff", "$", "~", "\x00"}
	rnd := rand.New(rand.NewPCG(3, 4))
	names := []string{"", "_", "id", "expand[]", "X-Request-Id", "__a__", "a.b-c_d", strings.Repeat("long_", 20)}
	for range 20000 {
		var b strings.Builder
		for range rnd.IntN(12) {
			b.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		names = append(names, b.String())
	}
	for _, name := range names {
		if got, want := ArgName(name), viaExpression(name); got != want {
			t.Fatalf("ArgName(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestLookAlikeNames: an operationId (or, without one, a path) spelt with
// letters of other scripts that look like Latin ones names its tool as it
// looks, with a warning that shows the original and the letters, where it
// used to lose the letter silently (a DELETE get_usеr became get_us_r). A
// word of another script is left alone.
func TestLookAlikeNames(t *testing.T) {
	spec := `{"openapi": "3.0.3", "info": {"title": "Users", "version": "1"}, "paths": {
  "/users/{id}": {"delete": {"operationId": "get_us\u0435r", "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}], "responses": {"204": {"description": "ok"}}}},
  "/\u043erders": {"get": {"responses": {"200": {"description": "ok"}}}},
  "/catalogue": {"get": {"operationId": "\u0441\u043f\u0438\u0441\u043e\u043a", "responses": {"200": {"description": "ok"}}}}}}`
	loaded, err := load.LoadData("openapi.json", []byte(spec), load.Options{SkipValidation: true})
	if err != nil {
		t.Fatal(err)
	}
	api, warnings := Raw(loaded, Options{Name: "users"})
	var names []string
	for _, tool := range api.Tools {
		names = append(names, tool.Name)
	}
	if want := []string{"get_catalogue", "get_user", "get_orders"}; !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	var said []string
	for _, w := range warnings {
		if strings.Contains(w.Message, "look like Latin") {
			said = append(said, w.Message)
		}
	}
	if len(said) != 2 || !strings.Contains(said[1], `GET /оrders`) || !strings.Contains(said[1], `Cyrillic U+043E "о" as "o"`) ||
		!strings.Contains(said[0], `operationId "get_usеr"`) || !strings.Contains(said[0], `Cyrillic U+0435 "е" as "e"`) || !strings.Contains(said[0], `named "get_user"`) {
		t.Errorf("warnings:\n%s", strings.Join(said, "\n"))
	}
}

// TestShortenedNamesWarnings: a few shortened names are warned about one
// by one, each with its new name; many (a kubernetes) with one message
// that the warnings merge into one line with a count.
func TestShortenedNamesWarnings(t *testing.T) {
	spec := func(n int) string {
		var paths []string
		for i := range n {
			paths = append(paths, fmt.Sprintf(`"/things/%d": {"get": {"operationId": "readTheVeryLongNamedThingOfTheKindNumber%dFromTheWarehouseCatalogue", "responses": {"200": {"description": "ok"}}}}`, i, i))
		}
		return `{"openapi": "3.0.3", "info": {"title": "Things", "version": "1"}, "paths": {` + strings.Join(paths, ",") + `}}`
	}
	for _, c := range []struct{ ops, distinct int }{{3, 3}, {maxNamedShortenings + 1, 1}} {
		loaded, err := load.LoadData("openapi.json", []byte(spec(c.ops)), load.Options{SkipValidation: true})
		if err != nil {
			t.Fatal(err)
		}
		api, warnings := Raw(loaded, Options{Name: "warehouse"})
		messages := map[string]int{}
		for _, w := range warnings {
			if strings.Contains(w.Message, "shortened") {
				messages[w.Message]++
			}
		}
		if len(messages) != c.distinct {
			t.Errorf("%d long names: %d distinct messages, want %d: %v", c.ops, len(messages), c.distinct, messages)
		}
		for _, tool := range api.Tools {
			if len(tool.Name) > NameBudget("warehouse") {
				t.Errorf("%q: over the budget", tool.Name)
			}
		}
	}
}
