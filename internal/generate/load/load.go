// Package load is the first stage of the pipeline: it reads an OpenAPI
// description (3.0.x, 3.1.x, or Swagger 2.0, in YAML or JSON, told apart by
// content) into a kin-openapi document, resolving relative $refs across
// files and refusing remote ones unless asked. Problems that do not block
// generation come back as warnings with a position; problems that do are
// errors of the form file:line:col.
//
// The one decode is kin-openapi's. Below it: package specfile reads the
// files a spec is made of (confined to the ref root) and resolves $refs in
// their YAML; package repair mends the YAML kin-openapi refuses, before it
// reads it again; package locate places JSON pointers in the text, for
// warnings kin-openapi gives no line.
package load

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-openapi/jsonpointer"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/load/locate"
	"github.com/tailormcp/tailor/internal/generate/load/repair"
	"github.com/tailormcp/tailor/internal/generate/load/specfile"
	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/generate/patch"
	"github.com/tailormcp/tailor/internal/jsonv"
)

// Options tunes loading.
type Options struct {
	// AllowRemoteRefs lets $refs fetch http(s) URLs. Off by default: a spec
	// should not make the generator issue requests on its behalf (SSRF).
	AllowRemoteRefs bool
	// RefRoot is the folder local $refs may read files below; "" is the
	// enclosing repository (the nearest folder holding .git), else the
	// spec's own folder.
	RefRoot string
	// Strict refuses a spec with defects the loader would otherwise repair
	// or leave out (with a warning each): $refs where the version allows
	// none, text that is a $ref, parts that cannot be read.
	Strict bool
	// ValidateInBackground runs strict validation concurrently; its
	// warnings come from Spec.ValidationWarnings instead of Spec.Warnings.
	ValidateInBackground bool
	// SkipValidation skips kin-openapi's strict validation, which only ever
	// produces warnings.
	SkipValidation bool
	// Actions are an overlay's OpenAPI Overlay actions, applied to the
	// spec before it is read (package patch); ActionsFile is that overlay's
	// path, where positions in what the actions added point.
	Actions     []*overlay.Action
	ActionsFile string
	// Files, when set, is the version of the files local $refs read
	// instead of the disk's, under the same confinement (specfile.Files).
	Files *specfile.Files
}

// Spec is a loaded description.
type Spec struct {
	Doc *openapi3.T
	// Path is the spec's path as the user gave it; used in messages.
	Path string
	// Version is the description's own version string ("2.0", "3.0.3", "3.1.0").
	Version string
	// SHA256 is the hex digest of the root file's bytes.
	SHA256 string
	// Warnings are problems that did not stop loading, positioned in the
	// text loaded (see Place).
	Warnings []diag.Diagnostic
	// ActionWarnings are the overlay's actions that matched nothing
	// (positioned in the overlay).
	ActionWarnings []diag.Diagnostic
	// pending delivers the warnings of a background validation.
	pending chan []diag.Diagnostic
	// locate places JSON pointers in the spec's text (package locate).
	locate *locate.Locator
	// reader read the spec's files (Sources).
	reader *specfile.Reader
	// patched maps positions in a spec an overlay's actions changed back
	// to the user's files (package patch).
	patched *patch.Spec
	// unplaced is set when kin-openapi loaded the spec without origins
	// (places.go): positions come from the locator, when asked.
	unplaced bool
	// swaggerPlaced is set when a Swagger 2.0 spec's converted document
	// is placed in its text through the layout of the 2.0 one
	// (locate.Swagger2Layout): kin-openapi keeps no origins through the
	// conversion.
	swaggerPlaced bool
	places        schemaPlaces
}

// Load reads the description at path.
func Load(path string, opts Options) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, diag.At(diag.Pos{File: path}, "cannot read spec: %v", unwrapPathError(err))
	}
	return LoadData(path, data, opts)
}

// LoadData is Load for bytes already in memory; path is used to resolve
// relative $refs and in messages.
func LoadData(path string, data []byte, opts Options) (*Spec, error) {
	if len(opts.Actions) > 0 {
		loaded.add(sha256Hex(data) + " patched by " + opts.ActionsFile)
		return loadPatched(path, data, opts)
	}
	sum := sha256Hex(data)
	defer loaded.add(sum)
	return loadText(path, data, opts, sum)
}

// loaded lists the documents this process loaded, for the test that each
// command loads each document once.
var loaded docLog

type docLog struct {
	mu   sync.Mutex
	docs []string
}

func (l *docLog) add(doc string) {
	l.mu.Lock()
	l.docs = append(l.docs, doc)
	l.mu.Unlock()
}

// Loaded lists the documents this process has loaded, in order, each
// named by the sha256 of the spec's bytes, and for a spec an overlay's
// actions changed (a document of its own) "SHA256 patched by OVERLAY".
func Loaded() []string {
	loaded.mu.Lock()
	defer loaded.mu.Unlock()
	return slices.Clone(loaded.docs)
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// loadText reads a description from its text; sum is its sha256Hex, or "".
func loadText(path string, data []byte, opts Options, sum string) (*Spec, error) {
	if sum == "" {
		sum = sha256Hex(data)
	}
	spec := &Spec{Path: path, SHA256: sum}

	kind, version, err := sniff(path, data)
	if err != nil {
		return nil, err
	}
	spec.Version = version

	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, diag.At(diag.Pos{File: path}, "%v", err)
	}
	location := &url.URL{Path: filepath.ToSlash(abs)}
	fetch, err := specfile.NewReader(path, opts.RefRoot, opts.AllowRemoteRefs, opts.Files)
	if err != nil {
		return nil, diag.At(diag.Pos{File: path}, "%v", err)
	}
	spec.reader = fetch
	spec.locate = locate.New(path, data, kind == swagger2, fetch, location)

	// A spec split over files is repaired (and its shared schema files
	// arranged, shared.go) before kin-openapi reads it; a spec in one file
	// only when kin-openapi refuses it or leaves a $ref it does not follow,
	// so that a large spec kin-openapi reads as it is is parsed once.
	var doc *openapi3.T
	split := hasExternalRefs(data)
	if !split {
		// Without origins (places.go): they cost as much as the load itself,
		// and only the few nodes a warning is about need a position.
		doc, err = loadDoc(kind, data, location, fetch, nil, false, spec.locate)
		spec.unplaced = kind != swagger2
		spec.swaggerPlaced = kind == swagger2 && spec.locate.Layout != nil
	}
	if split || err != nil || strayRefs(doc) {
		fixed, rerr := repair.Run(path, data, location, kind == swagger2, version, fetch, opts.Strict)
		if rerr != nil {
			return nil, rerr
		}
		switch {
		case fixed == nil && split:
			doc, err = loadDoc(kind, data, location, fetch, nil, true, nil)
		case fixed != nil:
			spec.unplaced, spec.swaggerPlaced = false, false
			spec.Warnings = append(spec.Warnings, fixed.Warnings...)
			files := fixed.Files
			if fixed.Shared != nil {
				doc, err = loadDoc(kind, data, location, fetch, fixed.Shared, true, nil)
				if err == nil {
					files = nil
				} else {
					files = fixed.Files // the arrangement is an optimisation: never a reason to fail
				}
			}
			if files != nil {
				doc, err = loadDoc(kind, data, location, fetch, files, true, nil)
			}
		}
	}
	if err != nil {
		return nil, explainLoadError(path, data, fetch, err)
	}
	spec.Doc = doc
	if spec.unplaced || spec.swaggerPlaced {
		// Positions come from the locator (package locate), made ready on the
		// other core while the stages that follow run (their warnings are
		// placed last).
		spec.locate.Prepare()
	}

	if opts.SkipValidation {
		return spec, nil
	}
	if opts.ValidateInBackground {
		// Validation only reads the document, as the later stages do
		// (validationView copies what it changes), and takes about as long
		// as all of them on large specs: on a second core it runs beside
		// them.
		ch := make(chan []diag.Diagnostic, 1)
		go func() { ch <- spec.Locate(validate(path, doc)) }()
		spec.pending = ch
		return spec, nil
	}
	spec.Warnings = append(spec.Warnings, spec.Locate(validate(path, doc))...)
	return spec, nil
}

// ValidationWarnings waits for a validation started in the background and
// returns its warnings (at once when they came from the cache; nil when
// there was none or they were already taken).
func (s *Spec) ValidationWarnings() []diag.Diagnostic {
	if s.pending == nil {
		return nil
	}
	ws := <-s.pending
	s.pending = nil
	return ws
}

// Release lets go of the document and what was built over it for the
// model stage (the places of its schemas), for a caller that from here on
// asks only for warnings (Locate, Place, ValidationWarnings). Doc is nil
// after it; a validation still running keeps the document until it is
// done.
func (s *Spec) Release() {
	s.Doc = nil
	s.places = schemaPlaces{}
}

// loadDoc loads the spec with kin-openapi, reading the root from data and
// every other file through fetch, or from files where the repair pass
// rewrote it.
// origins asks kin-openapi to record every node's position. l, for the
// spec's first load, is given where the Swagger 2.0 document wrote what
// the converted one holds (locate.Swagger2Layout).
func loadDoc(kind docKind, data []byte, location *url.URL, fetch *specfile.Reader, files map[string][]byte, origins bool, l *locate.Locator) (*openapi3.T, error) {
	if b, ok := files[specfile.Key(location)]; ok {
		data = b
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	loader.IncludeOrigin = origins
	read := func(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
		if b, ok := files[specfile.Key(u)]; ok {
			return b, nil
		}
		return fetch.Read(u)
	}
	loader.ReadFromURIFunc = rootFirst(location, data, read)
	if kind != swagger2 {
		if !origins && files == nil && specfile.LooksLikeJSON(data) && jsonv.Depth(data) <= maxJSONDecodeDepth {
			// kin-openapi parses JSON with its YAML parser too, which queues
			// a JSON document's every token before it builds the first node
			// (sentry's 3.9 MB: 1 s of a 2.4 s generation). Its JSON decoder
			// reads the same types from the same text, then the loader
			// resolves the $refs as it would have. YAML in flow style that is
			// not JSON fails the decoder and is read as before. The decoder
			// checks and reads each schema's text again for every schema
			// around it, so a deeply nested one costs the square of its depth
			// (20 operations of 6,000 levels: 3 minutes and 2.8 GB): past
			// maxJSONDecodeDepth the YAML parser, linear, reads it.
			doc := &openapi3.T{}
			if json.Unmarshal(data, doc) == nil {
				return doc, loader.ResolveRefsIn(doc, location)
			}
		}
		return loader.LoadFromDataWithPath(data, location)
	}
	doc, layout, err := loadSwagger2(loader, data, location)
	if l != nil {
		l.Layout = layout
	}
	return doc, err
}

// maxJSONDecodeDepth is how deeply a JSON spec's values may nest for its
// JSON decode (loadDoc); real specs nest a few dozen levels.
const maxJSONDecodeDepth = 128

// hasExternalRefs reports whether the spec's text has a $ref to another
// file (or URL), without parsing it: a "$ref" key (a quote, then a colon,
// may follow it) whose value, past spaces, a block scalar's indicator
// (stripe writes `$ref: >-` and the value on the next line) and a quote,
// starts with anything but "#", or a bracket (a property named $ref, as
// in kubernetes' JSON Schema). Text that merely looks so only costs the
// repair pass a look.
func hasExternalRefs(data []byte) bool {
	skip := func(rest []byte, set string) []byte {
		for len(rest) > 0 && strings.IndexByte(set, rest[0]) >= 0 {
			rest = rest[1:]
		}
		return rest
	}
	for rest := data; ; {
		i := bytes.Index(rest, []byte("$ref"))
		if i < 0 {
			return false
		}
		rest = rest[i+4:]
		v := skip(skip(rest, "\"'"), " \t")
		if len(v) == 0 || v[0] != ':' {
			continue // not a key
		}
		v = skip(v[1:], " \t\r\n")
		if len(v) > 0 && (v[0] == '>' || v[0] == '|') {
			v = skip(skip(v[1:], "+-0123456789"), " \t\r\n")
		}
		v = skip(v, "\"'")
		if len(v) > 0 && strings.IndexByte("#{[", v[0]) < 0 {
			return true
		}
	}
}

// strayRefs reports whether kin-openapi loaded a $ref where it follows
// none (an operation or a media type that is a $ref): it keeps the $ref
// as an unknown field, and what it stands for would be lost.
func strayRefs(doc *openapi3.T) bool {
	if doc == nil {
		return false
	}
	stray := func(item *openapi3.PathItem) bool {
		if item == nil {
			return false
		}
		for _, op := range item.Operations() {
			if op == nil {
				continue
			}
			if _, ok := op.Extensions["$ref"]; ok {
				return true
			}
			if op.RequestBody != nil && op.RequestBody.Value != nil && strayContent(op.RequestBody.Value.Content) {
				return true
			}
			if op.Responses != nil {
				for _, r := range op.Responses.Map() {
					if r != nil && r.Value != nil && strayContent(r.Value.Content) {
						return true
					}
				}
			}
		}
		return false
	}
	if doc.Paths != nil {
		for _, item := range doc.Paths.Map() {
			if stray(item) {
				return true
			}
		}
	}
	for _, item := range doc.Webhooks {
		if stray(item) {
			return true
		}
	}
	return false
}

func strayContent(c openapi3.Content) bool {
	for _, m := range c {
		if m != nil {
			if _, ok := m.Extensions["$ref"]; ok {
				return true
			}
		}
	}
	return false
}

// loadSwagger2 decodes and converts a Swagger 2.0 spec; layout is where
// the 2.0 document wrote what the converted one holds.
func loadSwagger2(loader *openapi3.Loader, data []byte, location *url.URL) (doc *openapi3.T, layout *locate.Swagger2Layout, err error) {
	var doc2 openapi2.T
	if err = openapi2.UnmarshalFromData(data, &doc2); err != nil {
		return nil, nil, err
	}
	layout = locate.NewSwagger2Layout(&doc2) // before the converter changes doc2
	if repair.BreaksParamRules(&doc2) {
		return nil, layout, errParamRules
	}
	// The converter and the ref resolver index into maps they assume are
	// well formed; a malformed 2.0 file must be an error, not a crash.
	defer func() {
		if r := recover(); r != nil {
			doc, layout, err = nil, nil, fmt.Errorf("cannot convert Swagger 2.0 to OpenAPI 3: %v", r)
		}
	}()
	doc, err = openapi2conv.ToV3WithLoader(&doc2, loader, location)
	if err == nil {
		requireFormBodies(doc)
	}
	return doc, layout, err
}

// errParamRules sends a Swagger 2.0 spec with an operation that breaks a
// rule for its parameters through the repair pass (package repair).
var errParamRules = errors.New("an operation breaks Swagger 2.0's rules for parameters (two bodies, a body and form fields, form fields without a form media type, or a parameter declared twice)")

// requireFormBodies marks the request bodies that Swagger 2.0 formData
// parameters became as required when one of those parameters was: the
// converter lists them in the schema's required but leaves the body
// optional, and an optional body makes every field optional to the model.
func requireFormBodies(doc *openapi3.T) {
	if doc.Paths == nil {
		return
	}
	for _, item := range doc.Paths.Map() {
		if item == nil {
			continue
		}
		for _, op := range item.Operations() {
			if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			rb := op.RequestBody.Value
			for mt, media := range rb.Content {
				if mt != "application/x-www-form-urlencoded" && mt != "multipart/form-data" {
					continue
				}
				if media != nil && media.Schema != nil && media.Schema.Value != nil && len(media.Schema.Value.Required) > 0 {
					rb.Required = true
				}
			}
		}
	}
}

// rootFirst answers a read of the root spec with the bytes being loaded.
// kin-openapi reads the root's file again to resolve some of its own
// references; when an overlay's actions patched the spec, that file is not
// the document being loaded, and a component the actions removed would be
// found there.
func rootFirst(root *url.URL, data []byte, next openapi3.ReadFromURIFunc) openapi3.ReadFromURIFunc {
	return func(loader *openapi3.Loader, location *url.URL) ([]byte, error) {
		if (location.Scheme == "" || location.Scheme == "file") && location.Host == "" && filepath.Clean(filepath.FromSlash(location.Path)) == filepath.Clean(filepath.FromSlash(root.Path)) {
			return data, nil
		}
		return next(loader, location)
	}
}

// validate runs kin-openapi's strict validation and turns what it finds into
// warnings: real specs that fail it are still used every day.
func validate(path string, doc *openapi3.T) (out []diag.Diagnostic) {
	defer func() {
		if r := recover(); r != nil {
			out = append(out, diag.Diagnostic{Severity: diag.Warning, Pos: diag.Pos{File: path},
				Message: fmt.Sprintf("spec validation crashed and was skipped: %v", r)})
		}
	}()
	ctx := openapi3.WithValidationOptions(context.Background(),
		openapi3.EnableMultiError(),
		openapi3.DisableExamplesValidation(),
		// The schema converter checks patterns and defaults itself, drops
		// the ones clients would reject and warns at the keyword; kin-openapi
		// would say the same again, once per component and once per
		// operation using it.
		openapi3.DisableSchemaPatternValidation(),
		openapi3.DisableSchemaDefaultsValidation(),
		openapi3.AllowExtraSiblingFields("description", "summary", "nullable", "example", "examples", "default", "deprecated", "readOnly", "writeOnly", "title"),
	)
	err := validationView(ctx, doc).Validate(ctx)
	if err == nil {
		return nil
	}
	errs := []error{err}
	if me, ok := err.(openapi3.MultiError); ok {
		errs = flattenMulti(me)
	}
	seen := map[string]bool{}
	for _, e := range errs {
		if disabledCheck(e) {
			continue
		}
		// The first line says what is wrong; kin-openapi follows it with
		// the schema and value as indented JSON, which is no warning line.
		msg, _, _ := strings.Cut(strings.TrimSpace(e.Error()), "\n")
		if seen[msg] {
			continue
		}
		seen[msg] = true
		pos, ptr := validationPos(path, doc, msg)
		out = append(out, diag.Diagnostic{Severity: diag.Warning, Pos: pos, Pointer: ptr,
			Message: "spec does not pass strict validation (generating anyway): " + msg})
	}
	return out
}

// disabledCheck reports whether e is an example or a default that breaks
// its schema: checks validate turns off, which kin-openapi still makes for
// an OpenAPI 3.1 document (where a 3.0 one gives nothing). The error is
// found under the context that says where, above any list of errors.
func disabledCheck(e error) bool {
	for ; e != nil; e = errors.Unwrap(e) {
		switch e.(type) {
		case *openapi3.ExampleViolatesSchema, *openapi3.DefaultViolatesSchema:
			return true
		case openapi3.MultiError:
			return false
		}
	}
	return false
}

var (
	invalidOperation = regexp.MustCompile(`^invalid paths: invalid path ([^:]*): invalid operation ([A-Z]+): `)
	invalidSchema    = regexp.MustCompile(`^invalid components: schema "([^"]*)": `)
	conflictingPaths = regexp.MustCompile(`^invalid paths: conflicting paths "[^"]*" and "([^"]*)"`)
)

// validationPos finds the operation or component a validation message is
// about, from the context kin-openapi puts in front of it: its position
// when kin-openapi recorded one, else its JSON pointer, which Locate turns
// into a position.
func validationPos(path string, doc *openapi3.T, msg string) (diag.Pos, string) {
	var o *openapi3.Origin
	ptr := ""
	if m := invalidOperation.FindStringSubmatch(msg); m != nil && doc.Paths != nil {
		ptr = "#/paths/" + jsonpointer.Escape(m[1]) + "/" + strings.ToLower(m[2])
		if item := doc.Paths.Value(m[1]); item != nil {
			if op := item.GetOperation(m[2]); op != nil {
				o = op.Origin
			}
		}
	} else if m := invalidSchema.FindStringSubmatch(msg); m != nil && doc.Components != nil {
		ptr = "#/components/schemas/" + jsonpointer.Escape(m[1])
		if ref := doc.Components.Schemas[m[1]]; ref != nil && ref.Value != nil {
			o = ref.Value.Origin
		}
	} else if m := conflictingPaths.FindStringSubmatch(msg); m != nil {
		ptr = "#/paths/" + jsonpointer.Escape(m[1])
	}
	if o == nil || o.Key == nil || o.Key.Line == 0 {
		return diag.Pos{File: path}, ptr
	}
	return diag.Pos{File: specfile.DisplayPath(o.Key.File, path), Line: o.Key.Line, Col: o.Key.Column}, ""
}

// flattenMulti lists the errors of me and of the lists it holds. A list
// inside an error's chain stays there: the error around it says where
// (a 3.1 schema's "invalid paths: invalid path /x: invalid operation
// POST: invalid default: …" holds the list of what its schema check found).
func flattenMulti(me openapi3.MultiError) []error {
	var out []error
	for _, e := range me {
		if inner, ok := e.(openapi3.MultiError); ok {
			out = append(out, flattenMulti(inner)...)
			continue
		}
		out = append(out, e)
	}
	return out
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
