package specfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Reader reads what a spec's $refs name, and nothing else: local files
// below the ref root only (a spec from elsewhere must not pull
// /etc/passwd or ../secrets/key.pem into the generated code, whose
// descriptions are spec text), http(s) URLs only when allowed, and either
// within limits of size and time. kin-openapi, the repair pass and the
// error explanation all read through one Reader.
type Reader struct {
	// root is the folder local $refs must stay below, absolute; real is
	// the same with symbolic links resolved, which the files' real paths
	// are checked against too, so a link cannot lead out.
	root, real string
	// shown is the root in messages (made relative to the working
	// directory when printed).
	shown  string
	remote *http.Client // nil: remote $refs are refused
	// cache holds what was read, by location: kin-openapi reads a file
	// again for every $ref to it, and a load must see one version of it.
	mu    sync.Mutex
	cache map[string][]byte
	// failed and fetched say that a read failed, or that one was remote.
	failed, fetched bool
	// failure is the first read that failed.
	failure error
	// unreadable holds the local files a read failed for, with the
	// error; unlisted says a read that failed was not of a local file.
	// Then what the spec is made of cannot be listed as files (Sources).
	unreadable map[string]string
	unlisted   bool
	// files, when set, is read instead of the disk (files.go).
	files *Files
}

// Limits of what a $ref may read. Variables so that tests can lower them.
var (
	MaxFileSize   int64 = 512 << 20
	MaxRemoteSize int64 = 64 << 20
	RemoteTimeout       = 30 * time.Second
)

// NewReader confines the $refs of the spec at specPath to refRoot, or,
// when refRoot is "", to the repository the spec is in (defaultRefRoot).
// With files, local $refs read them instead of the disk (whose folders
// then need not exist).
func NewReader(specPath, refRoot string, allowRemote bool, files *Files) (*Reader, error) {
	if refRoot == "" {
		refRoot = defaultRefRoot(specPath)
	}
	root, err := filepath.Abs(refRoot)
	if err != nil {
		return nil, err
	}
	real := root
	if files == nil {
		if real, err = filepath.EvalSymlinks(root); err != nil {
			if pe := (*os.PathError)(nil); errors.As(err, &pe) {
				err = pe.Err // the path is the flag's
			}
			return nil, fmt.Errorf("--ref-root %s: %w", refRoot, err)
		}
	}
	f := &Reader{root: root, real: real, shown: root, files: files}
	if allowRemote {
		f.remote = &http.Client{
			Timeout: RemoteTimeout,
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if len(via) >= 5 {
					return errors.New("more than 5 redirects")
				}
				return nil
			},
		}
	}
	return f, nil
}

// defaultRefRoot is the folder a spec's $refs may read below when no
// --ref-root says: the enclosing repository, the nearest folder up from
// the spec's holding .git (specs split over files share folders such as
// ../common/ beside the spec's own), else the spec's folder.
func defaultRefRoot(specPath string) string {
	dir := filepath.Dir(specPath)
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for at := abs; ; {
		if _, err := os.Lstat(filepath.Join(at, ".git")); err == nil {
			return at
		}
		up := filepath.Dir(at)
		if up == at {
			return dir
		}
		at = up
	}
}

// Read is a kin-openapi ReadFromURIFunc body: the bytes at location.
func (f *Reader) Read(location *url.URL) ([]byte, error) {
	key := Key(location)
	f.mu.Lock()
	data, ok := f.cache[key]
	f.mu.Unlock()
	if ok {
		return data, nil
	}
	data, err := f.readOnce(location)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		if !f.failed {
			f.failed, f.failure = true, err
		}
		switch location.Scheme {
		case "", "file":
			if f.unreadable == nil {
				f.unreadable = map[string]string{}
			}
			if _, seen := f.unreadable[location.Path]; !seen {
				f.unreadable[location.Path] = err.Error()
			}
		default:
			f.unlisted = true
		}
		return nil, err
	}
	f.fetched = f.fetched || location.Scheme == "http" || location.Scheme == "https"
	if f.cache == nil {
		f.cache = map[string][]byte{}
	}
	f.cache[key] = data
	return data, nil
}

// Seen calls fn for each file read so far, by path, with its bytes, and
// for each local file a read failed for, with why (the first failure for
// it). It reports false, calling fn for none, when what was read cannot be
// listed as files: a read was remote, or of something other than a local
// file.
func (f *Reader) Seen(fn func(path string, data []byte, unread error)) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unlisted || f.fetched {
		return false
	}
	for path, data := range f.cache {
		fn(path, data, nil)
	}
	for path, why := range f.unreadable {
		fn(path, nil, errors.New(why))
	}
	return true
}

// Failure is the first read that failed, nil when none did.
func (f *Reader) Failure() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failure
}

func (f *Reader) readOnce(location *url.URL) ([]byte, error) {
	switch location.Scheme {
	case "", "file":
		return f.Local(location.Path)
	case "http", "https":
		if f.remote == nil {
			return nil, &RemoteRefError{URL: location.String()}
		}
		return f.fetch(location)
	}
	return nil, fmt.Errorf("unsupported $ref scheme %q in %s", location.Scheme, location)
}

// OutsideRootError is returned for a local $ref to a file outside the ref
// root.
type OutsideRootError struct {
	Path string // the file, absolute
	Link string // where Path leads, when it is a link that leads out
	Root string // the root, absolute
}

func (e *OutsideRootError) Error() string {
	return fmt.Sprintf("%s is outside %s, the folder $refs may read", e.Path, e.Root)
}

// Message is the error for ref, which reads the file: what it reads, and
// how to allow it (a --ref-root holding both the spec's folder and the
// file, unless that is the whole file system).
func (e *OutsideRootError) Message(ref string) string {
	target := e.Path
	msg := fmt.Sprintf("$ref %q reads %s, outside %s, the folder $refs may read", ref, fromWorkDir(e.Path), fromWorkDir(e.Root))
	if e.Link != "" {
		target = e.Link
		msg = fmt.Sprintf("$ref %q reads %s, a link to %s, outside %s, the folder $refs may read", ref, fromWorkDir(e.Path), fromWorkDir(e.Link), fromWorkDir(e.Root))
	}
	common, err := filepath.Abs(e.Root)
	if err != nil {
		return msg
	}
	for !within(common, target) {
		common = filepath.Dir(common)
	}
	if filepath.Dir(common) == common {
		return msg + ": tailor reads only files below the spec's repository (or folder, outside one) unless --ref-root DIR names a wider one"
	}
	return msg + ": to allow it, run with --ref-root " + fromWorkDir(common)
}

// fromWorkDir names a path relative to the working directory when it can
// (climbing out with .. if need be), so that messages hold no machine's
// paths.
func fromWorkDir(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, abs); err == nil {
			return rel
		}
	}
	return abs
}

// within reports whether path is root or below it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Local reads a file below the root. The check comes before any other
// look at the file, so that a spec cannot even learn whether a file
// outside exists.
func (f *Reader) Local(path string) ([]byte, error) {
	path = filepath.Clean(filepath.FromSlash(path))
	if !within(f.root, path) {
		return nil, &OutsideRootError{Path: path, Root: f.shown}
	}
	if f.files != nil {
		return f.localIn(path)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if _, serr := os.Stat(path); serr != nil {
			return nil, serr // names the file, not the first missing folder
		}
		return nil, err
	}
	if !within(f.real, real) {
		return nil, &OutsideRootError{Path: path, Link: real, Root: f.shown}
	}
	// Only regular files: a $ref to /dev/zero or a FIFO would never finish.
	st, err := os.Stat(real)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("not a regular file")}
	}
	if st.Size() > MaxFileSize {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %d MiB", MaxFileSize>>20)}
	}
	return os.ReadFile(real)
}

// RemoteError is a remote $ref that could not be fetched.
type RemoteError struct {
	URL string
	Err error
}

func (e *RemoteError) Error() string { return fmt.Sprintf("cannot fetch %s: %v", e.URL, e.Err) }
func (e *RemoteError) Unwrap() error { return e.Err }

// fetch GETs a remote $ref, within RemoteTimeout and MaxRemoteSize.
func (f *Reader) fetch(location *url.URL) ([]byte, error) {
	u := *location
	u.Fragment = ""
	resp, err := f.remote.Get(u.String())
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if isTimeout(err) {
			err = fmt.Errorf("no answer within %v", RemoteTimeout)
		}
		return nil, &RemoteError{URL: u.String(), Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &RemoteError{URL: u.String(), Err: fmt.Errorf("HTTP %s", resp.Status)}
	}
	if resp.ContentLength > MaxRemoteSize {
		return nil, &RemoteError{URL: u.String(), Err: fmt.Errorf("larger than %d MiB", MaxRemoteSize>>20)}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxRemoteSize+1))
	if err != nil {
		if isTimeout(err) {
			err = fmt.Errorf("no answer within %v", RemoteTimeout)
		}
		return nil, &RemoteError{URL: u.String(), Err: err}
	}
	if int64(len(data)) > MaxRemoteSize {
		return nil, &RemoteError{URL: u.String(), Err: fmt.Errorf("larger than %d MiB", MaxRemoteSize>>20)}
	}
	return data, nil
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// RemoteRefError is returned when a spec refers to an http(s) URL and remote
// refs were not allowed.
type RemoteRefError struct{ URL string }

func (e *RemoteRefError) Error() string {
	return fmt.Sprintf("remote $ref %s refused: tailor does not fetch URLs named by a spec unless run with --allow-remote-refs", e.URL)
}
