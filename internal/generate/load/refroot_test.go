package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (path relative to dir → content) below dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const separateSpec = `swagger: "2.0"
info: {title: t, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        default:
          description: error
          schema:
            $ref: ../common/Error.yaml
`

// In a repository the common layout spec/swagger.yaml →
// ../common/Error.yaml loads without --ref-root: the default root is the
// enclosing repository (the nearest folder holding .git).
func TestDefaultRefRootIsTheRepository(t *testing.T) {
	repo := t.TempDir()
	writeTree(t, repo, map[string]string{
		".git/HEAD":         "ref: refs/heads/main\n",
		"spec/swagger.yaml": separateSpec,
		"common/Error.yaml": "type: object\nproperties:\n  message: {type: string}\n",
	})
	spec, err := Load(filepath.Join(repo, "spec", "swagger.yaml"), Options{SkipValidation: true})
	if err != nil {
		t.Fatal(err)
	}
	op := spec.Doc.Paths.Value("/pets").Get
	s := op.Responses.Default().Value.Content["application/json"].Schema.Value
	if s == nil || s.Properties["message"] == nil {
		t.Fatalf("Error.yaml not read: %+v", s)
	}
}

// Outside a repository the default root stays the spec's folder, and a
// $ref out of the root, even the repository's, is refused at the $ref,
// without reading the file.
func TestRefRootRefusesWhatIsOutside(t *testing.T) {
	for _, tc := range []struct {
		name, git, refRoot string
	}{
		{name: "no repository"},
		{name: "beyond the repository", git: "repo/.git/HEAD"},
		{name: "beyond --ref-root, inside the repository", git: ".git/HEAD", refRoot: "repo/spec"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"repo/spec/swagger.yaml": strings.Replace(separateSpec, "../common/Error.yaml", "../../common/Error.yaml", 1),
				"common/Error.yaml":      "type: object\n",
			}
			if tc.git != "" {
				files[tc.git] = "ref: refs/heads/main\n"
			}
			writeTree(t, dir, files)
			opts := Options{SkipValidation: true}
			if tc.refRoot != "" {
				opts.RefRoot = filepath.Join(dir, tc.refRoot)
			}
			path := filepath.Join(dir, "repo", "spec", "swagger.yaml")
			_, err := Load(path, opts)
			if err == nil {
				t.Fatal("loaded a $ref outside the root")
			}
			if want := path + ":11:13:"; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "outside") {
				t.Errorf("error %q, want one at %s saying it is outside the root", err, want)
			}
		})
	}
}
