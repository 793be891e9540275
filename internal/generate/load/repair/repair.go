// Package repair is the loader's repair pass. Real specs break their
// version's rules in a handful of recurring ways (a $ref where the version
// allows none, a description that is a $ref to a Markdown file, `required:
// true` on a schema, Swagger 2.0 `items` written as a list, a response $ref
// into requestBodies, a $ref to a file that is not there). kin-openapi
// refuses the whole document for any of them, or quietly drops what a stray
// $ref stood for. The pass walks the spec's YAML, every file its $refs
// reach, knowing what each node is (shapes.go); it rewrites each defect
// into the shape kin-openapi reads when the intent is unambiguous, or
// leaves out the one part that cannot be read (a schema becomes "any
// value"; an operation whose parameter or body cannot be read is skipped; a
// response, header or example is dropped), and says so with a warning at
// the place. With --strict each of these is an error instead.
//
// It runs only when kin-openapi refused the spec as written, or loaded it
// with a $ref left where nothing follows it: a spec kin-openapi reads as
// it is is not parsed a second time. The files it changes are written back
// with emitInPlace, every node on its own line, so that positions still
// point into the user's files; kin-openapi then loads those.
package repair

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"

	"github.com/go-openapi/jsonpointer"
	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/load/specfile"
)

// Result is what the pass produced.
type Result struct {
	// Files are the rewritten files by location (specfile.Key), the root
	// included when it changed; Shared is the same with schema files
	// arranged to be read once (shared.go), nil when there are none.
	// Warnings say what was repaired or left out, and where.
	Files, Shared map[string][]byte
	Warnings      []diag.Diagnostic
}

type repairer struct {
	*specfile.Set
	root     *specfile.File
	version  string
	v2, v31  bool
	strict   bool
	shapes   map[kind]map[string]slot
	refable  map[kind]bool
	sections map[string]kind

	// done holds each (node, kind) walked and what came of it, so that a
	// part reached through many $refs is repaired, and reported, once.
	done  map[visit]*failure
	diags diag.List
	// defsScopes are the schemas whose $defs a "#/$defs/..." was read
	// against, reported once each.
	defsScopes map[*yaml.Node]bool
	kept       int               // operations of paths read
	skips      []diag.Diagnostic // why operations of paths were left out
	// outside are the files out of the ref root already reported.
	outside map[string]bool
	// uses are the $refs seen, by the file they point into (shared.go).
	uses map[*specfile.File][]use
	used map[*yaml.Node]bool
}

type visit struct {
	n *yaml.Node
	k kind
}

// failure is a part that could not be read: where, and why; cause is the
// error behind it when that is somewhere else.
type failure struct {
	pos   diag.Pos
	why   string
	cause *diag.Diagnostic
}

// ctx is where the walk is.
type ctx struct {
	f    *specfile.File
	ptr  string     // JSON pointer of the node in f
	path string     // the path template, inside a path item
	item *yaml.Node // the path item, inside one (Swagger 2.0's rules need its parameters)
	op   string     // "GET /pets", inside an operation
	// tools is set below the document's paths, whose operations become
	// tools (not webhooks', not callbacks').
	tools bool
	// parent and prop are the object schema and property name a schema
	// is the value of, for `required: true` on a property.
	parent *yaml.Node
	prop   string
	// scopes are the enclosing schemas of f that hold $defs or
	// definitions, innermost last.
	scopes []scope
}

type scope struct {
	n   *yaml.Node
	ptr string
}

func (c ctx) child(key string) ctx {
	c.ptr += "/" + jsonpointer.Escape(key)
	c.parent, c.prop = nil, ""
	return c
}

// Run runs the pass over the spec at loc whose root bytes are data.
// It returns nil when the root does not parse (kin-openapi's error says
// where) or nothing needed repair, and an error for what must stop
// generation: a $ref outside the ref root or to a URL not allowed, any
// repair under --strict, or a spec of which no operation could be read.
func Run(specPath string, data []byte, loc *url.URL, v2 bool, version string, fetch *specfile.Reader, strict bool) (*Result, error) {
	r := &repairer{
		version: version, v2: v2, strict: strict,
		v31:  !v2 && !strings.HasPrefix(version, "3.0"),
		done: map[visit]*failure{}, defsScopes: map[*yaml.Node]bool{}, outside: map[string]bool{},
	}
	r.shapes, r.refable, r.sections = shapes3, refable3, sections3
	if v2 {
		r.shapes, r.refable, r.sections = shapes2, refable2, sections2
	}
	root := &specfile.File{Loc: loc, Key: specfile.Key(loc), Show: specPath, Data: data}
	r.Set = specfile.NewSet(fetch, specPath, root)
	r.root = root
	if r.Parse(root) != nil {
		return nil, nil
	}
	c := ctx{f: root}
	r.object(c, &root.Doc.Content[0], kDoc)
	if r.kept == 0 && len(r.skips) > 0 {
		// Nothing usable remains: the spec is refused, with every reason.
		r.diags.Errorf(diag.Pos{File: specPath}, "", "no operation of the spec could be read; why, for each:")
		for _, d := range r.skips {
			d.Severity = diag.Error
			r.diags.Add(d)
		}
	}
	if err := r.diags.Err(); err != nil {
		return nil, err
	}
	out := &Result{Files: r.emit(), Warnings: r.diags.Warnings()}
	if r.shareSchemaFiles(root) {
		out.Shared = r.emit()
	}
	if len(out.Files) == 0 && len(out.Shared) == 0 && len(out.Warnings) == 0 {
		return nil, nil
	}
	return out, nil
}

// emit writes out every file the pass changed.
func (r *repairer) emit() map[string][]byte {
	out := map[string][]byte{}
	for key, f := range r.ByKey {
		if f.Changed {
			out[key] = emitInPlace(f.Doc)
		}
	}
	return out
}

// --- diagnostics

func (r *repairer) pos(f *specfile.File, n *yaml.Node) diag.Pos {
	if n == nil || n.Line <= 0 {
		return diag.Pos{File: f.Show}
	}
	return diag.Pos{File: f.Show, Line: n.Line, Col: n.Column}
}

// repaired reports a repair: the problem (format, args) and what was done
// about it (past tense), as a warning; under --strict, as an error.
func (r *repairer) repaired(at diag.Pos, action, format string, args ...any) {
	problem := fmt.Sprintf(format, args...)
	if r.strict {
		r.diags.Errorf(at, "", "%s (without --strict, tailor would have %s)", problem, action)
		return
	}
	r.diags.Warnf(at, "", "%s: %s", problem, action)
}

// lost reports a part left out: the failure, and what was done about it.
// Under --strict it is an error at its cause (a syntax error in the file
// a $ref reads, say).
func (r *repairer) lost(f *failure, consequence string) {
	if r.strict {
		if f.cause != nil {
			r.diags.Add(*f.cause)
			return
		}
		r.diags.Errorf(f.pos, "", "%s", f.why)
		return
	}
	r.diags.Warnf(f.pos, "", "%s; %s", f.why, consequence)
}

// --- the walk

// object walks the node at *at as an object of kind k. It returns a
// failure when the object cannot be read at all; the caller decides what
// that costs (see slot).
func (r *repairer) object(c ctx, at **yaml.Node, k kind) *failure {
	n := specfile.Deref(*at)
	if n == nil {
		return &failure{pos: diag.Pos{File: c.f.Show}, why: "a " + k.String() + " is missing"}
	}
	v := visit{n, k}
	if f, ok := r.done[v]; ok {
		return f
	}
	r.done[v] = nil // a cycle back here finds it being walked, and fine
	f := r.walk(c, at, n, k)
	r.done[v] = f
	return f
}

func (r *repairer) walk(c ctx, at **yaml.Node, n *yaml.Node, k kind) *failure {
	if k == kSchema {
		r.schema(c, at, n)
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return &failure{pos: r.pos(c.f, n), why: fmt.Sprintf("a %s must be an object, not %s", k, specfile.KindOf(n))}
	}
	if _, ref := specfile.RefOf(n); ref != nil {
		if r.refable[k] {
			return r.follow(c, at, n, k)
		}
		if f := r.inline(c, at, one(k)); f != nil {
			return f
		}
		n = specfile.Deref(*at)
	}
	if k != kDoc && k != kComponents && k != kCallback {
		r.texts(c, n)
	}
	switch k {
	case kCallback:
		// A map of path items keyed by expressions.
		c.tools = false
		return r.entries(c, n, slot{many: 'm', kind: kPathItem})
	case kPathItem:
		return r.pathItem(c, n)
	}
	if f := r.children(c, n, k); f != nil || k != kOperation || !r.v2 {
		return f
	}
	return r.swagger2Params(c, n)
}

// children walks the keys of n that shapes name for k. A parameter list
// or a request body that cannot be read fails the whole object.
func (r *repairer) children(c ctx, n *yaml.Node, k kind) *failure {
	shape := r.shapes[k]
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		s, ok := shape[key]
		if !ok {
			continue
		}
		cc := c.child(key)
		if k == kDoc {
			cc.tools = key == "paths"
		}
		if f := r.slot(cc, &n.Content[i+1], s); f != nil {
			return f
		}
	}
	return nil
}

// pathItem walks a path item: its parameters (which fail it, and so the
// path), then each operation (which, failing, is skipped alone).
func (r *repairer) pathItem(c ctx, n *yaml.Node) *failure {
	if f := r.children(c, n, kPathItem); f != nil {
		return f
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		method := n.Content[i].Value
		if !methods[method] {
			continue
		}
		oc := c.child(method)
		oc.op = strings.ToUpper(method) + " " + c.path
		oc.item = n
		f := r.object(oc, &n.Content[i+1], kOperation)
		if c.tools && f == nil {
			r.kept++
		}
		if f != nil {
			r.lost(f, "skipped operation "+oc.op)
			if c.tools {
				r.skips = append(r.skips, diag.Diagnostic{Pos: f.pos, Message: f.why + "; skipped operation " + oc.op})
			}
			n.Content = append(n.Content[:i], n.Content[i+2:]...)
			c.f.Changed = true
			i -= 2
		}
	}
	return nil
}

// slot walks what a key holds. A map or list that is itself a $ref is read
// from where it points; entries that cannot be read are dropped, except
// parameters and request bodies, whose failure is their owner's.
func (r *repairer) slot(c ctx, at **yaml.Node, s slot) *failure {
	if s.many == 0 {
		return r.object(c, at, s.kind)
	}
	n := specfile.Deref(*at)
	if n == nil {
		return nil
	}
	if n.Kind == yaml.MappingNode {
		if _, ref := specfile.RefOf(n); ref != nil {
			if f := r.inline(c, at, s); f != nil {
				if s.kind == kParameter {
					return f
				}
				r.lost(f, "read it as empty")
				*at = emptyLike(*at, s)
				c.f.Changed = true
				return nil
			}
			n = specfile.Deref(*at)
		}
	}
	if s.many == 'l' && n.Kind == yaml.MappingNode && len(n.Content) > 0 && s.kind == kParameter {
		// One parameter written where a list of them belongs.
		if specfile.MapValue(n, "name") != nil || specfile.MapValue(n, "$ref") != nil {
			r.repaired(r.pos(c.f, n), "read the mapping as its one entry", "`%s` must be a list, not a mapping", lastToken(c.ptr))
			*at = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{n}}
			c.f.Changed = true
			n = *at
		}
	}
	want := yaml.MappingNode
	if s.many == 'l' {
		want = yaml.SequenceNode
	}
	if n.Kind != want {
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
			return nil
		}
		what := "a map"
		if want == yaml.SequenceNode {
			what = "a list"
		}
		f := &failure{pos: r.pos(c.f, n), why: fmt.Sprintf("`%s` must be %s of %ss, not %s", lastToken(c.ptr), what, s.kind, specfile.KindOf(n))}
		if s.kind == kParameter {
			return f
		}
		r.lost(f, "ignored it")
		*at = emptyLike(*at, s)
		c.f.Changed = true
		return nil
	}
	return r.entries(c, n, s)
}

// entries walks the entries of a map or list n of s.kind.
func (r *repairer) entries(c ctx, n *yaml.Node, s slot) *failure {
	if s.many == 'l' {
		for i := 0; i < len(n.Content); i++ {
			e := n.Content[i]
			if e.Kind == yaml.ScalarNode && e.ShortTag() == "!!null" {
				r.repaired(r.pos(c.f, e), "dropped it", "a null entry in `%s`", lastToken(c.ptr))
				n.Content = append(n.Content[:i], n.Content[i+1:]...)
				c.f.Changed = true
				i--
				continue
			}
			if f := r.object(c.child(strconv.Itoa(i)), &n.Content[i], s.kind); f != nil {
				if s.kind == kParameter {
					return f
				}
				r.lost(f, "dropped this "+s.kind.String())
				n.Content = append(n.Content[:i], n.Content[i+1:]...)
				c.f.Changed = true
				i--
			}
		}
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		if isExtension(key) {
			continue
		}
		ec := c.child(key)
		if s.kind == kPathItem {
			ec.path = key
		}
		f := r.object(ec, &n.Content[i+1], s.kind)
		if f == nil {
			continue
		}
		consequence := fmt.Sprintf("dropped %s %s", s.kind, key)
		if s.kind == kPathItem {
			consequence = "skipped path " + key
			if c.tools {
				r.skips = append(r.skips, diag.Diagnostic{Pos: f.pos, Message: f.why + "; " + consequence})
			}
		}
		if c.op != "" {
			consequence += " of " + c.op
		}
		r.lost(f, consequence)
		n.Content = append(n.Content[:i], n.Content[i+2:]...)
		c.f.Changed = true
		i -= 2
	}
	return nil
}

// emptyLike is an empty map or list in place of n.
func emptyLike(n *yaml.Node, s slot) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
	if s.many == 'l' {
		out.Kind, out.Tag = yaml.SequenceNode, "!!seq"
	}
	return out
}

// follow walks the target of a $ref that kin-openapi will follow itself,
// so that what it points at is repaired too, and answers for a target that
// is missing or of the wrong kind.
func (r *repairer) follow(c ctx, at **yaml.Node, n *yaml.Node, k kind) *failure {
	refKey, refVal := specfile.RefOf(n)
	pos := r.pos(c.f, refKey)
	ref := refVal.Value
	if k == kSchema {
		if rebased := r.rebaseDefs(c, ref); rebased != "" {
			refVal.Value, ref = rebased, rebased
			c.f.Changed = true
		}
	}
	t, holder, tptr, err := r.Resolve(c.f, ref)
	if err != nil {
		return r.unresolved(pos, ref, err)
	}
	r.noteUse(c.f, refVal, t, tptr, k)
	if sect, ok := r.section(tptr); ok && sect != k {
		target := specfile.Deref(*holder)
		if target.Kind == yaml.MappingNode && fitsKind(k, keysOf(target)) {
			r.repaired(pos, "used it as written, since it reads as one", "$ref %q points at a %s where a %s is expected", ref, sect, k)
			cp := r.copyNode(c.f, t, target, k, 0)
			cp.Anchor = n.Anchor
			*at = cp
			c.f.Changed = true
			return r.walk(c, at, cp, k)
		}
		return &failure{pos: pos, why: fmt.Sprintf("$ref %q points at a %s where a %s is expected", ref, sect, k)}
	}
	tc := ctx{f: t, ptr: tptr, path: c.path, op: c.op, tools: c.tools}
	if t == c.f {
		tc.scopes = c.scopes
	}
	return r.object(tc, holder, k)
}

// unresolved is the failure of a $ref that cannot be followed; a $ref out
// of the spec's folder, or to a URL when that is not allowed, stops
// generation instead (the user decides, not the pass).
func (r *repairer) unresolved(pos diag.Pos, ref string, err error) *failure {
	var out *specfile.OutsideRootError
	var rr *specfile.RemoteRefError
	switch {
	case errors.As(err, &out):
		if !r.outside[out.Path] { // once per file: a shared file is named by many $refs
			r.outside[out.Path] = true
			r.diags.Errorf(pos, "", "%s", out.Message(ref))
		}
	case errors.As(err, &rr):
		r.diags.Errorf(pos, "", "remote $ref %q refused: tailor does not fetch URLs named by a spec; run with --allow-remote-refs to allow it", ref)
	}
	var de *diag.Errors
	if errors.As(err, &de) && len(de.List) == 1 {
		d := de.List[0]
		return &failure{pos: pos, why: fmt.Sprintf("cannot resolve $ref %q: %s: %s", ref, d.Pos, d.Message), cause: &d}
	}
	return &failure{pos: pos, why: fmt.Sprintf("cannot resolve $ref %q: %s", ref, r.scrub(err))}
}

// scrub words a read error with the file as the user knows it.
func (r *repairer) scrub(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("cannot read %s: %v", specfile.DisplayPath(filepath.Clean(pe.Path), r.SpecPath()), pe.Err)
	}
	return err.Error()
}

// section is the components section a pointer into a document is in, as
// the kind that section holds.
func (r *repairer) section(ptr string) (kind, bool) {
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	if r.v2 {
		if len(toks) == 2 {
			k, ok := r.sections[toks[0]]
			return k, ok
		}
		return 0, false
	}
	if len(toks) == 3 && toks[0] == "components" {
		k, ok := r.sections[toks[1]]
		return k, ok
	}
	return 0, false
}

// inline replaces a $ref that kin-openapi does not follow (an operation, a
// media type, a map or list of anything) by what it points at. Entries
// that kin-openapi can follow become $refs into the target's file, so
// their positions and relative $refs stay right; the rest is copied.
// Keys written beside the $ref win over the target's.
func (r *repairer) inline(c ctx, at **yaml.Node, s slot) *failure {
	n := specfile.Deref(*at)
	refKey, refVal := specfile.RefOf(n)
	pos := r.pos(c.f, refKey)
	ref := refVal.Value
	t, holder, tptr, err := r.Resolve(c.f, ref)
	if err != nil {
		return r.unresolved(pos, ref, err)
	}
	tc := ctx{f: t, ptr: tptr, path: c.path, op: c.op, tools: c.tools}
	if f := r.slot(tc, holder, s); f != nil {
		return f
	}
	target := specfile.Deref(*holder)
	built := r.graft(c.f, t, target, tptr, s, 0)
	if built.Kind != yaml.MappingNode && len(n.Content) > 2 {
		return &failure{pos: pos, why: fmt.Sprintf("$ref %q points at %s, which cannot take the keys beside it", ref, specfile.KindOf(target))}
	}
	siblings := 0
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i] == refKey {
			continue
		}
		setKey(built, n.Content[i], n.Content[i+1])
		siblings++
	}
	built.Anchor = n.Anchor
	*at = built
	c.f.Changed = true

	// The message names neither the target nor the count, so that the same
	// repair in many places (lob's 50 content $refs, rebilly's 149 webhook
	// operations) collapses into one warning with a count.
	what := "`" + lastToken(c.ptr) + "`"
	read := "read what it points at"
	if s.many == 0 {
		what = "this " + s.kind.String()
		read = "read the " + s.kind.String() + " it points at"
	}
	if siblings > 0 {
		read += "; the keys beside the $ref win over the ones it points at"
	}
	r.repaired(pos, read, "%s is a $ref, which OpenAPI %s does not allow there", what, r.version)
	return nil
}

// setKey sets key to value in mapping m, replacing an entry of that name.
func setKey(m, key, value *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key.Value {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			break
		}
	}
	m.Content = append(m.Content, key, value)
}

// --- text

// texts repairs description, summary and title written as something other
// than text: a $ref becomes the text of what it points at (a Markdown file,
// say); anything else is dropped.
func (r *repairer) texts(c ctx, n *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		v := specfile.Deref(n.Content[i+1])
		if !texts[key] || v.Kind == yaml.ScalarNode {
			continue
		}
		_, ref := specfile.RefOf(v)
		if v.Kind == yaml.MappingNode && ref != nil {
			text, err := r.textOf(c.f, ref.Value, r.pos(c.f, n.Content[i]))
			if err == nil {
				r.repaired(r.pos(c.f, n.Content[i]), "used the text it points at", "`%s` is a $ref (to %s) where OpenAPI wants text", key, ref.Value)
				n.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: text, Line: v.Line, Column: v.Column}
				c.f.Changed = true
				continue
			}
			r.repaired(r.pos(c.f, n.Content[i]), "dropped it", "`%s` is a $ref (to %s) where OpenAPI wants text, and it cannot be followed (%v)", key, ref.Value, err)
		} else {
			r.repaired(r.pos(c.f, n.Content[i]), "dropped it", "`%s` must be text, not %s", key, specfile.KindOf(v))
		}
		n.Content = append(n.Content[:i], n.Content[i+2:]...)
		c.f.Changed = true
		i -= 2
	}
}

// textOf is the text a $ref in a text slot points at: a string in a YAML
// or JSON file, or the whole of any other file (Markdown, plain text).
func (r *repairer) textOf(f *specfile.File, ref string, pos diag.Pos) (string, error) {
	p, frag, _ := strings.Cut(ref, "#")
	if frag == "" && p != "" {
		u, err := url.Parse(p)
		if err != nil {
			return "", err
		}
		t, err := r.File(f.Loc.ResolveReference(u))
		if err != nil {
			if fe := r.unresolved(pos, ref, err); fe != nil {
				return "", errors.New(strings.TrimPrefix(fe.why, fmt.Sprintf("cannot resolve $ref %q: ", ref)))
			}
			return "", err
		}
		switch strings.ToLower(path.Ext(t.Loc.Path)) {
		case ".yaml", ".yml", ".json":
		default:
			if !utf8.Valid(t.Data) {
				return "", errors.New("it is not UTF-8 text")
			}
			return strings.TrimRight(string(t.Data), "\n"), nil
		}
	}
	_, holder, _, err := r.Resolve(f, ref)
	if err != nil {
		return "", err
	}
	v := specfile.Deref(*holder)
	if v.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("it points at %s", specfile.KindOf(v))
	}
	return v.Value, nil
}

// --- helpers

func keysOf(n *yaml.Node) []string {
	var out []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, n.Content[i].Value)
	}
	return out
}

func lastToken(ptr string) string {
	return jsonpointer.Unescape(ptr[strings.LastIndexByte(ptr, '/')+1:])
}
