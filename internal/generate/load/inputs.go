package load

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailormcp/tailor/internal/generate/load/specfile"
)

// Source is a file a spec's $refs read, and the SHA-256 of the bytes read:
// with the root's bytes, what a loaded spec is made of (a cache of what is
// computed from it keys on them). A file the load could not read (it went
// on without it, with a warning) is a Source too, with why: the spec is
// made of its absence, until the file appears.
type Source struct {
	Path   string // absolute, as the reader read it
	SHA256 [sha256.Size]byte
	// Unread is why the file could not be read; then SHA256 is zero.
	Unread string
}

// Sources lists the files the spec's $refs read or failed to read, by path
// (the root, which the caller read, is not among them). ok is false when
// what the spec is made of cannot be listed as files: a $ref was a remote
// URL, read or not.
func (s *Spec) Sources() (files []Source, ok bool) {
	ok = s.reader.Seen(func(path string, data []byte, unread error) {
		if unread != nil {
			files = append(files, Source{Path: path, Unread: unread.Error()})
			return
		}
		files = append(files, Source{Path: path, SHA256: sha256.Sum256(data)})
	})
	if !ok {
		return nil, false
	}
	slices.SortFunc(files, func(a, b Source) int { return strings.Compare(a.Path, b.Path) })
	return files, true
}

// Unread is the first file a $ref named that could not be read (the load
// went on without it, with a warning), nil when every one was read.
func (s *Spec) Unread() error { return s.reader.Failure() }

// Unchanged reports whether each of files reads as it did, read as a load
// of the spec at specPath with refRoot (see Options) reads it: still below
// the ref root, not through a link that leads out, a regular file, and the
// same bytes; a file that could not be read still cannot, for the same
// reason.
func Unchanged(specPath, refRoot string, files []Source) bool {
	f, err := specfile.NewReader(specPath, refRoot, false, nil)
	if err != nil {
		return false
	}
	for _, src := range files {
		if !filepath.IsAbs(src.Path) {
			return false
		}
		data, err := f.Local(src.Path)
		if src.Unread != "" {
			if err == nil || err.Error() != src.Unread {
				return false
			}
			continue
		}
		if err != nil {
			return false
		}
		if sha256.Sum256(data) != src.SHA256 {
			return false
		}
	}
	return true
}

// Inputs is the hash of what the spec was read from: the root's bytes and
// those of every file its $refs read (InputsSum), with how many files that
// is, the root included. ok is false for a spec in one file (its root's
// hash says it all) and when the files cannot be listed (Sources).
func (s *Spec) Inputs() (sum string, files int, ok bool) {
	sources, ok := s.Sources()
	if !ok || slices.ContainsFunc(sources, func(src Source) bool { return src.Unread != "" }) {
		return "", 0, false // a file missing is no version to check out
	}
	return InputsSum(s.Path, s.SHA256, sources)
}

// InputsSum is Inputs for the spec at specPath whose root's bytes have the
// hex SHA-256 rootSHA256 and whose $refs read sources: each file is named
// relative to the root's folder, so that the hash is the same in every
// checkout.
func InputsSum(specPath, rootSHA256 string, sources []Source) (sum string, files int, ok bool) {
	abs, err := filepath.Abs(specPath)
	if err != nil {
		return "", 0, false
	}
	dir := filepath.Dir(abs)
	lines := []string{}
	for _, src := range sources {
		if src.Path == abs {
			continue
		}
		rel, err := filepath.Rel(dir, src.Path)
		if err != nil {
			return "", 0, false
		}
		lines = append(lines, fmt.Sprintf("%x %s\n", src.SHA256, filepath.ToSlash(rel)))
	}
	if len(lines) == 0 {
		return "", 0, false
	}
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(a[2*sha256.Size+1:], b[2*sha256.Size+1:]) })
	h := sha256.New()
	fmt.Fprintf(h, "%s %s\n", rootSHA256, filepath.Base(abs))
	for _, l := range lines {
		h.Write([]byte(l))
	}
	return hex.EncodeToString(h.Sum(nil)), len(lines) + 1, true
}
