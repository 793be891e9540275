// Package specfile reads the files a spec is made of: the root and every
// file its $refs name, read only below the ref root (and from http(s) only
// when allowed) through one Reader, parsed as YAML once each, and the
// places $refs point at found in them. The loader, its repair pass and its
// locator all read through it. It also says, in the user's terms, where a
// file's text is wrong and what a YAML value is.
package specfile

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/go-openapi/jsonpointer"
	"github.com/tailormcp/tailor/internal/diag"
)

// Set is the files of a spec read so far, by location (Key): the root and
// the files its $refs name, read through one Reader, each parsed as YAML
// once, when first needed. The repair pass walks them; the locator places
// pointers in them.
type Set struct {
	reader   *Reader
	specPath string
	// ByKey holds every file read, by Key of its location.
	ByKey map[string]*File
}

// NewSet is the set of the spec at specPath whose root is root, its other
// files read through reader.
func NewSet(reader *Reader, specPath string, root *File) *Set {
	return &Set{reader: reader, specPath: specPath, ByKey: map[string]*File{root.Key: root}}
}

// SpecPath is the spec's path as the user gave it: what messages name the
// other files relative to.
func (s *Set) SpecPath() string { return s.specPath }

// File is one file of the spec, as read and, once asked, parsed.
type File struct {
	Loc      *url.URL
	Key      string // Key(Loc)
	Show     string // as named in messages
	Data     []byte
	Doc      *yaml.Node // document node; nil until parsed
	parseErr error      // the file is not YAML
	Changed  bool
}

// Key names a location for the file table: a cleaned path for local
// files, the URL without fragment otherwise.
func Key(u *url.URL) string {
	if u.Scheme == "" || u.Scheme == "file" {
		return filepath.Clean(filepath.FromSlash(u.Path))
	}
	v := *u
	v.Fragment = ""
	return v.String()
}

// Parse reads f's YAML once.
func (s *Set) Parse(f *File) error {
	if f.Doc != nil || f.parseErr != nil {
		return f.parseErr
	}
	var doc yaml.Node
	err := yaml.Unmarshal(f.Data, &doc)
	switch {
	case err != nil:
		f.parseErr = diag.YAML(f.Show, err)
		if LooksLikeJSON(f.Data) {
			if jerr := SyntaxError(f.Show, f.Data); jerr != nil {
				f.parseErr = jerr
			}
		}
	case doc.Kind != yaml.DocumentNode || len(doc.Content) == 0:
		f.parseErr = diag.At(diag.Pos{File: f.Show, Line: 1, Col: 1}, "the file is empty")
	default:
		f.Doc = &doc
	}
	return f.parseErr
}

// File returns the file at loc, read through the reader.
func (s *Set) File(loc *url.URL) (*File, error) {
	key := Key(loc)
	if f, ok := s.ByKey[key]; ok {
		return f, nil
	}
	u := *loc
	u.Fragment = ""
	data, err := s.reader.Read(&u)
	if err != nil {
		return nil, err
	}
	show := key
	if u.Scheme == "" || u.Scheme == "file" {
		show = DisplayPath(key, s.specPath)
	}
	f := &File{Loc: &u, Key: key, Show: show, Data: data}
	s.ByKey[key] = f
	return f, nil
}

// Resolve finds what a $ref written in f points at: the file, a handle on
// the node (to replace it), and its JSON pointer in that file. A pointer
// that passes through a $ref (a components map that is itself a $ref, say)
// goes on from where that $ref points.
func (s *Set) Resolve(f *File, ref string) (*File, **yaml.Node, string, error) {
	return s.resolveDepth(f, ref, 0)
}

func (s *Set) resolveDepth(f *File, ref string, depth int) (*File, **yaml.Node, string, error) {
	if depth > 32 {
		return nil, nil, "", fmt.Errorf("more than 32 $refs in a row")
	}
	p, frag, _ := strings.Cut(ref, "#")
	t := f
	if p != "" {
		u, err := url.Parse(p)
		if err != nil {
			return nil, nil, "", fmt.Errorf("not a URL: %v", err)
		}
		loc := f.Loc.ResolveReference(u)
		if t, err = s.File(loc); err != nil {
			return nil, nil, "", err
		}
	}
	if err := s.Parse(t); err != nil {
		return nil, nil, "", err
	}
	holder := &t.Doc.Content[0]
	if frag == "" {
		return t, holder, "", nil
	}
	if frag[0] != '/' {
		return nil, nil, "", fmt.Errorf("the fragment #%s is not a JSON pointer (#/...)", frag)
	}
	toks := strings.Split(frag[1:], "/")
	for i, tok := range toks {
		tok = jsonpointer.Unescape(tok)
		if u, err := url.PathUnescape(tok); err == nil {
			tok = u
		}
		n := Deref(*holder)
		if n == nil {
			return nil, nil, "", fmt.Errorf("%q not found in %s", tok, t.Show)
		}
		next := (**yaml.Node)(nil)
		switch n.Kind {
		case yaml.MappingNode:
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == tok {
					next = &n.Content[j+1]
					break
				}
			}
			if _, via := RefOf(n); next == nil && via != nil {
				rest := "/" + strings.Join(toks[i:], "/")
				vt, _, vptr, err := s.resolveDepth(t, via.Value, depth+1)
				if err != nil {
					return nil, nil, "", err
				}
				return s.resolveDepth(vt, "#"+vptr+rest, depth+1)
			}
		case yaml.SequenceNode:
			if j, err := strconv.Atoi(tok); err == nil && j >= 0 && j < len(n.Content) {
				next = &n.Content[j]
			}
		}
		if next == nil {
			return nil, nil, "", fmt.Errorf("%q not found in %s", tok, t.Show)
		}
		holder = next
	}
	return t, holder, frag, nil
}

// RefOf returns the key and value of n's $ref, or nils.
func RefOf(n *yaml.Node) (key, value *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "$ref" && n.Content[i+1].Kind == yaml.ScalarNode {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

// Deref follows aliases.
func Deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// KeyIndex is the index in mapping n's Content of key, -1 when n is not a
// mapping or has no such key.
func KeyIndex(n *yaml.Node, key string) int {
	if n == nil || n.Kind != yaml.MappingNode {
		return -1
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// MapValue is the value of key in mapping n (its first, of a key written
// twice), or nil.
func MapValue(n *yaml.Node, key string) *yaml.Node {
	if i := KeyIndex(n, key); i >= 0 {
		return n.Content[i+1]
	}
	return nil
}
