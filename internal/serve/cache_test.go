package serve

import (
	"bytes"
	"encoding/gob"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/cache"
	"github.com/tailormcp/tailor/internal/generate/load"
	"github.com/tailormcp/tailor/internal/generate/lower"
	"github.com/tailormcp/tailor/mcpkit"
)

// multifile copies testdata/e2e/multifile (a spec whose $refs read files
// two levels deep, with warnings in them, and an overlay) into a
// temporary directory, makes it the working directory, and returns the
// options that serve it.
func multifile(t *testing.T) generator.Options {
	t.Helper()
	src := filepath.Join("..", "..", "testdata", "e2e", "multifile")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755)
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dst)
	return generator.Options{SpecPath: "openapi.yaml", OverlayPath: "overlay.yaml"}
}

// compile runs Compile and says whether it loaded the spec.
func compile(t *testing.T, opts generator.Options) (*Program, bool) {
	t.Helper()
	before := len(load.Loaded())
	p, err := Compile(opts)
	if err != nil {
		t.Fatal(err)
	}
	loaded := len(load.Loaded()) != before
	if loaded == p.Cached {
		t.Fatalf("Cached is %v, but the spec was loaded: %v", p.Cached, loaded)
	}
	return p, loaded
}

// sameProgram fails the test unless got serves what want does.
func sameProgram(t *testing.T, got, want *Program) {
	t.Helper()
	if !sameValue(reflect.ValueOf(got.Server), reflect.ValueOf(want.Server), false) {
		t.Error("the cached tool set differs from the compiled one")
	}
	if !slices.Equal(got.Warnings, want.Warnings) {
		t.Errorf("warnings differ:\n got %q\nwant %q", got.Warnings, want.Warnings)
	}
}

func edit(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s has no %q", file, old)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func tool(t *testing.T, p *Program, name string) *mcpkit.Tool {
	t.Helper()
	for _, lt := range p.Server.Tools {
		if lt.Def.Name == name {
			return lt.Def
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// TestCompileFromCache: the second start with the same inputs loads
// nothing and serves the same tools with the same warnings (those of the
// $ref'd files included); a change to any file, however deep the $ref
// that reads it, is served at the next start.
func TestCompileFromCache(t *testing.T) {
	t.Setenv("TAILOR_CACHE", t.TempDir())
	opts := multifile(t)
	cold, loaded := compile(t, opts)
	if !loaded {
		t.Fatal("the first start did not load the spec")
	}
	var inRef bool
	for _, w := range cold.Warnings {
		inRef = inRef || strings.HasPrefix(w, filepath.Join("paths", "pet.yaml")+":")
	}
	if !inRef {
		t.Fatalf("want a warning in paths/pet.yaml, got %q", cold.Warnings)
	}
	warm, loaded := compile(t, opts)
	if loaded {
		t.Fatal("the second start loaded the spec")
	}
	sameProgram(t, warm, cold)

	for _, tc := range []struct{ file, old, new, tool, want string }{
		{filepath.Join("schemas", "pet.yaml"), "    size:", "    age:\n      type: integer\n    size:", "find_pet", `"age":`},
		{filepath.Join("paths", "pet.yaml"), "type: string\n    responses", "type: string\n          pattern: ^p[0-9]+$\n    responses", "find_pet", "^p[0-9]+$"},
		{"openapi.yaml", "minimum: 1", "minimum: 2", "list_pets", `"minimum":2`},
		{"overlay.yaml", "by its id.", "by its id, as the customer gives it.", "find_pet", "as the customer gives it"},
	} {
		edit(t, tc.file, tc.old, tc.new)
		p, loaded := compile(t, opts)
		if !loaded {
			t.Errorf("after editing %s: served from the cache", tc.file)
			continue
		}
		def := tool(t, p, tc.tool)
		if all := def.Description + def.InputSchema + def.OutputSchema; !strings.Contains(all, tc.want) {
			t.Errorf("after editing %s: %s does not show %q", tc.file, tc.tool, tc.want)
		}
		again, loaded := compile(t, opts)
		if loaded {
			t.Errorf("after editing %s: the next start loaded again", tc.file)
		}
		sameProgram(t, again, p)
	}

	// Each edit replaced the entry before it.
	if files, _ := filepath.Glob(filepath.Join(os.Getenv("TAILOR_CACHE"), "serve", "*.entry")); len(files) != 1 {
		t.Errorf("entries after the edits: %v, want one", files)
	}

	// A $ref'd file that went away is the pipeline's warning; that start
	// is cached too, its absence part of the key: a later start serves it
	// until the file comes back (or fails to read for another reason).
	pet := filepath.Join("schemas", "pet.yaml")
	saved, _ := os.ReadFile(pet)
	os.Remove(pet)
	missing := func(wantLoaded bool) *Program {
		t.Helper()
		p, loaded := compile(t, opts)
		if loaded != wantLoaded || !strings.Contains(strings.Join(p.Warnings, "\n"), "cannot read schemas/pet.yaml") {
			t.Errorf("without schemas/pet.yaml: loaded %v (want %v), warnings %q", loaded, wantLoaded, p.Warnings)
		}
		return p
	}
	first := missing(true)
	sameProgram(t, missing(false), first)
	os.Mkdir(pet, 0o755) // still unreadable, for another reason
	missing(true)
	missing(false)
	os.Remove(pet)
	os.WriteFile(pet, saved, 0o644)
	back, loaded := compile(t, opts)
	if !loaded || strings.Contains(strings.Join(back.Warnings, "\n"), "cannot read schemas/pet.yaml") {
		t.Errorf("schemas/pet.yaml back: loaded %v, warnings %q", loaded, back.Warnings)
	}
}

// TestCacheKeyCoversEveryInput: each input of the pipeline changes the
// key: the binary, the working directory, the spec's and the overlay's
// bytes, the spec's path as given, and every option (each field of
// generator.Options set in turn, so a field added later is covered).
func TestCacheKeyCoversEveryInput(t *testing.T) {
	t.Chdir(t.TempDir())
	base := generator.Options{SpecPath: "openapi.yaml", OverlayPath: "overlay.yaml"}
	spec, overlay := []byte("openapi: 3.0.3"), []byte("tailor: 1")
	baseSlot, _, _ := keys("b1", base, spec, overlay)
	// slotted says whether the key's entry replaces base's: what the
	// inputs hold and the binary change the key alone.
	var slotted bool
	k := func(build string, o generator.Options, spec, overlay []byte) string {
		t.Helper()
		slot, key, ok := keys(build, o, spec, overlay)
		if !ok {
			t.Fatal("no key")
		}
		slotted = slot == baseSlot
		return key
	}
	want := k("b1", base, spec, overlay)
	if again := k("b1", base, spec, overlay); again != want {
		t.Fatal("the key is not stable")
	}
	seen := map[string]string{want: "base"}
	check := func(what, key string) {
		t.Helper()
		if other, dup := seen[key]; dup {
			t.Errorf("%s gives the key of %s", what, other)
		}
		seen[key] = what
	}
	replaces := func(what string, want bool) {
		t.Helper()
		if slotted != want {
			t.Errorf("%s: the entry replaces the base's: %v, want %v", what, slotted, want)
		}
	}
	check("another binary", k("b2", base, spec, overlay))
	replaces("another binary", true)
	check("another spec", k("b1", base, []byte("openapi: 3.0.4"), overlay))
	replaces("another spec", true)
	check("another overlay", k("b1", base, spec, []byte("tailor: 1 ")))
	replaces("another overlay", true)
	o := base
	o.SpecPath = "./openapi.yaml" // warnings name it as given
	check("the spec named otherwise", k("b1", o, spec, overlay))
	replaces("the spec named otherwise", false)
	v := reflect.ValueOf(&o).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.Name == "SpecData" || f.Name == "SpecFiles" { // the spec's bytes, keyed above; a version of its files is not cached
			continue
		}
		o = base
		switch fv := v.Field(i); fv.Kind() {
		case reflect.String:
			fv.SetString(fv.String() + "x")
		case reflect.Bool:
			fv.SetBool(!fv.Bool())
		default:
			t.Fatalf("generator.Options.%s is a %s: teach this test to change it", f.Name, f.Type)
		}
		check("option "+f.Name, k("b1", o, spec, overlay))
		replaces("option "+f.Name, false)
	}
	t.Chdir(t.TempDir())
	check("another working directory", k("b1", base, spec, overlay))
	replaces("another working directory", false)
}

// TestCompileRepairsBadEntries: an entry that is not a whole entry of this
// key, or whose payload is not a tool set, is a miss; the start compiles
// and rewrites it.
func TestCompileRepairsBadEntries(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TAILOR_CACHE", dir)
	opts := multifile(t)
	want, _ := compile(t, opts)
	files, _ := filepath.Glob(filepath.Join(dir, "serve", "*.entry"))
	if len(files) != 1 {
		t.Fatalf("entries %v, want one", files)
	}
	whole, _ := os.ReadFile(files[0])
	var otherType bytes.Buffer
	gob.NewEncoder(&otherType).Encode(struct{ Server string }{"x"})
	var noServer bytes.Buffer
	gob.NewEncoder(&noServer).Encode(entry{Warnings: []string{"w"}})
	c := openCache(opts)
	for _, tc := range []struct {
		name  string
		write func()
	}{
		{"empty", func() { os.WriteFile(files[0], nil, 0o644) }},
		{"truncated", func() { os.WriteFile(files[0], whole[:len(whole)/2], 0o644) }},
		{"garbage", func() { os.WriteFile(files[0], bytes.Repeat([]byte{0xff}, 4096), 0o644) }},
		{"a payload that is not gob", func() { c.entry.Write([]byte("not gob")) }},
		{"gob of another type", func() { c.entry.Write(otherType.Bytes()) }},
		{"an entry without a tool set", func() { c.entry.Write(noServer.Bytes()) }},
		{"half a gob payload", func() { c.entry.Write(whole[len(whole)/2:]) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.write()
			got, loaded := compile(t, opts)
			if !loaded {
				t.Fatal("a bad entry was a hit")
			}
			sameProgram(t, got, want)
			got, loaded = compile(t, opts)
			if loaded {
				t.Error("the entry was not rewritten")
			}
			sameProgram(t, got, want)
		})
	}
}

// TestCompileWithoutUsableCache: no cache, a cache path that is a file, a
// directory that cannot be written: every start compiles, none fails.
func TestCompileWithoutUsableCache(t *testing.T) {
	opts := multifile(t)
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	ro := t.TempDir()
	os.Chmod(ro, 0o555)
	t.Cleanup(func() { os.Chmod(ro, 0o755) })
	for _, dir := range []string{"off", file, filepath.Join(file, "below"), ro} {
		t.Setenv("TAILOR_CACHE", dir)
		want, _ := compile(t, opts)
		got, loaded := compile(t, opts)
		if !loaded && (dir != ro || os.Geteuid() != 0) { // root writes anywhere
			t.Errorf("TAILOR_CACHE=%s: the second start was a hit", dir)
		}
		sameProgram(t, got, want)
	}
}

// TestCompileConcurrent: starts that miss together all get the tool set,
// and leave an entry the next start uses.
func TestCompileConcurrent(t *testing.T) {
	t.Setenv("TAILOR_CACHE", t.TempDir())
	opts := multifile(t)
	want, _ := compile(t, opts)
	os.RemoveAll(os.Getenv("TAILOR_CACHE"))
	got := make([]*Program, 6)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			p, err := Compile(opts)
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = p
		})
	}
	wg.Wait()
	for _, p := range got {
		if p != nil {
			sameProgram(t, p, want)
		}
	}
	if p, loaded := compile(t, opts); loaded {
		t.Error("no entry after the concurrent starts")
	} else {
		sameProgram(t, p, want)
	}
}

// TestRemoteRefsAreNotCached: what a remote $ref returned is not a file
// that a later start can check, so such a spec is loaded at every start.
func TestRemoteRefsAreNotCached(t *testing.T) {
	t.Setenv("TAILOR_CACHE", t.TempDir())
	pet := "Pet:\n  type: object\n  properties:\n    name: {type: string}\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(pet)) }))
	defer srv.Close()
	t.Chdir(t.TempDir())
	spec := "openapi: 3.0.3\ninfo: {title: Remote, version: '1'}\npaths:\n  /pets:\n    get:\n      operationId: listPets\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: '" + srv.URL + "/pet.yaml#/Pet'}\n"
	os.WriteFile("openapi.yaml", []byte(spec), 0o644)
	opts := generator.Options{SpecPath: "openapi.yaml", AllowRemoteRefs: true}
	compile(t, opts)
	if _, loaded := compile(t, opts); !loaded {
		t.Error("a spec with a remote $ref was served from the cache")
	}
}

// An error rule that matches an empty list is served from the cache too,
// and still matches an empty list, not null.
func TestEmptyListMatcherIsCached(t *testing.T) {
	t.Setenv("TAILOR_CACHE", t.TempDir())
	t.Chdir(t.TempDir())
	spec := "openapi: 3.0.3\ninfo: {title: Lists, version: '1'}\npaths:\n  /items:\n    get:\n      operationId: listItems\n      responses:\n        '200': {description: ok}\n"
	overlay := "tailor: 1\ntools:\n  list_items:\n    operation: listItems\n    description: Lists the items. Use it to find an item; not to change one. It returns the items.\n    errors:\n      - when: {status: 404, body: {items: []}}\n        text: There are no items yet.\n"
	os.WriteFile("openapi.yaml", []byte(spec), 0o644)
	os.WriteFile("overlay.yaml", []byte(overlay), 0o644)
	opts := generator.Options{SpecPath: "openapi.yaml", OverlayPath: "overlay.yaml"}
	first, _ := compile(t, opts)
	second, loaded := compile(t, opts)
	if loaded {
		t.Fatal("a tool set whose error rule matches [] was loaded again, not served from the cache")
	}
	sameProgram(t, second, first)
	for _, tl := range second.Server.Tools {
		for _, r := range tl.Def.Errors {
			if got, ok := r.Body["items"].([]any); !ok || got == nil || len(got) != 0 {
				t.Errorf("the matcher reads back as %#v, want an empty list", r.Body["items"])
			}
		}
	}
}

// TestSameValue: what gob changes is told apart from what it keeps: an
// empty list becomes nil, which is the same tool set except inside an
// error rule's body matcher, where decode makes it an empty list again.
func TestSameValue(t *testing.T) {
	gobOnly := func(tl *mcpkit.Tool) *mcpkit.Tool {
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(tl); err != nil {
			t.Fatal(err)
		}
		var back mcpkit.Tool
		if err := gob.NewDecoder(&buf).Decode(&back); err != nil {
			t.Fatal(err)
		}
		return &back
	}
	roundTrip := func(tl *mcpkit.Tool) *mcpkit.Tool {
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(entry{Server: &lower.Server{Tools: []*lower.Tool{{Def: tl}}}}); err != nil {
			t.Fatal(err)
		}
		e, ok := decode(buf.Bytes())
		if !ok {
			t.Fatal("the entry does not decode")
		}
		return e.Server.Tools[0].Def
	}
	same := func(tl *mcpkit.Tool) bool {
		return sameValue(reflect.ValueOf(roundTrip(tl)), reflect.ValueOf(tl), false)
	}
	if !same(&mcpkit.Tool{Name: "a", Security: [][]string{{}, {"key"}}, Scopes: []string{}, Messages: map[string]string{}}) {
		t.Error("empty lists outside a matcher read back as another tool")
	}
	body := func(v any) *mcpkit.Tool {
		return &mcpkit.Tool{Name: "a", Errors: []mcpkit.ErrorRule{{Status: []string{"404"}, Body: map[string]any{"v": v}}}}
	}
	for _, v := range []any{nil, "x", int64(3), 3.5, true, map[string]any{"a": []any{"b", nil}}} {
		if !same(body(v)) {
			t.Errorf("matcher %#v reads back as another", v)
		}
	}
	for _, v := range []any{[]any{}, map[string]any{"a": []any{}}, []any{[]any{}, nil}} {
		if !same(body(v)) {
			t.Errorf("matcher %#v reads back as another", v)
		}
		if sameValue(reflect.ValueOf(gobOnly(body(v))), reflect.ValueOf(body(v)), false) {
			t.Errorf("matcher %#v: gob alone reads it back as nil, yet that counts as the same", v)
		}
	}
	if sameValue(reflect.ValueOf(body(int64(3))), reflect.ValueOf(body(3.0)), false) {
		t.Error("an integer and a float matcher count as the same")
	}
}

// TestEveryCaseIsCached: every tool set of testdata/cases that compiles
// is served from the cache at the next start, the same tools with the same
// warnings (or loaded again when its sources cannot be listed).
func TestEveryCaseIsCached(t *testing.T) {
	cases, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "cases", "*"))
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	var cached int
	for _, dir := range cases {
		dir, _ := filepath.Abs(dir)
		specs, _ := filepath.Glob(filepath.Join(dir, "openapi.*"))
		if len(specs) != 1 {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Setenv("TAILOR_CACHE", t.TempDir())
			t.Chdir(dir)
			opts := generator.Options{SpecPath: filepath.Base(specs[0])}
			if _, err := os.Stat("overlay.yaml"); err == nil {
				opts.OverlayPath = "overlay.yaml"
			}
			out, err := generator.Run(opts)
			if out != nil {
				out.Warnings() // validation done: nothing writes to the cache after the test
			}
			if err != nil {
				return // a case of an error
			}
			if _, listed := out.Spec.Sources(); !listed {
				t.Logf("not cached: its $refs read something other than files")
				return
			}
			cold, _ := compile(t, opts)
			warm, loaded := compile(t, opts)
			if loaded {
				t.Fatal("the second start loaded the spec")
			}
			sameProgram(t, warm, cold)
			cached++
		})
	}
	if cached < 40 {
		t.Errorf("only %d cases were served from the cache", cached)
	}
	// The entries are internal/cache's.
	if cache.Build() == "" {
		t.Error("the test binary has no build ID")
	}
}
