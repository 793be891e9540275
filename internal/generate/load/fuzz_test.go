package load_test

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/load"
	"github.com/tailormcp/tailor/internal/generate/model"
	"github.com/tailormcp/tailor/internal/generate/render"
)

// FuzzLoad feeds arbitrary bytes through the front of the pipeline (load,
// model, render) as a spec file; see pipeline for what must hold.
//
// The corpus starts from every golden and error-case spec. Run it with
//
//	go test ./internal/generate/load -run '^$' -fuzz FuzzLoad -fuzztime 60s -fuzzminimizetime 2s
//
// (new inputs are minimized for up to a minute each by default, which
// looks like a hang).
func FuzzLoad(f *testing.F) {
	root := filepath.Join("..", "..", "..", "testdata")
	seeds, _ := filepath.Glob(filepath.Join(root, "cases", "*", "openapi.*"))
	errorSpecs, _ := filepath.Glob(filepath.Join(root, "cases", "error-*", "*.*"))
	for _, p := range append(seeds, errorSpecs...) {
		if filepath.Ext(p) != ".yaml" && filepath.Ext(p) != ".json" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}

	// The spec sits beside copies of the files the seeds refer to, so that
	// relative $refs resolve and the fuzzer can reach the other files too.
	dir := f.TempDir()
	for _, p := range []string{"cases/external-ref/animals.yaml", "cases/error-syntax-error-in-ref/pet.yaml"} {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), data, 0o644); err != nil {
			f.Fatal(err)
		}
	}
	path := filepath.Join(dir, "openapi.yaml")

	f.Fuzz(func(t *testing.T, data []byte) {
		pipeline(t, path, data)
	})
}

// FuzzSpecText puts arbitrary strings where a spec has names and text (the
// title, a path, an operationId, parameter and property names, a pattern, a
// default) of an otherwise valid spec, written as JSON so that any string
// is well formed: byte-level mutation of YAML rarely reaches these.
func FuzzSpecText(f *testing.F) {
	f.Add("Pets", "/pets/{id}", "listPets", "id", "limit", "name", "^[a-z]+$", "20", "application/json")
	f.Add("A\nfunc init() {}\n//", "/a\n", "x\ny", "", "a b", "$ref", "(?!x)", `"s"`, "text/plain")
	f.Add("", "", "", "{", "}", "", "[", "{}", "*/*")
	path := filepath.Join(f.TempDir(), "openapi.json")

	f.Fuzz(func(t *testing.T, title, p, opID, pathParam, query, prop, pattern, def, media string) {
		var defVal any
		if json.Unmarshal([]byte(def), &defVal) != nil {
			defVal = def
		}
		spec := map[string]any{
			"openapi": "3.0.3",
			"info":    map[string]any{"title": title, "version": "1"},
			"paths": map[string]any{
				p: map[string]any{
					"post": map[string]any{
						"operationId": opID,
						"parameters": []any{
							map[string]any{"name": pathParam, "in": "path", "required": true, "schema": map[string]any{"type": "string"}},
							map[string]any{"name": query, "in": "query", "schema": map[string]any{"type": "integer", "default": defVal}},
						},
						"requestBody": map[string]any{"content": map[string]any{media: map[string]any{"schema": map[string]any{
							"type":       "object",
							"required":   []any{prop},
							"properties": map[string]any{prop: map[string]any{"type": "string", "pattern": pattern, "default": defVal}},
						}}}},
						"responses": map[string]any{"200": map[string]any{"description": title, "content": map[string]any{media: map[string]any{
							"schema": map[string]any{"type": "array", "items": map[string]any{"type": "string", "pattern": pattern}},
						}}}},
					},
				},
			},
		}
		data, err := json.Marshal(spec)
		if err != nil {
			t.Skip()
		}
		pipeline(t, path, data)
	})
}

// pipeline runs load, model and render on data as the spec at path and
// checks what must hold whatever the input: no panic (the fuzzer catches
// those); a spec that does not load gives positioned diagnostics
// (*diag.Errors, which the CLI prints as file:line:col, never a bare Go
// error); a spec that loads renders (a render error is a tailor bug) into
// files whose only functions are the ones tailor writes, so no spec text
// became code; and it all takes little time.
func pipeline(t *testing.T, path string, data []byte) {
	const slow = 3 * time.Second
	start := time.Now()
	defer func() {
		if d := time.Since(start); d > slow {
			t.Errorf("took %v on %d bytes", d, len(data))
		}
	}()
	spec, err := load.LoadData(path, data, load.Options{})
	if err != nil {
		var de *diag.Errors
		if !errors.As(err, &de) || len(de.List) == 0 {
			t.Fatalf("load error is %T, not diagnostics: %v", err, err)
		}
		for _, d := range de.List {
			if d.Pos.File == "" || d.Message == "" {
				t.Fatalf("diagnostic without file or message: %#v", d)
			}
		}
		return
	}
	api, _ := model.Raw(spec, model.Options{})
	files, err := render.Render(api, render.Options{Package: "fuzz", Main: true, ImportPath: "example.com/fuzz"})
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	for _, f := range files {
		file, err := parser.ParseFile(token.NewFileSet(), f.Path, f.Bytes(), 0)
		if err != nil {
			t.Fatalf("%s does not parse: %v", f.Path, err)
		}
		funcs := 0
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				funcs++
				if fd.Name.Name == "init" {
					t.Fatalf("%s has an init function: spec text became code", f.Path)
				}
			}
		}
		want := 1 // main.go
		switch f.Path {
		case "server.go":
			want = 2 // Register, New
		case "tools.go":
			want = len(api.Tools) // one handler each
		case "schemas.go":
			want = 0 // constants only
		}
		if funcs != want {
			t.Fatalf("%s declares %d functions, want %d: spec text became code?", f.Path, funcs, want)
		}
	}
}
