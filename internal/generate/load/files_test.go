package load

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tailormcp/tailor/internal/generate/load/specfile"
)

// TestRefsInAVersionStayBelowTheRoot: a spec whose $refs read a version of
// its files other than the disk's (an earlier commit) is confined as on
// disk, links included, with the same messages; nothing is read from the
// disk, where none of the files are.
func TestRefsInAVersionStayBelowTheRoot(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	version := fstest.MapFS{
		"secrets/key.yaml":    {Data: []byte("Pet: {type: string, description: the secret}\n")},
		"api/common/pet.yaml": {Data: []byte("Pet: {type: object, description: common}\n")},
		"api/linked":          {Data: []byte("../secrets"), Mode: fs.ModeSymlink},
		"api/alias.yaml":      {Data: []byte("common/pet.yaml"), Mode: fs.ModeSymlink},
		"api/loop.yaml":       {Data: []byte("loop.yaml"), Mode: fs.ModeSymlink},
		"api/etc":             {Data: []byte("/etc"), Mode: fs.ModeSymlink},
	}
	files := &specfile.Files{FS: version, Dir: dir}
	load := func(ref, refRoot string) (*Spec, error) {
		return LoadData("api/openapi.yaml", []byte(specWithRef(ref)), Options{SkipValidation: true, RefRoot: refRoot, Files: files})
	}
	for _, tc := range []struct{ ref, want string }{
		{"../secrets/key.yaml#/Pet", `api/openapi.yaml:13:17: error: $ref "../secrets/key.yaml#/Pet" reads secrets/key.yaml, outside api, the folder $refs may read: to allow it, run with --ref-root .`},
		{"linked/key.yaml#/Pet", `error: $ref "linked/key.yaml#/Pet" reads api/linked/key.yaml, a link to secrets/key.yaml, outside api, the folder $refs may read: to allow it, run with --ref-root .`},
		{"etc/passwd", "etc/passwd, outside api, the folder $refs may read"},
		{"/etc/passwd", "tailor reads only files below the spec's repository (or folder, outside one) unless --ref-root DIR names a wider one"},
		{"loop.yaml#/Pet", "too many levels of symbolic links"},
		{"common#/Pet", "not a regular file"},
	} {
		spec, err := load(tc.ref, "")
		got := fmt.Sprint(err)
		if err == nil {
			// As on disk, a file that cannot be read leaves its schema
			// out with a warning.
			got = fmt.Sprint(spec.Warnings)
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("$ref %s: got %s, want an error or a warning containing %q", tc.ref, got, tc.want)
		}
	}

	description := func(spec *Spec) string {
		return spec.Doc.Paths.Value("/pets").Get.Responses.Value("200").Value.Content["application/json"].Schema.Value.Description
	}
	// A link below the root is followed; a wider root holds the secret.
	for _, tc := range []struct{ ref, refRoot, want string }{
		{"alias.yaml#/Pet", "", "common"},
		{"../secrets/key.yaml#/Pet", ".", "the secret"},
		{"linked/key.yaml#/Pet", ".", "the secret"},
	} {
		spec, err := load(tc.ref, tc.refRoot)
		if err != nil {
			t.Errorf("$ref %s, root %q: %v", tc.ref, tc.refRoot, err)
			continue
		}
		if d := description(spec); d != tc.want {
			t.Errorf("$ref %s, root %q: the schema says %q, want %q", tc.ref, tc.refRoot, d, tc.want)
		}
		if _, n, ok := spec.Inputs(); !ok || n != 2 {
			t.Errorf("$ref %s: Inputs counts %d files (ok %v), want 2", tc.ref, n, ok)
		}
	}

	// A file missing from the version is left out with a warning, as on
	// disk, and the spec's files cannot be listed.
	spec, err := load("common/gone.yaml#/Pet", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := spec.Inputs(); ok {
		t.Error("Inputs of a spec missing a file is ok")
	}
	if err := spec.Unread(); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(dir, "api", "common", "gone.yaml")) {
		t.Errorf("Unread = %v, want the missing file", err)
	}
}

// TestInputsNameEveryFile: the hash over a split spec's files changes with
// any of them, and does not depend on where the checkout is.
func TestInputsNameEveryFile(t *testing.T) {
	sum := func(dir string, pet string) string {
		t.Helper()
		files := &specfile.Files{FS: fstest.MapFS{"api/common/pet.yaml": {Data: []byte(pet)}}, Dir: dir}
		spec, err := LoadData(filepath.Join(dir, "api", "openapi.yaml"), []byte(specWithRef("common/pet.yaml#/Pet")), Options{SkipValidation: true, Files: files})
		if err != nil {
			t.Fatal(err)
		}
		s, n, ok := spec.Inputs()
		if !ok || n != 2 {
			t.Fatalf("Inputs: %d files, ok %v", n, ok)
		}
		return s
	}
	a := sum(t.TempDir(), "Pet: {type: object}\n")
	if b := sum(t.TempDir(), "Pet: {type: object}\n"); a != b {
		t.Errorf("the same files in two folders hash to %s and %s", a, b)
	}
	if c := sum(t.TempDir(), "Pet: {type: string}\n"); a == c {
		t.Error("a changed referenced file does not change the hash")
	}
	spec, err := LoadData("openapi.yaml", []byte(specWithRef("#/components/schemas/Pet")+"components: {schemas: {Pet: {type: object}}}\n"), Options{SkipValidation: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := spec.Inputs(); ok {
		t.Error("a spec in one file has Inputs")
	}
}
