package load

// The validation cache exists because kin-openapi's strict validation only
// ever produces warnings, yet costs CPU on every run: stripe.yaml's takes
// ~0.3 s (it took ~1.35 s, the critical path, until validationView), so a
// generation uses ~1.2 s of CPU instead of ~0.9 s, and on one core takes
// ~1.15 s instead of ~0.85 s. In `go generate` loops and CI the same spec is
// generated again and again (only the overlay changes), so its warnings are
// computed once per spec content and printed again from the cache.
//
// The key is a SHA-256 over everything the warnings depend on: this
// validation's version (validationVersion), the kin-openapi and tailor
// module versions, the binary's build ID (cache.Build) and the Go
// version; the root spec's path as given, its absolute path and the
// working directory (warnings name files the way the user did); the root spec's bytes (after an overlay's actions); and the
// location and bytes of every file or URL the loader read through $refs
// (remote refs included: they are fetched during loading anyway, so their
// content is part of the key like a local file's). An entry holds the
// warnings as JSON, kept by internal/cache (written to a temporary file and
// renamed, so concurrent runs are safe; an entry that cannot be read or
// does not match is recomputed and rewritten, and failing to write one
// never fails generation), under <dir>/validation/.
//
// <dir> is $TAILOR_CACHE, else os.UserCacheDir()/tailor; TAILOR_CACHE=off
// (or no cache directory) turns the cache off.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tailormcp/tailor/internal/cache"
	"github.com/tailormcp/tailor/internal/diag"
)

// validationVersion names what validate does. Bump it whenever validate's
// options or message handling, or what the loader does to the document
// before validation (loader settings, Swagger 2.0 conversion), change.
const validationVersion = "4"

// kinVersion is kin-openapi's version when the binary carries no build
// information (test binaries do not); a test keeps it equal to go.mod's.
const kinVersion = "v0.153.0"

// validateCalls counts validate runs, so that tests can tell a cache hit
// from a miss.
var validateCalls atomic.Int64

// readLog records what a loader read through its ReadFromURIFunc.
type readLog struct {
	mu     sync.Mutex
	reads  []string // location and SHA-256 of the bytes
	failed bool     // a read failed: what was used is not known
}

func (r *readLog) wrap(read openapi3.ReadFromURIFunc) openapi3.ReadFromURIFunc {
	return func(l *openapi3.Loader, location *url.URL) ([]byte, error) {
		data, err := read(l, location)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err != nil {
			r.failed = true
		} else {
			sum := sha256.Sum256(data)
			r.reads = append(r.reads, fmt.Sprintf("%q %x", location.String(), sum))
		}
		return data, err
	}
}

// validationCache is where one spec's warnings are kept; nil when the cache
// is off, which every method allows.
type validationCache struct {
	entry *cache.Entry
}

// openCache returns the cache entry of the spec at path whose root bytes
// hash to sum and whose loader read what reads recorded, or nil when the
// cache is off or the result could not be keyed.
func openCache(path string, sum [sha256.Size]byte, reads *readLog) *validationCache {
	if cache.Dir() == "" || reads.failed {
		return nil
	}
	abs, err1 := filepath.Abs(path)
	wd, err2 := os.Getwd()
	if err1 != nil || err2 != nil {
		return nil
	}
	h := sha256.New()
	// The binary's build ID, where it has one, changes with tailor's (and
	// kin-openapi's) code even in a source checkout, whose module version
	// is "(devel)" whatever it validates.
	fmt.Fprintf(h, "tailor validation %q\nkin-openapi %q\ntailor %q %q\ngo %q\n", validationVersion,
		moduleVersion("github.com/getkin/kin-openapi", kinVersion), moduleVersion("github.com/tailormcp/tailor", ""), cache.Build(), runtime.Version())
	fmt.Fprintf(h, "spec %q %q %q %x\n", path, abs, wd, sum)
	reads.mu.Lock()
	refs := slices.Compact(slices.Sorted(slices.Values(reads.reads)))
	reads.mu.Unlock()
	for _, r := range refs {
		fmt.Fprintf(h, "ref %s\n", r)
	}
	key := hex.EncodeToString(h.Sum(nil))
	return &validationCache{entry: cache.Open("validation", key, key)}
}

// moduleVersion is the version of module path the binary was built with,
// or fallback.
func moduleVersion(path, fallback string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return fallback
	}
	for _, m := range append([]*debug.Module{&bi.Main}, bi.Deps...) {
		if m.Path != path {
			continue
		}
		if m.Replace != nil {
			return m.Replace.Path + "@" + m.Replace.Version
		}
		return m.Version
	}
	return fallback
}

// load returns the cached warnings, if there are any for c's key.
func (c *validationCache) load() ([]diag.Diagnostic, bool) {
	if c == nil {
		return nil, false
	}
	data, ok := c.entry.Read()
	if !ok {
		return nil, false
	}
	var ws []diag.Diagnostic
	if err := json.Unmarshal(data, &ws); err != nil {
		return nil, false
	}
	return ws, true
}

// validate runs validate, places what it found (locate), and stores the
// warnings.
func (c *validationCache) validate(path string, doc *openapi3.T, locate func([]diag.Diagnostic) []diag.Diagnostic) []diag.Diagnostic {
	ws, complete := validate(path, doc)
	ws = locate(ws)
	if complete {
		c.store(ws)
	}
	return ws
}

// store writes the entry; any failure leaves the cache as it was.
func (c *validationCache) store(ws []diag.Diagnostic) {
	if c == nil {
		return
	}
	data, err := json.Marshal(ws)
	if err != nil {
		return
	}
	// Only what reads back the same is kept (JSON would replace invalid
	// UTF-8 in a file name, say).
	var back []diag.Diagnostic
	if json.Unmarshal(data, &back) != nil || !slices.Equal(back, ws) {
		return
	}
	c.entry.Write(data)
}
