// Package generator runs tailor's pipeline, whose stages are its
// subpackages, in order:
//
//	load    spec file → kin-openapi document (refs resolved, 2.0 converted)
//	model   document → raw ir.API, one tool per operation
//	curate  ir.API → curated ir.API (the overlay; identity without one)
//	render  ir.API → formatted Go files
//
// Generate runs them all; Write puts the files on disk, leaving files whose
// content is unchanged untouched.
package generator

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/curate"
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/load"
	"github.com/tailormcp/tailor/internal/generate/model"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/generate/render"
	"gopkg.in/yaml.v3"
)

// Options is everything one generation needs.
type Options struct {
	SpecPath string
	// OutDir is where files go; used to work out the import path for --main.
	OutDir          string
	Package         string
	Main            bool
	ImportPath      string
	Name            string
	EnvPrefix       string
	AllowRemoteRefs bool
	// RefRoot is the folder local $refs may read below ("" is the spec's).
	RefRoot string
	// SkipValidation skips strict spec validation (warnings only).
	SkipValidation bool
	ToolVersion    string
	// OverlayPath is the overlay that curates the tool set ("" for the raw
	// tool set).
	OverlayPath string
	// Strict turns overlay actions that match nothing, and spec defects the
	// loader would repair or leave out, into errors.
	Strict bool
}

// Result is what a generation produced.
type Result struct {
	API      *ir.API
	Files    []render.File
	Warnings []diag.Diagnostic
}

// Generate runs the pipeline. Warnings never stop it; errors are returned
// as *diag.Errors listing every problem found.
func Generate(opts Options) (*Result, error) {
	res, pending, err := build(opts)
	if err != nil {
		return nil, err
	}
	importPath := opts.ImportPath
	if opts.Main && importPath == "" && opts.Package != "main" && opts.OutDir != "" {
		importPath, _ = ImportPath(opts.OutDir)
	}
	files, err := render.Render(res.API, render.Options{Package: opts.Package, Main: opts.Main, ImportPath: importPath, ToolVersion: opts.ToolVersion})
	if err != nil {
		return nil, err
	}
	res.Files = files
	res.finish(pending)
	return res, nil
}

// Build runs every stage but rendering: the curated IR and the warnings.
// tailor serve runs it directly; Generate renders its result.
func Build(opts Options) (*Result, error) {
	res, pending, err := build(opts)
	if err != nil {
		return nil, err
	}
	res.finish(pending)
	return res, nil
}

// finish adds the warnings of the spec's background validation, which ran
// while the other stages did, and merges repeated warnings.
func (r *Result) finish(pending func() []diag.Diagnostic) {
	if pending != nil {
		r.Warnings = append(r.Warnings, pending()...)
	}
	r.Warnings = collapse(r.Warnings)
}

// build runs load, model and curate; the returned function waits for the
// spec's validation warnings.
func build(opts Options) (*Result, func() []diag.Diagnostic, error) {
	res := &Result{}
	var parseErrs []diag.Diagnostic
	var ov *overlay.Overlay
	if opts.OverlayPath != "" {
		data, err := os.ReadFile(opts.OverlayPath)
		if err != nil {
			return nil, nil, diag.At(diag.Pos{File: opts.OverlayPath}, "cannot read overlay: %v", unwrapPathError(err))
		}
		ov, err = overlay.ParsePartial(opts.OverlayPath, data)
		var de *diag.Errors
		switch {
		case err == nil:
		case ov != nil && errors.As(err, &de):
			// Check the rest against the spec too: every problem of the
			// overlay in one run.
			parseErrs = de.List
		default:
			return nil, nil, err
		}
	}
	spec, patched, ws, err := loadSpec(opts, ov)
	if err != nil {
		return nil, nil, err
	}
	// Warnings that know a JSON pointer but no line get the pointer's
	// (Swagger 2.0 keeps no positions through its conversion). Positions
	// in a spec the overlay's actions patched are positions in the patched
	// text: point them back into the user's files.
	fix := func(ds []diag.Diagnostic) []diag.Diagnostic {
		ds = spec.Locate(ds)
		if patched != nil {
			for i := range ds {
				ds[i].Pos = patched.pos(ds[i].Pos, opts.SpecPath, opts.OverlayPath)
			}
		}
		return ds
	}
	res.Warnings = append(res.Warnings, ws...)
	res.Warnings = append(res.Warnings, fix(spec.Warnings)...)

	// The server's name (and so its environment prefix): --name, else the
	// overlay's server.name, else the package.
	name := opts.Name
	if name == "" && ov != nil {
		name = ov.Server.Name
	}
	if name == "" && opts.Package != "" && opts.Package != "main" {
		name = opts.Package
	}
	api, modelWarnings := model.Build(spec, model.Options{Name: name, EnvPrefix: opts.EnvPrefix})
	fix(modelWarnings)

	api, ws = curate.Apply(api, ov)
	fix(ws)
	curated := &diag.List{}
	curated.Add(parseErrs...)
	curated.Add(ws...)
	if err := curated.Err(); err != nil {
		return nil, nil, err
	}
	if err := checkPaths(api); err != nil {
		return nil, nil, err
	}
	res.Warnings = append(res.Warnings, relevant(modelWarnings, api)...)
	res.Warnings = append(res.Warnings, ws...)
	res.API = api
	if ov != nil {
		api.Source.OverlayPath = opts.OverlayPath
		api.Source.OverlaySHA256 = ov.SHA256
	}
	// The header names the spec relative to the output, so that it reads the
	// same on every machine that generates from the same checkout.
	if opts.OutDir != "" {
		out, err1 := filepath.Abs(opts.OutDir)
		spec, err2 := filepath.Abs(opts.SpecPath)
		if err1 == nil && err2 == nil {
			if rel, err := filepath.Rel(out, spec); err == nil {
				api.Source.SpecPath = filepath.ToSlash(rel)
			}
		}
		if ov != nil {
			if o, err := filepath.Abs(opts.OverlayPath); err1 == nil && err == nil {
				if rel, err := filepath.Rel(out, o); err == nil {
					api.Source.OverlayPath = filepath.ToSlash(rel)
				}
			}
		}
	}

	pending := func() []diag.Diagnostic { return fix(spec.ValidationWarnings()) }
	return res, pending, nil
}

// relevant keeps the model's warnings about operations that are still
// tools after curation (and those about the spec as a whole): a problem in
// an operation the overlay left out is not the user's concern here.
func relevant(ws []diag.Diagnostic, api *ir.API) []diag.Diagnostic {
	kept := map[string]bool{}
	for _, t := range api.Tools {
		kept[t.Origin.Pointer] = true
	}
	var out []diag.Diagnostic
	for _, w := range ws {
		if strings.HasPrefix(w.Pointer, "#/paths/") {
			op := w.Pointer
			if i := strings.Index(op, "/"+"$"); i > 0 {
				op = op[:i]
			}
			if !kept[op] && !keptPrefix(kept, op) {
				continue
			}
		}
		out = append(out, w)
	}
	return out
}

// keptPrefix reports whether a warning pointer lies inside a kept
// operation (warnings may point below the operation, at a keyword).
func keptPrefix(kept map[string]bool, ptr string) bool {
	for k := range kept {
		if strings.HasPrefix(ptr, k+"/") {
			return true
		}
	}
	return false
}

// loadSpec loads the spec, first applying the overlay's OpenAPI Overlay
// actions when it has any; then it also returns the patched spec, which maps
// positions back to the user's files.
func loadSpec(opts Options, ov *overlay.Overlay) (*load.Spec, *patchedSpec, []diag.Diagnostic, error) {
	lo := load.Options{AllowRemoteRefs: opts.AllowRemoteRefs, RefRoot: opts.RefRoot, Strict: opts.Strict, SkipValidation: opts.SkipValidation, ValidateInBackground: true}
	if ov == nil || len(ov.Actions) == 0 {
		spec, err := load.Load(opts.SpecPath, lo)
		return spec, nil, nil, err
	}
	data, err := os.ReadFile(opts.SpecPath)
	if err != nil {
		return nil, nil, nil, diag.At(diag.Pos{File: opts.SpecPath}, "cannot read spec: %v", unwrapPathError(err))
	}
	// Decoded twice: the actions change one copy, positions are looked up
	// in the other.
	var root yaml.Node
	var doc, original any
	err = yaml.Unmarshal(data, &root)
	if err == nil {
		err = root.Decode(&doc)
	}
	if err == nil {
		err = root.Decode(&original)
	}
	if err != nil || root.Kind != yaml.DocumentNode {
		// Let the loader report the syntax error with its position.
		spec, lerr := load.LoadData(opts.SpecPath, data, lo)
		if lerr != nil {
			return nil, nil, nil, lerr
		}
		return spec, nil, nil, nil
	}
	patchedDoc, ds := overlay.ApplyActions(overlay.JSONable(doc), ov.Actions, opts.Strict)
	l := &diag.List{}
	l.Add(ds...)
	if err := l.Err(); err != nil {
		return nil, nil, nil, err
	}
	patched, err := newPatchedSpec(&root, overlay.JSONable(original), patchedDoc)
	if err != nil {
		return nil, nil, nil, diag.At(diag.Pos{File: opts.OverlayPath}, "the spec cannot be re-encoded after the overlay's actions: %v", err)
	}
	l.Add(patched.brokenRefs(opts.SpecPath, opts.OverlayPath)...)
	if err := l.Err(); err != nil {
		return nil, nil, nil, err
	}
	spec, err := load.LoadData(opts.SpecPath, patched.text, lo)
	if err != nil {
		var de *diag.Errors
		if errors.As(err, &de) {
			for i := range de.List {
				de.List[i].Pos = patched.pos(de.List[i].Pos, opts.SpecPath, opts.OverlayPath)
				de.List[i].Message = "after the overlay's actions (" + opts.OverlayPath + "): " + de.List[i].Message
			}
		}
		return nil, nil, nil, err
	}
	sum := sha256.Sum256(data)
	spec.SHA256 = hex.EncodeToString(sum[:])
	return spec, patched, l.Warnings(), nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Write puts files under dir. A file whose content is already what it would
// be is not rewritten, so build caches and file watchers see no change.
// It returns the paths it wrote.
func Write(dir string, files []render.File) ([]string, error) {
	var wrote []string
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, f.Content) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return wrote, err
		}
		if err := os.WriteFile(p, f.Content, 0o644); err != nil {
			return wrote, err
		}
		wrote = append(wrote, p)
	}
	return wrote, nil
}

// ImportPath works out the Go import path of dir from the nearest go.mod.
func ImportPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			mod := modulePath(data)
			if mod == "" {
				return "", fmt.Errorf("%s has no module line", filepath.Join(d, "go.mod"))
			}
			rel, _ := filepath.Rel(d, abs)
			if rel == "." {
				return mod, nil
			}
			return mod + "/" + filepath.ToSlash(rel), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", abs)
		}
	}
}

func modulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "module") {
			return strings.Trim(strings.TrimSpace(strings.TrimPrefix(line, "module")), `"`)
		}
	}
	return ""
}

// collapse merges warnings that say the same thing about many operations
// (kubernetes repeats one collision in dozens) into one line with a count.
func collapse(ds []diag.Diagnostic) []diag.Diagnostic {
	type key struct {
		sev diag.Severity
		msg string
	}
	first := map[key]int{}
	count := map[key]int{}
	var out []diag.Diagnostic
	for _, d := range ds {
		k := key{d.Severity, d.Message}
		count[k]++
		if _, ok := first[k]; ok {
			continue
		}
		first[k] = len(out)
		out = append(out, d)
	}
	for k, i := range first {
		if n := count[k]; n > 1 {
			out[i].Message += fmt.Sprintf(" (and %d more places)", n-1)
		}
	}
	return out
}
