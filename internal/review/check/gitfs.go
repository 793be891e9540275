package check

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tailormcp/tailor/internal/generate/load"
)

// repo is the git repository around a spec, read with git's plumbing
// commands (no work tree is touched).
type repo struct {
	top   string            // the work tree's top folder, absolute
	blobs map[string][]byte // read so far, by object id
	sums  map[string]string // their SHA256, by object id
}

// openRepo opens the repository around dir. Its top folder is named as
// dir is (not with links resolved, as git names it), so that the paths
// the loader reads map onto the repository's.
func openRepo(dir string) (*repo, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	out, err := git(dir, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, err
	}
	top := dir
	if prefix := strings.Trim(strings.TrimSpace(string(out)), "/"); prefix != "" {
		for range strings.Split(prefix, "/") {
			top = filepath.Dir(top)
		}
	}
	return &repo{top: top, blobs: map[string][]byte{}, sums: map[string]string{}}, nil
}

// name is path's name in the repository (relative to its top folder).
func (r *repo) name(path string) (string, bool) {
	rel, err := filepath.Rel(r.top, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// refRoot is the folder the $refs of the spec at spec (absolute) may read
// below, as a name in the repository; "" for the whole repository (also
// when the folder is above it: files outside it cannot be had from
// history, and the loader says so when a $ref reads one).
func (r *repo) refRoot(refRoot, spec string) string {
	dir := filepath.Dir(spec)
	if refRoot != "" {
		if abs, err := filepath.Abs(refRoot); err == nil {
			dir = abs
		}
	}
	if name, ok := r.name(dir); ok && name != "." {
		return name
	}
	return ""
}

// show names a folder of the repository in messages.
func (r *repo) show(name string) string {
	return fromWorkDir(filepath.Join(r.top, filepath.FromSlash(name)))
}

// objects gives the object id of the file name in each of commits ("" where
// there is none), in one call.
func (r *repo) objects(commits []string, name string) ([]string, error) {
	var in strings.Builder
	for _, c := range commits {
		in.WriteString(c + ":" + name + "\n")
	}
	cmd := exec.Command("git", "-C", r.top, "cat-file", "--batch-check")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch-check: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	ids := make([]string, len(commits))
	for i := range ids {
		if i < len(lines) {
			if f := strings.Fields(lines[i]); len(f) == 3 && f[1] == "blob" {
				ids[i] = f[0]
			}
		}
	}
	return ids, nil
}

// run runs git in the top folder, pathspecs taken literally.
func (r *repo) run(args ...string) ([]byte, error) {
	return git(r.top, append([]string{"--literal-pathspecs"}, args...)...)
}

func (r *repo) blob(oid string) ([]byte, error) {
	if b, ok := r.blobs[oid]; ok {
		return b, nil
	}
	b, err := r.run("cat-file", "blob", oid)
	if err != nil {
		return nil, err
	}
	r.blobs[oid] = b
	return b, nil
}

// sum is SHA256 of the blob oid.
func (r *repo) sum(oid string) (string, error) {
	if s, ok := r.sums[oid]; ok {
		return s, nil
	}
	b, err := r.blob(oid)
	if err != nil {
		return "", err
	}
	r.sums[oid] = SHA256(b)
	return r.sums[oid], nil
}

// entry is a file, link, folder or submodule of a commit's tree.
type entry struct {
	mode string // git's: 100644, 100755, 120000, 040000, 160000
	oid  string
	size int64
}

// commitTree is a commit's files as an fs.ReadLinkFS whose names are
// relative to the repository's top folder: what the loader reads a spec's
// $refs from (specfile.Files). Folders are listed when first needed, so that
// a large repository costs no more than the folders the spec is in. It
// remembers what it was asked about, so that commits where those are the
// same are known to hold the same version of the spec (sameAs).
type commitTree struct {
	r       *repo
	commit  string
	entries map[string]entry
	listed  map[string]bool // folders listed
	asked   map[string]bool
}

func (r *repo) tree(commit string) *commitTree {
	return &commitTree{r: r, commit: commit, entries: map[string]entry{}, listed: map[string]bool{}, asked: map[string]bool{}}
}

// entry is name in the commit; ok is false when there is none.
func (t *commitTree) entry(name string) (e entry, ok bool, err error) {
	if !fs.ValidPath(name) || name == "." {
		return entry{}, false, nil
	}
	dir := path.Dir(name)
	if !t.listed[dir] {
		t.listed[dir] = true
		// <mode> SP <type> SP <object> SP+ <size> TAB <name>, the folder's
		// entries only (a size is "-" for a folder).
		args := []string{"ls-tree", "-l", "-z", "--full-tree", t.commit}
		if dir != "." {
			args = append(args, "--", dir+"/")
		}
		out, err := t.r.run(args...)
		if err != nil {
			return entry{}, false, err
		}
		for _, rec := range strings.Split(string(out), "\x00") {
			meta, n, ok := strings.Cut(rec, "\t")
			f := strings.Fields(meta)
			if !ok || len(f) != 4 {
				continue
			}
			size, _ := strconv.ParseInt(f[3], 10, 64)
			t.entries[n] = entry{mode: f[0], oid: f[2], size: size}
		}
	}
	e, ok = t.entries[name]
	return e, ok, nil
}

// sameAs reports whether every file o was asked about is the same in t:
// a load of the spec reads the same bytes from both.
func (t *commitTree) sameAs(o *commitTree) bool {
	for name := range o.asked {
		a, aok, err1 := t.entry(name)
		b, bok, err2 := o.entry(name)
		if err1 != nil || err2 != nil || a != b || aok != bok {
			return false
		}
	}
	return true
}

func (t *commitTree) lookup(op, name string) (entry, error) {
	t.asked[name] = true
	e, ok, err := t.entry(name)
	if err != nil {
		return entry{}, &fs.PathError{Op: op, Path: name, Err: err}
	}
	if !ok {
		return entry{}, &fs.PathError{Op: op, Path: name, Err: fmt.Errorf("%w in commit %s", fs.ErrNotExist, short(t.commit))}
	}
	return e, nil
}

// inputs is, for each of commits, load.InputsSum of the spec at spec
// (absolute) whose root has the hash rootSHA256 and whose $refs read the
// files of sources (paths in the work tree) as they are in that commit;
// "" where one of them is not there. Each file is looked up in every
// commit at once.
func (r *repo) inputs(commits []string, spec, rootSHA256 string, sources []load.Source) ([]string, error) {
	here := make([][]load.Source, len(commits))
	for _, src := range sources {
		name, ok := r.name(src.Path)
		if !ok {
			return make([]string, len(commits)), nil
		}
		oids, err := r.objects(commits, name)
		if err != nil {
			return nil, err
		}
		for i, oid := range oids {
			if oid == "" {
				continue // not there: this commit's list falls short
			}
			var sum [sha256.Size]byte
			s, err := r.sum(oid)
			if err != nil {
				continue
			}
			if _, err := hex.Decode(sum[:], []byte(s)); err != nil {
				continue
			}
			here[i] = append(here[i], load.Source{Path: src.Path, SHA256: sum})
		}
	}
	sums := make([]string, len(commits))
	for i, files := range here {
		if len(files) == len(sources) {
			sums[i], _, _ = load.InputsSum(spec, rootSHA256, files)
		}
	}
	return sums, nil
}

func (t *commitTree) Lstat(name string) (fs.FileInfo, error) {
	e, err := t.lookup("lstat", name)
	if err != nil {
		return nil, err
	}
	return info{name: path.Base(name), e: e}, nil
}

func (t *commitTree) ReadLink(name string) (string, error) {
	e, err := t.lookup("readlink", name)
	if err != nil {
		return "", err
	}
	if e.mode != "120000" {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	b, err := t.r.blob(e.oid)
	return string(b), err
}

func (t *commitTree) ReadFile(name string) ([]byte, error) {
	e, err := t.lookup("read", name)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(e.mode, "100") {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("not a regular file in commit %s", short(t.commit))}
	}
	return t.r.blob(e.oid)
}

func (t *commitTree) Open(name string) (fs.File, error) {
	b, err := t.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return &file{Reader: bytes.NewReader(b), info: info{name: path.Base(name), e: t.entries[name]}}, nil
}

// info is an entry as fs.FileInfo.
type info struct {
	name string
	e    entry
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return i.e.size }
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.e.mode == "040000" }
func (i info) Sys() any           { return nil }
func (i info) Mode() fs.FileMode {
	switch i.e.mode {
	case "100755":
		return 0o755
	case "100644":
		return 0o644
	case "120000":
		return fs.ModeSymlink | 0o777
	case "040000":
		return fs.ModeDir | 0o755
	}
	return fs.ModeIrregular // a submodule
}

type file struct {
	*bytes.Reader
	info info
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Close() error               { return nil }

func short(commit string) string { return commit[:min(12, len(commit))] }
