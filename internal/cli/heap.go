package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailormcp/tailor/internal/gcpace"
	"github.com/tailormcp/tailor/internal/hugeheap"
)

// prepareHeap lets a command that runs the pipeline once and exits grow
// its heap in huge pages when the spec is large (internal/hugeheap says
// why), and bounds the heap's growth past its live data (internal/gcpace).
// serve does neither: it runs for long, and mostly from its cache. A spec
// that cannot be read is left to the loader to report.
func prepareHeap(specPath string) {
	hugeheap.ForInput(specSize(specPath))
	gcpace.Start()
}

// treeLimit bounds the entries specSize looks at below a spec's folder.
const treeLimit = 4096

// specSize is about what loading the spec reads: its file, or, for a
// root file too small to ask for huge pages on its own that $refs other
// files, the YAML and JSON files of its folder and below (at most
// treeLimit entries, hidden folders skipped), where a spec split over
// files keeps its parts. A large root is only stat'ed: the loader reads
// it. The figure only sizes the heap: a wrong guess costs time, never
// output.
func specSize(specPath string) int64 {
	st, err := os.Stat(specPath)
	if err != nil {
		return 0
	}
	size := st.Size()
	if hugeheap.Region(size) > 0 {
		return size
	}
	root, err := os.ReadFile(specPath)
	if err != nil || !refersToFiles(root) {
		return size
	}
	var tree int64
	seen, dir := 0, filepath.Dir(specPath)
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if seen++; seen > treeLimit {
			return filepath.SkipAll
		}
		if d != nil && d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir // .git and the like hold no spec
		}
		if err != nil || d.IsDir() || !isSpecFile(p) {
			return nil
		}
		if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
			tree += info.Size()
		}
		return nil
	})
	return max(size, tree)
}

// refersToFiles reports whether a spec's text has a $ref to anything but
// a place in itself ("#/...").
func refersToFiles(text []byte) bool {
	for rest := text; ; {
		i := bytes.Index(rest, []byte("$ref"))
		if i < 0 {
			return false
		}
		rest = bytes.TrimLeft(rest[i+len("$ref"):], "\"' \t:")
		if len(rest) > 0 && rest[0] != '#' {
			return true
		}
	}
}

func isSpecFile(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}
