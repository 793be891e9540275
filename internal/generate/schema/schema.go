// Package schema translates OpenAPI schemas (3.0 and 3.1, as kin-openapi
// reads them) into self-contained JSON Schema 2020-12 documents, the dialect
// MCP tool schemas use.
//
// Every $ref becomes a local "#/$defs/Name" reference, so a tool schema never
// points outside itself (go-sdk refuses remote refs) and cyclic component
// graphs (stripe, kubernetes) need no special handling: a cycle is just a
// $ref back to a def already being collected. Component conversions are
// cached per mode, so a spec whose 700 operations share the same components
// converts each component once.
package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tailormcp/tailor/internal/jsonv"
)

// Mode says which direction a schema describes: what the model sends
// (readOnly properties dropped) or what the API returns (writeOnly dropped).
type Mode int

const (
	Input Mode = iota
	Output
)

// Warner receives problems that were fixed up during translation, with the
// place in the spec of the keyword concerned when the loader recorded it
// (at is nil otherwise).
type Warner func(at *openapi3.Location, msg string)

// Converter translates schemas of one spec. It is not safe for concurrent
// use, but for Doc.Marshal of documents whose conversions are done, while
// no conversion runs.
type Converter struct {
	warn Warner
	// names gives each referenced schema one $defs name for the whole spec,
	// so the same component reads the same in every tool.
	names map[*openapi3.Schema]string
	taken map[string]bool
	// cache holds converted components per mode, and the defs each one
	// refers to directly.
	cache [2]map[string]*def
	// warned de-duplicates warnings about shared components.
	warned map[string]bool
	// targets maps the place an OpenAPI 3.1 $ref points at to the schema
	// there (see UseDocument); nil for earlier versions, where kin-openapi
	// never copies a schema for the keywords beside its $ref.
	targets map[string]*openapi3.Schema
	// place finds a keyword's place when the loader kept no origins (see
	// SetPlacer); nil otherwise.
	place Placer
}

// Placer finds where the spec spells a keyword of a schema loaded without
// origins: node is the *openapi3.Schema, or the *openapi3.SchemaRef of a
// $ref with siblings; keyword "" is the schema itself. Nil when unknown.
type Placer func(node any, keyword string) *openapi3.Location

// SetPlacer makes the converter ask place for the positions of schemas
// the loader recorded none for.
func (c *Converter) SetPlacer(place Placer) { c.place = place }

type def struct {
	// value is the converted component, nil once encoded (json).
	value any
	refs  []string
	// json is value encoded (Marshal), nil until first needed: a
	// component reached by hundreds of tools is encoded once, and each
	// tool's document splices it in. size is its size as json.Marshal
	// writes it, which is what the budget has always counted: the <, >
	// and & in strings it escapes as \u003c (six bytes each).
	json []byte
	size int
	once sync.Once
}

// encoded is a cached component, encoded once.
func (c *Converter) encoded(mode Mode, name string) *def {
	df := c.cache[mode][name]
	df.once.Do(func() {
		df.json = Marshal(df.value)
		df.size = len(df.json) + 5*bytesAny(df.json, "<>&")
		// Only the bytes are read from here on (Marshal splices them,
		// Defs gives them as they are): the value would stay live through
		// the rest of the conversions for nothing.
		df.value = nil
	})
	return df
}

// bytesAny counts the bytes of b that are any of chars.
func bytesAny(b []byte, chars string) int {
	n := 0
	for {
		i := bytes.IndexAny(b, chars)
		if i < 0 {
			return n
		}
		n++
		b = b[i+1:]
	}
}

// NewConverter returns a converter that reports fix-ups to warn (may be nil).
func NewConverter(warn Warner) *Converter {
	if warn == nil {
		warn = func(*openapi3.Location, string) {}
	}
	return &Converter{
		warn:   warn,
		names:  map[*openapi3.Schema]string{},
		taken:  map[string]bool{},
		cache:  [2]map[string]*def{{}, {}},
		warned: map[string]bool{},
	}
}

// Doc builds one self-contained schema document (a tool's input or output).
type Doc struct {
	c    *Converter
	mode Mode
	refs map[string]bool
	// Budget, when positive, bounds the size in bytes of $defs: components
	// are spelled out level by level ($ref hops from the root) while the
	// total stays within it, and components
	// further away become permissive placeholders. Output schemas of APIs
	// with rich, cross-linked objects (stripe) otherwise run to hundreds of
	// kilobytes per tool while adding nothing the model needs; a placeholder
	// accepts any value, so the structured result still conforms.
	Budget int
}

// NewDoc starts a document in the given mode.
func (c *Converter) NewDoc(mode Mode) *Doc {
	return &Doc{c: c, mode: mode, refs: map[string]bool{}}
}

// Convert translates ref into a JSON Schema value (map, or bool for the
// boolean schemas). References it makes are remembered for Defs.
func (d *Doc) Convert(ref *openapi3.SchemaRef) any {
	return d.c.convertRef(ref, d.mode, d.note)
}

// Resolve follows ref to its schema value (nil when absent).
func Resolve(ref *openapi3.SchemaRef) *openapi3.Schema {
	if ref == nil {
		return nil
	}
	return ref.Value
}

func (d *Doc) note(name string) { d.refs[name] = true }

// Defs returns the $defs object: every component the converted values refer
// to, transitively, each as its encoded JSON (a json.RawMessage), or the
// placeholder object of one past the budget. It is nil when there are none.
func (d *Doc) Defs() map[string]any {
	entries := d.entries()
	if len(entries) == 0 {
		return nil
	}
	out := make(map[string]any, len(entries))
	for _, e := range entries {
		out[e.name] = e.value()
	}
	return out
}

// defEntry is one member of $defs: a cached component, or (df nil) the
// placeholder of one past the budget.
type defEntry struct {
	name string
	df   *def
}

func (e defEntry) value() any {
	if e.df == nil {
		return map[string]any{"description": "A " + e.name + " (its fields are not spelled out here)."}
	}
	return json.RawMessage(e.df.json) // entries encoded it
}

// entries lists the members of $defs, level by level ($ref hops from the
// root) while they fit the budget, then placeholders.
func (d *Doc) entries() []defEntry {
	if len(d.refs) == 0 {
		return nil
	}
	var out []defEntry
	done := map[string]bool{}
	level := make([]string, 0, len(d.refs))
	for n := range d.refs {
		level = append(level, n)
	}
	sort.Strings(level)
	size := 0
	cut := false
	for depth := 1; len(level) > 0; depth++ {
		var fresh []string
		levelSize := 0
		for _, n := range level {
			if done[n] {
				continue
			}
			done[n] = true
			fresh = append(fresh, n)
			levelSize += d.c.encoded(d.mode, n).size
		}
		if d.Budget > 0 && size+levelSize > d.Budget {
			cut = true
		}
		size += levelSize
		var next []string
		for _, n := range fresh {
			if cut {
				out = append(out, defEntry{name: n})
				continue
			}
			df := d.c.cache[d.mode][n]
			out = append(out, defEntry{name: n, df: df})
			next = append(next, df.refs...)
		}
		sort.Strings(next)
		level = next
	}
	return out
}

// Marshal encodes root, a converted document's root object, with its
// $defs (Defs) as JSON (documents of one converter may be encoded at once,
// when no conversion runs beside them): what Marshal gives for root with "$defs": Defs()
// set, built from each component's bytes encoded once per converter
// rather than from the values again for every tool.
func (d *Doc) Marshal(root map[string]any) []byte {
	entries := d.entries()
	if len(entries) == 0 {
		return Marshal(root)
	}
	for k := range root {
		if k <= "$defs" {
			// $defs would not be the first member (never so in the
			// generator's roots): encode the whole.
			cp := make(map[string]any, len(root)+1)
			for k, v := range root {
				cp[k] = v
			}
			cp["$defs"] = d.Defs()
			return Marshal(cp)
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	rest := Marshal(root)
	parts := make([][]byte, len(entries))
	n := len(`{"$defs":{}`) + len(rest)
	for i, e := range entries {
		if e.df == nil {
			parts[i] = Marshal(e.value())
		} else {
			parts[i] = e.df.json
		}
		n += len(e.name) + 4 + len(parts[i])
	}
	b := make([]byte, 0, n)
	b = append(b, `{"$defs":{`...)
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		// A $defs name is [A-Za-z0-9_.-]+ (defName): quoted as it is.
		b = append(b, '"')
		b = append(b, e.name...)
		b = append(b, '"', ':')
		b = append(b, parts[i]...)
	}
	b = append(b, '}')
	if len(rest) > 2 {
		b = append(b, ',')
	}
	return append(b, rest[1:]...)
}

type noteFunc func(name string)

func (c *Converter) convertRef(ref *openapi3.SchemaRef, mode Mode, note noteFunc) any {
	if ref == nil || ref.Value == nil {
		return map[string]any{}
	}
	if ref.Ref == "" {
		return c.convert(ref.Value, mode, note)
	}
	if out := c.convertSiblings(ref, mode, note); out != nil {
		return out
	}
	return map[string]any{"$ref": "#/$defs/" + c.component(ref, ref.Value, mode, note)}
}

// component converts value, the schema ref points at, once per mode as a
// $defs entry and returns its name.
func (c *Converter) component(ref *openapi3.SchemaRef, value *openapi3.Schema, mode Mode, note noteFunc) string {
	name := c.defName(ref, value)
	note(name)
	if _, done := c.cache[mode][name]; !done {
		df := &def{}
		// Registered before converting so that a cycle back to this
		// component finds it and stops.
		c.cache[mode][name] = df
		seen := map[string]bool{}
		df.value = c.convert(value, mode, func(n string) {
			if !seen[n] {
				seen[n] = true
				df.refs = append(df.refs, n)
			}
		})
		sort.Strings(df.refs)
	}
	return name
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// defName gives value, the schema ref points at, its $defs name, derived
// from the last segment of the $ref and made unique across the spec. Names
// are handed out in the order schemas are first converted, which is the
// order of operations, parameters and (sorted) property names, so that the
// same spec always gets the same names.
func (c *Converter) defName(ref *openapi3.SchemaRef, value *openapi3.Schema) string {
	if n, ok := c.names[value]; ok {
		return n
	}
	r, frag, _ := strings.Cut(ref.Ref, "#")
	var base string
	switch {
	case strings.HasPrefix(frag, "/components/schemas/"):
		base = strings.ReplaceAll(strings.TrimPrefix(frag, "/components/schemas/"), "/", "_")
	case strings.HasPrefix(frag, "/definitions/"):
		base = strings.ReplaceAll(strings.TrimPrefix(frag, "/definitions/"), "/", "_")
	case frag != "":
		segs := strings.Split(strings.Trim(frag, "/"), "/")
		base = segs[len(segs)-1]
	default:
		base = r[strings.LastIndexAny(r, "/\\")+1:]
		if i := strings.LastIndexByte(base, '.'); i > 0 {
			base = base[:i]
		}
	}
	base = strings.ReplaceAll(strings.ReplaceAll(base, "~1", "_"), "~0", "_")
	base = strings.Trim(unsafeName.ReplaceAllString(base, "_"), "_")
	if base == "" {
		base = "schema"
	}
	name := base
	for i := 2; c.taken[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	c.taken[name] = true
	c.names[value] = name
	return name
}

// convert translates one schema value, keyword group by keyword group
// (keywords.go); nested refs go through convertRef.
func (c *Converter) convert(s *openapi3.Schema, mode Mode, note noteFunc) any {
	if s.Always != nil {
		return *s.Always || mode == Output
	}
	k := &keywords{c: c, s: s, mode: mode, note: note, out: map[string]any{}}
	k.typ()
	k.annotations()
	k.numbers()
	k.text()
	k.arrays()
	k.objects()
	k.composition()
	if mode == Output {
		describeOnly(k.out)
	}
	// A 3.0 nullable schema without a type (e.g. `nullable: true` next to
	// allOf) still admits null.
	if s.Nullable && len(k.types) == 0 && hasComposition(s) {
		return map[string]any{"anyOf": []any{k.out, map[string]any{"type": "null"}}}
	}
	return k.out
}

// Skip reports whether a property is left out in mode: readOnly ones are not
// the model's to send; writeOnly ones never come back.
func Skip(p *openapi3.SchemaRef, mode Mode) bool {
	if p == nil || p.Value == nil {
		return false
	}
	if mode == Input {
		return p.Value.ReadOnly
	}
	return p.Value.WriteOnly
}

func hasComposition(s *openapi3.Schema) bool {
	return len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0
}

func boolSchema(b openapi3.BoolSchema, sub func(*openapi3.SchemaRef) any) any {
	if b.Schema != nil {
		return sub(b.Schema)
	}
	if b.Has != nil {
		return *b.Has
	}
	return nil
}

// warnOnce reports a fix-up once per place: a component shared by many
// operations is converted once per direction, and its problem is one
// problem. Without a place, the message alone identifies it.
func (c *Converter) warnOnce(at *openapi3.Location, msg string) {
	k := msg
	if at != nil {
		k = fmt.Sprintf("%s:%d:%d %s", at.File, at.Line, at.Column, msg)
	}
	if c.warned[k] {
		return
	}
	c.warned[k] = true
	c.warn(at, msg)
}

// field is where s spells the keyword name, when known.
func (c *Converter) field(s *openapi3.Schema, name string) *openapi3.Location {
	return c.fieldOf(s, s, name)
}

// fieldOf is field for a schema that, without origins, is placed as node.
func (c *Converter) fieldOf(s *openapi3.Schema, node any, name string) *openapi3.Location {
	if s.Origin == nil {
		if c.place != nil {
			return c.place(node, name)
		}
		return nil
	}
	if loc, ok := s.Origin.Fields.Lookup(name); ok && loc.Line > 0 {
		return &loc
	}
	return c.key(s)
}

// key is where s itself starts, when known.
func (c *Converter) key(s *openapi3.Schema) *openapi3.Location {
	if s.Origin == nil && c.place != nil {
		return c.place(s, "")
	}
	if s.Origin == nil || s.Origin.Key == nil || s.Origin.Key.Line == 0 {
		return nil
	}
	return s.Origin.Key
}

// fits reports whether a default value agrees with the schema's types and
// enum; clients and validators reject schemas whose default does not.
func fits(v any, types []string, enum []any) (bool, string) {
	if len(enum) > 0 {
		found := false
		for _, e := range enum {
			if jsonv.Text(e) == jsonv.Text(v) {
				found = true
				break
			}
		}
		if !found {
			return false, "not one of the enum values"
		}
	}
	if len(types) == 0 {
		return true, ""
	}
	have := jsonType(v)
	for _, t := range types {
		if t == have || (t == "number" && have == "integer") {
			return true, ""
		}
	}
	return false, fmt.Sprintf("it is %s but the schema's type is %s", withArticle(have), strings.Join(types, " or "))
}

// withArticle is a JSON type's name after "a" or "an" (null stands alone).
func withArticle(name string) string {
	if name == "null" {
		return name
	}
	if strings.IndexByte("aeiou", name[0]) >= 0 {
		return "an " + name
	}
	return "a " + name
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return "integer"
		}
		return "number"
	case int, int32, int64, uint64:
		return "integer"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// sortedKeys lists a map's names in order: converting a schema has
// effects (the $defs names it hands out, the warnings it gives) whose order
// must not depend on Go's map iteration.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SetWarner replaces the function fix-ups are reported to, so that each
// operation's warnings name that operation.
func (c *Converter) SetWarner(warn Warner) {
	if warn == nil {
		warn = func(*openapi3.Location, string) {}
	}
	c.warn = warn
}
