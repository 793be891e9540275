package load

import (
	"net/url"
	"path/filepath"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/load/specfile"
)

// sources are the spec's files, the root and every local file its $refs
// reach, read again to find where a load error is. Only the error path
// builds them.
type sources struct {
	fetch    *specfile.Reader
	specPath string // the root as the user named it
	root     *source
	files    []*source // root first, then in the order $refs reach them
	walked   bool
}

type source struct {
	abs       string
	show      string // as printed in messages
	data      []byte
	node      *yaml.Node // nil when the file does not parse
	syntaxErr error
}

// maxSources bounds how many files an error search reads.
const maxSources = 64

func newSources(path string, data []byte, fetch *specfile.Reader) *sources {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	s := &sources{specPath: path, fetch: fetch}
	s.root = s.parse(abs, path, data)
	s.files = []*source{s.root}
	return s
}

func (s *sources) parse(abs, show string, data []byte) *source {
	f := &source{abs: abs, show: show, data: data}
	if specfile.LooksLikeJSON(data) {
		// JSON's own parser words JSON syntax errors best.
		if err := specfile.SyntaxError(show, data); err != nil {
			f.syntaxErr = err
			return f
		}
	}
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		// Valid JSON that YAML rejects still loads (kin-openapi falls back
		// to JSON); it just has no node tree to search.
		if !specfile.LooksLikeJSON(data) {
			f.syntaxErr = diag.YAML(show, err)
		}
		return f
	}
	f.node = &n
	return f
}

// all reads every local file reachable from the root by $ref, breadth
// first; files that cannot be read are skipped (the error says why).
func (s *sources) all() []*source {
	if s.walked {
		return s.files
	}
	s.walked = true
	seen := map[string]bool{s.root.abs: true}
	for i := 0; i < len(s.files) && len(s.files) < maxSources; i++ {
		f := s.files[i]
		walkRefs(f.node, func(_ *yaml.Node, v string) {
			target := f.resolve(v)
			if target == "" || seen[target] || len(s.files) >= maxSources {
				return
			}
			seen[target] = true
			data, err := s.fetch.Local(target)
			if err != nil {
				return
			}
			s.files = append(s.files, s.parse(target, s.show(target), data))
		})
	}
	return s.files
}

// unparsable returns the first file that does not parse, or nil. Files
// named as text (Markdown and the like, which a description's $ref may
// read) are not expected to parse.
func (s *sources) unparsable() *source {
	for _, f := range s.all() {
		if ext := strings.ToLower(filepath.Ext(f.abs)); f != s.root && ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
		if f.syntaxErr != nil {
			return f
		}
	}
	return nil
}

// findRef returns the position and value of the first $ref whose value
// matches, trying each matcher over every file before the next one.
func (s *sources) findRef(match ...func(f *source, value string) bool) (diag.Pos, string) {
	for _, m := range match {
		for _, f := range s.all() {
			var at diag.Pos
			var found string
			walkRefs(f.node, func(key *yaml.Node, v string) {
				if found == "" && m(f, v) {
					at, found = diag.Pos{File: f.show, Line: key.Line, Col: key.Column}, v
				}
			})
			if found != "" {
				return at, found
			}
		}
	}
	return diag.Pos{File: s.specPath}, ""
}

// target returns the file a $ref (as written somewhere in the spec) points
// at, when it has been read.
func (s *sources) target(ref string) *source {
	for _, f := range s.all() {
		t := f.resolve(ref)
		if t == "" {
			continue
		}
		for _, g := range s.files {
			if g.abs == t {
				return g
			}
		}
	}
	return nil
}

// show names a file for messages: relative to the spec's directory as the
// user named it when it is below it, else as DisplayPath does.
func (s *sources) show(abs string) string {
	return specfile.DisplayPath(abs, s.specPath)
}

// scrub replaces the spec directory's absolute path in a message by the
// path the user knows it as, so messages do not depend on the machine.
func (s *sources) scrub(msg string) string {
	dir := filepath.Dir(s.root.abs) + string(filepath.Separator)
	rel := filepath.Dir(s.specPath) + string(filepath.Separator)
	if rel == "."+string(filepath.Separator) {
		rel = ""
	}
	return strings.ReplaceAll(msg, dir, rel)
}

// resolve returns the absolute path of the local file a $ref in f points
// at, or "" for refs within f and remote ones.
func (f *source) resolve(ref string) string {
	p, _, _ := strings.Cut(ref, "#")
	if p == "" {
		return ""
	}
	if u, err := url.Parse(p); err == nil && len(u.Scheme) > 1 {
		if u.Scheme != "file" {
			return ""
		}
		p = u.Path
	} else if unescaped, err := url.PathUnescape(p); err == nil {
		p = unescaped
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(f.abs), p)
	}
	return filepath.Clean(p)
}

// pos converts a YAML mark in f into a position.
func (f *source) pos(m yaml.Mark) diag.Pos {
	return diag.Pos{File: f.show, Line: m.Line, Col: m.Column}
}

// walkRefs calls fn with the key node and value of every $ref in n.
// Aliases are not followed: what they point at is walked where it is
// defined, and following them could loop.
func walkRefs(n *yaml.Node, fn func(key *yaml.Node, value string)) {
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			walkRefs(c, fn)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "$ref" && v.Kind == yaml.ScalarNode {
				fn(k, v.Value)
				continue
			}
			walkRefs(v, fn)
		}
	}
}
