// Package generator is tailor's pipeline entry: every command (and go
// generate, the e2e harness and the benchmarks) runs the pipeline through
// Run, once per input, and reads what it needs from the Output. The stages
// are the packages of internal/generate, in order:
//
//	overlay  the overlay file → its typed value (parsed first: its actions change the spec)
//	load     spec (+ the overlay's actions) → kin-openapi document
//	model    document → raw ir.API, one tool per operation
//	curate   raw ir.API + overlay → curated ir.API (the identity without an overlay)
//	render   curated ir.API → formatted Go files (Output.Render)
//
// Write puts rendered files on disk, leaving files whose content is
// unchanged untouched.
package generator

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/curate"
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/load"
	"github.com/tailormcp/tailor/internal/generate/load/specfile"
	"github.com/tailormcp/tailor/internal/generate/model"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/generate/render"
	"github.com/tailormcp/tailor/internal/parallel"
)

// Options is everything one run needs: the inputs, and the flags that
// shape the generated package (the package name is also the server's
// default name, which the model stage needs).
type Options struct {
	SpecPath string
	// SpecData, when set, is the spec's root file, read from memory rather
	// than from SpecPath (which still names it and resolves its $refs):
	// tailor check loads an earlier version of the spec from git this way.
	SpecData []byte
	// SpecFiles, when set, is what the spec's local $refs read instead of
	// the disk: a version of the folder SpecFilesDir (absolute), such as a
	// commit's, read under the same confinement as the disk (RefRoot,
	// links, regular files).
	SpecFiles    fs.ReadLinkFS
	SpecFilesDir string
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
	// FullSchemas lists every tool's full input schema, rather than its
	// strict form (model.Strict), for clients that read all of JSON Schema.
	FullSchemas bool
	// ReleaseSpec lets go of what only the stages up to curation read, as
	// soon as curation is done, for a caller that from then on renders and
	// asks for Warnings only (tailor generate): the loaded document
	// (Spec.Doc is nil in the Output) and, with an overlay, Raw. The
	// strict forms and rendering then run without them: at 50,000
	// operations the document is about 220 MB, stripe's 20 MB, of a heap
	// that would otherwise grow to twice what is live with it. The
	// collection started then sets the heap's next goal without it.
	ReleaseSpec bool
}

// Output is every stage's output of one run.
type Output struct {
	// Spec is the loaded description (after the overlay's actions).
	Spec *load.Spec
	// Overlay is the parsed overlay; nil without one.
	Overlay *overlay.Overlay
	// Raw is the spec's tool set, one tool per operation, as curation
	// starts from it: after the overlay's actions (Unpatched is before).
	// Curated is the overlay's tool set (Raw itself without an overlay).
	Raw, Curated *ir.API

	opts Options
	// load and model are the stages' options, for Unpatched.
	load      load.Options
	model     model.Options
	unpatched *ir.API
	// warnings are the stages' warnings so far (see Warnings).
	warnings  []diag.Diagnostic
	validated bool
	// warnings[unplacedFrom:unplacedTo] are the model's warnings still
	// without their lines (a spec loaded without origins), placed by
	// Warnings. (Indices, not a slice: appending the warnings that follow
	// may move the array.)
	unplacedFrom, unplacedTo int
}

// Warnings are every stage's warnings, positioned in the user's files,
// repeated ones merged. Strict validation's come last: it runs in the
// background while the later stages (rendering included) do, and the
// first call waits for it.
func (o *Output) Warnings() []diag.Diagnostic {
	if !o.validated {
		o.validated = true
		if unplaced := o.warnings[o.unplacedFrom:o.unplacedTo]; len(unplaced) > 0 {
			// Ordered by position once placed, as they were when
			// kin-openapi's origins gave them their lines; then mapped
			// back to the user's files.
			l := &diag.List{}
			l.Add(o.Spec.Locate(unplaced)...)
			copy(unplaced, o.Spec.Place(l.All()))
		}
		o.warnings = append(o.warnings, o.Spec.Place(o.Spec.ValidationWarnings())...)
		o.warnings = collapse(o.warnings)
	}
	return o.warnings
}

// File is one generated file, path relative to the output directory.
type File = render.File

// Run runs the pipeline up to the curated tool set. Warnings never stop
// it; errors are returned as *diag.Errors listing every problem found.
//
// When the spec cannot be loaded the Output is nil. When the overlay does
// not fit the spec (curation errors), the Output holds what the stages
// before made (Spec, Overlay, Raw) and Curated as far as curation got, for
// the review tools that compare against it; it cannot be rendered.
func Run(opts Options) (*Output, error) {
	var parseErrs []diag.Diagnostic
	var ov *overlay.Overlay
	if opts.OverlayPath != "" {
		var err error
		ov, err = ReadOverlay(opts.OverlayPath)
		var de *diag.Errors
		switch {
		case err == nil:
		case ov != nil && errors.As(err, &de):
			// Check the rest against the spec too: every problem of the
			// overlay in one run.
			parseErrs = de.List
		default:
			return nil, err
		}
	}
	lo := load.Options{AllowRemoteRefs: opts.AllowRemoteRefs, RefRoot: opts.RefRoot, Strict: opts.Strict, SkipValidation: opts.SkipValidation, ValidateInBackground: true}
	if opts.SpecFiles != nil {
		lo.Files = &specfile.Files{FS: opts.SpecFiles, Dir: opts.SpecFilesDir}
	}
	if ov != nil {
		lo.Actions, lo.ActionsFile = ov.Actions, opts.OverlayPath
	}
	spec, err := loadSpec(opts, lo)
	if err != nil {
		return nil, err
	}
	out := &Output{Spec: spec, Overlay: ov, opts: opts, load: lo}
	// Warnings that know a JSON pointer but no line get the pointer's
	// (Swagger 2.0 keeps no positions through its conversion), and
	// positions in a spec the overlay's actions patched point back into
	// the user's files.
	out.warnings = append(out.warnings, spec.ActionWarnings...)
	out.warnings = append(out.warnings, spec.Place(spec.Warnings)...)

	// The server's name (and so its environment prefix): --name, else the
	// overlay's server.name, else the package.
	name := opts.Name
	if name == "" && ov != nil {
		name = ov.Server.Name
	}
	if name == "" && opts.Package != "" && opts.Package != "main" {
		name = opts.Package
	}
	out.model = model.Options{Name: name, EnvPrefix: opts.EnvPrefix}
	raw, modelWarnings := model.Raw(spec, out.model)
	if spec.Origins() {
		spec.Place(modelWarnings)
	} // else in Warnings: the lines are read from the spec beside the stages that follow
	out.Raw = raw

	api, ws := curate.Apply(raw, ov)
	spec.Place(ws)
	out.Curated = api
	curated := &diag.List{}
	curated.Add(parseErrs...)
	curated.Add(ws...)
	if err := curated.Err(); err != nil {
		return out, err
	}
	if err := curate.CheckPaths(api); err != nil {
		var de *diag.Errors
		if errors.As(err, &de) {
			spec.Place(de.List)
		}
		return out, err
	}
	if opts.ReleaseSpec {
		spec.Release()
		if out.Raw != out.Curated {
			out.Raw = nil
		}
		go runtime.GC()
	}
	n := len(out.warnings)
	out.warnings = append(out.warnings, relevant(modelWarnings, api)...)
	out.warnings = append(out.warnings, model.Listed(api, opts.FullSchemas)...)
	if !spec.Origins() {
		out.unplacedFrom, out.unplacedTo = n, len(out.warnings)
	}
	out.warnings = append(out.warnings, ws...)
	if sum, n, ok := spec.Inputs(); ok {
		// A spec split over files: the header records them all, for tailor
		// check to find the version the output came from.
		api.Source.SpecInputs, api.Source.SpecInputsSHA256 = n, sum
	}
	if ov != nil {
		api.Source.OverlayPath = opts.OverlayPath
		api.Source.OverlaySHA256 = ov.SHA256
	}
	// The header names the spec relative to the output, so that it reads the
	// same on every machine that generates from the same checkout.
	if opts.OutDir != "" {
		outDir, err1 := filepath.Abs(opts.OutDir)
		specPath, err2 := filepath.Abs(opts.SpecPath)
		if err1 == nil && err2 == nil {
			if rel, err := filepath.Rel(outDir, specPath); err == nil {
				api.Source.SpecPath = filepath.ToSlash(rel)
			}
		}
		if ov != nil {
			if o, err := filepath.Abs(opts.OverlayPath); err1 == nil && err == nil {
				if rel, err := filepath.Rel(outDir, o); err == nil {
					api.Source.OverlayPath = filepath.ToSlash(rel)
				}
			}
		}
	}
	return out, nil
}

// PlaceTools gives every tool of Raw and Curated the line of its
// operation in the spec. The loader keeps no positions for a spec in one
// file (they cost as much as loading it), so the tools know only their
// pointers until a command that points at operations (lint) asks.
func (o *Output) PlaceTools() {
	if o.Spec.Origins() {
		return
	}
	var ds []diag.Diagnostic
	var tools []*ir.Tool
	for _, api := range []*ir.API{o.Raw, o.Curated} {
		if api == nil {
			continue
		}
		for _, t := range api.Tools {
			if t.Origin.Line == 0 && t.Origin.Pointer != "" && t.Origin.File != "" {
				tools = append(tools, t)
				ds = append(ds, diag.Diagnostic{Pos: diag.Pos{File: t.Origin.File}, Pointer: t.Origin.Pointer})
			}
		}
	}
	for i, d := range o.Spec.Locate(ds) {
		tools[i].Origin.File, tools[i].Origin.Line, tools[i].Origin.Col = d.Pos.File, d.Pos.Line, d.Pos.Col
	}
}

// loadSpec loads the run's spec, from SpecData when it is set.
func loadSpec(opts Options, lo load.Options) (*load.Spec, error) {
	if opts.SpecData != nil {
		return load.LoadData(opts.SpecPath, opts.SpecData, lo)
	}
	return load.Load(opts.SpecPath, lo)
}

// Unpatched is the raw tool set of the spec as written, before the
// overlay's OpenAPI Overlay actions changed it; Raw is that of the patched
// spec. The spec as written is a document of its own, loaded when first
// asked for: tailor diff shows it on its raw side, so that the reviewer
// sees what the actions changed. Without actions it is Raw.
func (o *Output) Unpatched() (*ir.API, error) {
	if o.Overlay == nil || len(o.Overlay.Actions) == 0 {
		return o.Raw, nil
	}
	if o.unpatched == nil {
		lo := o.load
		lo.Actions, lo.ActionsFile = nil, ""
		// Not validated, its warnings not reported: the run's are those
		// of the spec it curates.
		lo.SkipValidation, lo.ValidateInBackground = true, false
		spec, err := loadSpec(o.opts, lo)
		if err != nil {
			return nil, err
		}
		o.unpatched, _ = model.Raw(spec, o.model)
	}
	return o.unpatched, nil
}

// ReadOverlay reads and parses the overlay at path alone, for the
// commands that read an overlay without its spec (tailor report, tailor
// test). On a *diag.Errors it returns the overlay as far as it could be
// read too (Run goes on checking it against the spec).
func ReadOverlay(path string) (*overlay.Overlay, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, diag.At(diag.Pos{File: path}, "cannot read overlay: %v", unwrapPathError(err))
	}
	return overlay.ParsePartial(path, data)
}

// Render prints the curated tool set as the Go files of the package the
// run's options describe.
func (o *Output) Render() ([]File, error) {
	opts := o.opts
	importPath := opts.ImportPath
	if opts.Main && importPath == "" && opts.Package != "main" && opts.OutDir != "" {
		importPath, _ = ImportPath(opts.OutDir)
	}
	return render.Render(o.Curated, render.Options{Package: opts.Package, Main: opts.Main, ImportPath: importPath, ToolVersion: opts.ToolVersion})
}

// ValidPackage reports whether name can be the package name of the
// generated files: an ASCII Go identifier that is not a keyword nor "_".
func ValidPackage(name string) bool { return render.ValidPackage(name) }

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
// operation (warnings may point below the operation, at a keyword): some
// part of it up to a slash is a kept pointer. One lookup per slash, not
// one comparison per kept tool: kubernetes' 738 tools against each of
// its warnings took 50 ms.
func keptPrefix(kept map[string]bool, ptr string) bool {
	for i := 1; i < len(ptr); i++ {
		if ptr[i] == '/' && kept[ptr[:i]] {
			return true
		}
	}
	return false
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
// It returns the paths it wrote, in the order of files, and every error.
// The files are compared and written at once, on every core.
func Write(dir string, files []File) ([]string, error) {
	wrote := make([]bool, len(files))
	errs := make([]error, len(files))
	parallel.For(len(files), func(i int) {
		wrote[i], errs[i] = write(filepath.Join(dir, filepath.FromSlash(files[i].Path)), files[i])
	})
	var paths []string
	for i, f := range files {
		if wrote[i] && errs[i] == nil {
			paths = append(paths, filepath.Join(dir, filepath.FromSlash(f.Path)))
		}
	}
	return paths, errors.Join(errs...)
}

// write puts f at p unless it is there already.
func write(p string, f File) (bool, error) {
	if old, err := os.ReadFile(p); err == nil && f.Equal(old) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false, err
	}
	out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return false, err
	}
	_, err = f.WriteTo(out)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return true, err
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
