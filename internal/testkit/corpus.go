package testkit

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// CorpusSpec is one real-world description of ../shared/corpus, with what
// its README or wild/MANIFEST.tsv says about it.
type CorpusSpec struct {
	// Name identifies the spec: its file name without extension
	// ("discourse-31"), or its MANIFEST name ("moby-2.0", "lob-3.0").
	Name string
	// Path is the entry file.
	Path string
	// Version is the OpenAPI or Swagger version the listing gives.
	Version string
	// Ops is the number of operations under `paths` the listing gives.
	Ops  int
	Wild bool
	// RefRoot is the folder the spec's $refs may read below when it is not
	// the entry file's own: a multi-file spec of the README
	// (petstore-separate-v2/spec/swagger.yaml refers to ../common/) reads
	// below its corpus entry's folder.
	RefRoot string
}

// Pkg is the spec's name as a Go package name (also its binary's name and
// environment prefix): "discourse-31" → "discourse_31".
func (s CorpusSpec) Pkg() string {
	n := strings.Trim(nonIdent.ReplaceAllString(strings.ToLower(s.Name), "_"), "_")
	if n == "" || n[0] >= '0' && n[0] <= '9' {
		n = "spec_" + n
	}
	switch n {
	case "main", "break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough", "for", "func",
		"go", "goto", "if", "import", "interface", "map", "package", "range", "return", "select", "struct", "switch", "type", "var":
		n += "_spec"
	}
	return n
}

var nonIdent = regexp.MustCompile(`[^a-z0-9]+`)

// CorpusSpecs lists every spec of the corpus: the top-level ones of its
// README (with their operation counts) and every entry of
// wild/MANIFEST.tsv, each group sorted by name. It fails when a listing is missing
// or a listed file is absent, so that a spec cannot silently drop out of
// the tests.
func CorpusSpecs(dir string) ([]CorpusSpec, error) {
	specs, err := readmeSpecs(dir)
	if err != nil {
		return nil, err
	}
	wild, err := manifestSpecs(filepath.Join(dir, "wild"))
	if err != nil {
		return nil, err
	}
	specs = append(specs, wild...)
	sort.SliceStable(specs, func(i, j int) bool {
		if specs[i].Wild != specs[j].Wild {
			return !specs[i].Wild
		}
		return specs[i].Name < specs[j].Name
	})
	seen := map[string]string{}
	for _, s := range specs {
		if _, err := os.Stat(s.Path); err != nil {
			return nil, fmt.Errorf("corpus spec %s: %v", s.Name, err)
		}
		if other, dup := seen[s.Pkg()]; dup {
			return nil, fmt.Errorf("corpus specs %s and %s map to one package name %s", other, s.Name, s.Pkg())
		}
		seen[s.Pkg()] = s.Name
	}
	return specs, nil
}

// readmeSpecs reads the table of the corpus README: | file | version | ops | ...
func readmeSpecs(dir string) ([]CorpusSpec, error) {
	f, err := os.Open(filepath.Join(dir, "README.md"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []CorpusSpec
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) < 5 {
			continue
		}
		file := strings.TrimSpace(cells[1])
		ext := filepath.Ext(file)
		if ext != ".yaml" && ext != ".json" {
			continue
		}
		ops, err := strconv.Atoi(strings.TrimSpace(cells[3]))
		if err != nil {
			return nil, fmt.Errorf("corpus README: %s: ops %q is not a number", file, cells[3])
		}
		name, refRoot := strings.TrimSuffix(file, ext), ""
		if first, _, nested := strings.Cut(name, "/"); nested {
			name = first // petstore-separate-v2/spec/swagger.yaml
			refRoot = filepath.Join(dir, name)
		}
		out = append(out, CorpusSpec{Name: name, Path: filepath.Join(dir, filepath.FromSlash(file)), Version: strings.TrimSpace(cells[2]), Ops: ops, RefRoot: refRoot})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("corpus README lists no specs")
	}
	return out, sc.Err()
}

// manifestSpecs reads wild/MANIFEST.tsv: name, entry, repo, commit,
// path_in_repo, openapi_version, operations, notes.
func manifestSpecs(dir string) ([]CorpusSpec, error) {
	data, err := os.ReadFile(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		return nil, err
	}
	var out []CorpusSpec
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if i == 0 {
			continue // header
		}
		f := strings.Split(line, "\t")
		if len(f) < 7 {
			return nil, fmt.Errorf("MANIFEST.tsv line %d has %d columns", i+1, len(f))
		}
		ops, err := strconv.Atoi(f[6])
		if err != nil {
			return nil, fmt.Errorf("MANIFEST.tsv line %d: operations %q", i+1, f[6])
		}
		name := strings.TrimSuffix(strings.TrimSuffix(f[0], ".yaml"), ".json")
		out = append(out, CorpusSpec{Name: name, Path: filepath.Join(dir, filepath.FromSlash(f[1])), Version: f[5], Ops: ops, Wild: true})
	}
	return out, nil
}
