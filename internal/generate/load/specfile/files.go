package specfile

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// Files is a version of the files below a folder other than the one on
// disk, which local $refs read instead (tailor check reads a commit of git
// history so). Dir is the absolute folder FS stands for: the file at
// Dir/a/b.yaml is a/b.yaml in FS.
type Files struct {
	FS  fs.ReadLinkFS
	Dir string
}

// maxLinks is how many symbolic links one path may go through, as the
// kernel's limit.
const maxLinks = 40

// localIn reads the file at path (absolute, already checked to be below
// the ref root) from f.files, under the rules local does on disk: links
// are followed (below the root, not the ref root's own) and must not lead
// out of the root, and only a regular file within the size limit is read.
func (f *Reader) localIn(path string) ([]byte, error) {
	real, err := f.resolveIn(path)
	if err != nil {
		return nil, err
	}
	if !within(f.root, real) {
		return nil, &OutsideRootError{Path: path, Link: real, Root: f.shown}
	}
	name, err := f.nameIn(real)
	if err != nil {
		return nil, err
	}
	st, err := fs.Lstat(f.files.FS, name)
	if err != nil {
		return nil, asPathError(path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("not a regular file")}
	}
	if st.Size() > MaxFileSize {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %d MiB", MaxFileSize>>20)}
	}
	data, err := fs.ReadFile(f.files.FS, name)
	if err != nil {
		return nil, asPathError(path, err)
	}
	return data, nil
}

// resolveIn follows the links among path's parts below the root, as
// filepath.EvalSymlinks does on disk; a link that leads out of the root
// is returned as where it leads, for the caller to refuse.
func (f *Reader) resolveIn(path string) (string, error) {
	for hops := 0; ; hops++ {
		if hops > maxLinks {
			return "", &fs.PathError{Op: "read", Path: path, Err: errors.New("too many levels of symbolic links")}
		}
		rel, err := filepath.Rel(f.root, path)
		if err != nil || !within(f.root, path) {
			return path, nil
		}
		if rel == "." {
			return path, nil
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		linked := false
		for i := range parts {
			at := filepath.Join(f.root, filepath.FromSlash(strings.Join(parts[:i+1], "/")))
			name, err := f.nameIn(at)
			if err != nil {
				return "", err
			}
			st, err := fs.Lstat(f.files.FS, name)
			if err != nil {
				return "", asPathError(path, err)
			}
			if st.Mode()&fs.ModeSymlink == 0 {
				continue
			}
			target, err := fs.ReadLink(f.files.FS, name)
			if err != nil {
				return "", asPathError(path, err)
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(at), filepath.FromSlash(target))
			}
			path = filepath.Join(append([]string{target}, parts[i+1:]...)...)
			linked = true
			break
		}
		if !linked {
			return path, nil
		}
	}
}

// nameIn is path's name in f.files.
func (f *Reader) nameIn(path string) (string, error) {
	rel, err := filepath.Rel(f.files.Dir, path)
	if err != nil || !within(f.files.Dir, path) {
		return "", &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("outside %s, the folder whose earlier version is read", fromWorkDir(f.files.Dir))}
	}
	return filepath.ToSlash(rel), nil
}

// asPathError names path (absolute) in err, as errors reading the disk do:
// the load's messages find the $ref that read a file by its path.
func asPathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: "read", Path: path, Err: pe.Err}
	}
	return &fs.PathError{Op: "read", Path: path, Err: err}
}
