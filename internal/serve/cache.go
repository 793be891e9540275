package serve

// The tool-set cache exists because tailor serve's start is the pipeline:
// loading, modelling and curating stripe takes ~0.55 s, the generated
// server starts in ~65 ms. A developer restarts serve with the same spec
// and overlay again and again (an MCP client spawns it for every session),
// so the lowered tool set and the warnings are kept after the first start,
// and a start with unchanged inputs reads them back and serves at once,
// without loading the spec.
//
// The key (keys) is a SHA-256 over everything the result depends on: the
// binary (internal/cache.Build: the Go build ID, which changes with any of
// tailor's code or dependencies) and the Go version; the working directory
// and the options as given (paths, --name, --env-prefix, --ref-root,
// --allow-remote-refs, --no-validate, every field of generator.Options,
// since warnings name files the way the user did); the root spec's bytes
// and the overlay's. The files the spec's $refs read are not known before
// loading: the entry lists them with the SHA-256 of what was read
// (load.Spec.Sources), and a hit reads each again through the loader's own
// confinement (load.Unchanged); one that changed, moved out of the ref
// root or went away makes it a miss. A load that read a remote URL, or
// failed to read a file, is not cached: what it used is not a list of
// files. No environment variable changes what the pipeline computes.
//
// The payload is gob: stripe's 2.8 MB of schemas are strings it copies,
// read back in 6 ms (14 ms in a fresh process, which compiles the types
// first; encoding/json takes ~100 ms over the same entry, and a format of
// our own would save a few ms of a ~50 ms start, at the price of a codec to
// keep in step with mcpkit.Tool).
// Gob reads an empty slice back as nil; mcpkit reads the tool set's
// slices and maps by length, so that is the same tool set, except inside
// an error rule's body matcher, where [] and null differ: store checks that
// what it wrote reads back as the same tool set (sameValue) and caches
// nothing otherwise. The entry itself is internal/cache's: checked by key
// and checksum, written atomically; any entry that cannot be read is a
// miss, and failing to write one never fails a start.

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/cache"
	"github.com/tailormcp/tailor/internal/generate/load"
	"github.com/tailormcp/tailor/internal/generate/lower"
)

// formatVersion names the entry's layout; bump it when entry changes in a
// way gob would still read.
const formatVersion = "1"

// Program is a tool set ready to serve: the lowered tools and the
// warnings the pipeline printed for them.
type Program struct {
	Server *lower.Server
	// Warnings are the pipeline's warnings, one printed line each.
	Warnings []string
	// Cached says the program was read from the cache, without loading.
	Cached bool
}

// Compile runs the pipeline for opts and lowers its tool set, or reads the
// result of an earlier run with the same inputs from the cache. Errors are
// the pipeline's.
func Compile(opts generator.Options) (*Program, error) {
	c := openCache(opts)
	cached := c.load()
	if cached != nil {
		return cached, nil
	}
	if c != nil {
		opts.SpecData = c.spec // the bytes the key names
	}
	out, err := generator.Run(opts)
	if err != nil {
		return nil, err
	}
	p := &Program{Server: lower.Of(out.Curated)}
	for _, w := range out.Warnings() {
		p.Warnings = append(p.Warnings, w.String())
	}
	c.store(out, p)
	return p, nil
}

// entry is what the cache keeps of a run.
type entry struct {
	// Sources are the files the spec's $refs read.
	Sources  []load.Source
	Warnings []string
	Server   *lower.Server
}

func init() {
	// The values an error rule's body matcher holds (lower.goValue).
	gob.Register([]any{})
	gob.Register(map[string]any{})
}

// toolSetCache is one start's entry; nil when the cache is off or the
// inputs could not be keyed, which every method allows.
type toolSetCache struct {
	entry         *cache.Entry
	spec          []byte
	overlaySHA256 string
	specPath      string
	refRoot       string
}

// openCache reads the inputs the key names and returns the entry for
// them.
func openCache(opts generator.Options) *toolSetCache {
	build := cache.Build()
	if cache.Dir() == "" || build == "" || opts.SpecData != nil || opts.SpecFiles != nil {
		return nil
	}
	spec, err := os.ReadFile(opts.SpecPath)
	if err != nil {
		return nil // the pipeline says what is wrong
	}
	var overlay []byte
	if opts.OverlayPath != "" {
		if overlay, err = os.ReadFile(opts.OverlayPath); err != nil {
			return nil
		}
	}
	slot, key, ok := keys(build, opts, spec, overlay)
	if !ok {
		return nil
	}
	c := &toolSetCache{entry: cache.Open("serve", slot, key), spec: spec, specPath: opts.SpecPath, refRoot: opts.RefRoot}
	if opts.OverlayPath != "" {
		sum := sha256.Sum256(overlay)
		c.overlaySHA256 = hex.EncodeToString(sum[:])
	}
	return c
}

// keys returns the entry's slot and key (see internal/cache), hex
// SHA-256s: the slot's over where the inputs are and how they are used
// (the working directory, the spec's path, the options as given), so that
// an edited spec or overlay, or a new tailor, replaces the entry of the
// one before; the key's over that and what the tool set depends on, the
// $refs' files aside (entry.Sources): the binary, the Go version, the
// spec's and the overlay's bytes.
func keys(build string, opts generator.Options, spec, overlay []byte) (slot, key string, ok bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", "", false
	}
	abs, err := filepath.Abs(opts.SpecPath)
	if err != nil {
		return "", "", false
	}
	opts.SpecData, opts.SpecFiles = nil, nil
	options, err := json.Marshal(opts)
	if err != nil {
		return "", "", false
	}
	where := fmt.Sprintf("tailor serve tool set %q\nwd %q\nspec %q\noptions %s\n", formatVersion, wd, abs, options)
	h := sha256.New()
	io.WriteString(h, where)
	fmt.Fprintf(h, "binary %q\ngo %q\nspec bytes %x\n", build, runtime.Version(), sha256.Sum256(spec))
	if opts.OverlayPath != "" {
		fmt.Fprintf(h, "overlay bytes %x\n", sha256.Sum256(overlay))
	}
	slotSum := sha256.Sum256([]byte(where))
	return hex.EncodeToString(slotSum[:]), hex.EncodeToString(h.Sum(nil)), true
}

// load returns the cached program, or nil on a miss.
func (c *toolSetCache) load() *Program {
	if c == nil {
		return nil
	}
	data, ok := c.entry.Read()
	if !ok {
		return nil
	}
	e, ok := decode(data)
	if !ok || e.Server == nil || !load.Unchanged(c.specPath, c.refRoot, e.Sources) {
		return nil
	}
	return &Program{Server: e.Server, Warnings: e.Warnings, Cached: true}
}

// decode reads an entry; a payload gob refuses (or panics on) is no entry.
func decode(data []byte) (e entry, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	err := gob.NewDecoder(bytes.NewReader(data)).Decode(&e)
	if err == nil && e.Server != nil {
		lower.ShareSchemas(e.Server)
		for _, t := range e.Server.Tools {
			if t != nil && t.Def != nil {
				for _, r := range t.Def.Errors {
					for k, v := range r.Body {
						r.Body[k] = emptyLists(v)
					}
				}
			}
		}
	}
	return e, err == nil
}

// emptyLists undoes what gob does to an error rule's body matcher: it
// reads an empty list back as a nil one, which the matcher would compare
// as JSON null. A matcher holds values as encoding/json decodes them, where
// null is a nil interface and a list is never a nil slice, so every nil
// slice read back was an empty list.
func emptyLists(v any) any {
	switch x := v.(type) {
	case []any:
		if x == nil {
			return []any{}
		}
		for i := range x {
			x[i] = emptyLists(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = emptyLists(x[k])
		}
	}
	return v
}

// store keeps p as the entry of out's inputs, when they can be listed and
// what is written reads back as the same tool set.
func (c *toolSetCache) store(out *generator.Output, p *Program) {
	if c == nil {
		return
	}
	// The overlay generator.Run read must be the one the key names (it
	// may have changed since openCache read it).
	if c.overlaySHA256 != "" && (out.Overlay == nil || out.Overlay.SHA256 != c.overlaySHA256) {
		return
	}
	sources, ok := out.Spec.Sources()
	if !ok {
		return
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(entry{Sources: sources, Warnings: p.Warnings, Server: p.Server}) != nil {
		return
	}
	back, ok := decode(buf.Bytes())
	if !ok || !sameValue(reflect.ValueOf(back.Server), reflect.ValueOf(p.Server), false) || !sameValue(reflect.ValueOf(back.Warnings), reflect.ValueOf(p.Warnings), false) {
		return
	}
	c.entry.Write(buf.Bytes())
}

// sameValue reports whether a, read back from gob, is the tool set value
// b: equal, except that an empty slice or map may have become nil (or the
// other way round) where mcpkit reads it by length, which is everywhere
// but inside an interface value (an error rule's body matcher, where a
// JSON [] is not null). Unexported fields and functions are not written
// and not compared (the lowered tools carry none that is set).
func sameValue(a, b reflect.Value, inAny bool) bool {
	if a.Kind() != b.Kind() || a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem(), inAny)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem(), true)
	case reflect.Slice:
		if a.Len() != b.Len() || inAny && a.IsNil() != b.IsNil() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i), inAny) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() || inAny && a.IsNil() != b.IsNil() {
			return false
		}
		for it := a.MapRange(); it.Next(); {
			v := b.MapIndex(it.Key())
			if !v.IsValid() || !sameValue(it.Value(), v, inAny) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range a.NumField() {
			if f := a.Type().Field(i); !f.IsExported() || f.Type.Kind() == reflect.Func {
				continue
			}
			if !sameValue(a.Field(i), b.Field(i), inAny) {
				return false
			}
		}
		return true
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return false // never in a tool set
	}
	return a.Equal(b)
}
