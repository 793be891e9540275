package load

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailormcp/tailor/internal/generate/load/specfile"
)

// specWithRef is a spec whose one response schema is a $ref to ref.
func specWithRef(ref string) string {
	return fmt.Sprintf(`openapi: 3.0.3
info: {title: refs, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                $ref: %q
`, ref)
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRefsStayBelowTheRoot: a $ref may read files below the spec's folder
// (or --ref-root) only, however it spells its way out, and the error says
// how to allow it.
func TestRefsStayBelowTheRoot(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write(t, "secrets/key.yaml", "Pet: {type: string, description: the secret}\n")
	write(t, "api/common/pet.yaml", "Pet: {type: object}\n")
	if err := os.Symlink(filepath.Join(dir, "secrets"), filepath.Join(dir, "api", "linked")); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(dir, "secrets", "key.yaml")
	for _, tc := range []struct{ ref, want string }{
		{"../secrets/key.yaml#/Pet", `api/openapi.yaml:13:17: error: $ref "../secrets/key.yaml#/Pet" reads secrets/key.yaml, outside api, the folder $refs may read: to allow it, run with --ref-root .`},
		{"linked/key.yaml#/Pet", `error: $ref "linked/key.yaml#/Pet" reads api/linked/key.yaml, a link to secrets/key.yaml, outside api, the folder $refs may read: to allow it, run with --ref-root .`},
		{"file://" + abs + "#/Pet", "outside api, the folder $refs may read"},
		{abs + "#/Pet", "outside api, the folder $refs may read"},
		{"/etc/passwd", "tailor reads only files below the spec's repository (or folder, outside one) unless --ref-root DIR names a wider one"},
	} {
		write(t, "api/openapi.yaml", specWithRef(tc.ref))
		_, err := Load("api/openapi.yaml", Options{SkipValidation: true})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("$ref %s: got %v, want an error containing %q", tc.ref, err, tc.want)
		}
	}

	// The same spec loads once the root holds both.
	write(t, "api/openapi.yaml", specWithRef("../secrets/key.yaml#/Pet"))
	spec, err := Load("api/openapi.yaml", Options{SkipValidation: true, RefRoot: "."})
	if err != nil {
		t.Fatalf("with --ref-root: %v", err)
	}
	s := spec.Doc.Paths.Value("/pets").Get.Responses.Value("200").Value.Content["application/json"].Schema.Value
	if s.Description != "the secret" {
		t.Errorf("schema = %+v, want the one in secrets/key.yaml", s)
	}
	// And a file below the root is read as always.
	write(t, "api/openapi.yaml", specWithRef("common/pet.yaml#/Pet"))
	if _, err := Load("api/openapi.yaml", Options{SkipValidation: true}); err != nil {
		t.Errorf("a $ref below the spec's folder: %v", err)
	}
}

// TestRemoteRefs runs remote $refs against a loopback server: refused
// unless allowed, then fetched within limits of size and time, and a
// remote document cannot reach local files outside the root either.
func TestRemoteRefs(t *testing.T) {
	defer func(size int64, timeout time.Duration) {
		specfile.MaxRemoteSize, specfile.RemoteTimeout = size, timeout
	}(specfile.MaxRemoteSize, specfile.RemoteTimeout)
	specfile.MaxRemoteSize, specfile.RemoteTimeout = 1<<10, 500*time.Millisecond

	hang := make(chan struct{})
	defer close(hang)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/pet.yaml":
			fmt.Fprint(w, "Pet: {type: object, description: fetched, properties: {tag: {$ref: 'tag.yaml#/Tag'}}}\n")
		case "/tag.yaml":
			fmt.Fprint(w, "Tag: {type: string, description: relative to the remote document}\n")
		case "/big.yaml":
			fmt.Fprint(w, "Pet: {description: "+strings.Repeat("x", 2<<10)+"}\n")
		case "/slow.yaml":
			select {
			case <-hang:
			case <-r.Context().Done():
			}
		case "/escape.yaml":
			fmt.Fprint(w, "Pet: {$ref: 'file:///etc/passwd'}\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	dir := t.TempDir()
	path := filepath.Join(dir, "openapi.yaml")
	load := func(ref string, allow bool) (*Spec, error) {
		write(t, path, specWithRef(srv.URL+ref))
		return Load(path, Options{SkipValidation: true, AllowRemoteRefs: allow})
	}

	if _, err := load("/pet.yaml#/Pet", false); err == nil || !strings.Contains(err.Error(), "13:17: error: remote $ref") || !strings.Contains(err.Error(), "--allow-remote-refs") {
		t.Errorf("not allowed: got %v, want a positioned refusal naming --allow-remote-refs", err)
	}

	spec, err := load("/pet.yaml#/Pet", true)
	if err != nil {
		t.Fatalf("allowed: %v", err)
	}
	s := spec.Doc.Paths.Value("/pets").Get.Responses.Value("200").Value.Content["application/json"].Schema.Value
	if s.Description != "fetched" || s.Properties["tag"].Value.Description != "relative to the remote document" {
		t.Errorf("schema = %+v, want the fetched one with its relative $ref resolved", s)
	}

	// A remote part that cannot be had is a part that cannot be read: a
	// warning at the $ref, and the schema accepts any value.
	for ref, want := range map[string]string{
		"/missing.yaml#/Pet": "HTTP 404 Not Found",
		"/big.yaml#/Pet":     "larger than",
		"/slow.yaml#/Pet":    "no answer within 500ms",
	} {
		spec, err := load(ref, true)
		if err != nil {
			t.Errorf("%s: %v", ref, err)
			continue
		}
		if len(spec.Warnings) != 1 || !strings.Contains(spec.Warnings[0].String(), "13:17: warning: cannot resolve $ref") || !strings.Contains(spec.Warnings[0].String(), want) {
			t.Errorf("%s: warnings %v, want one at the $ref saying %q", ref, spec.Warnings, want)
		}
	}

	if _, err := load("/escape.yaml#/Pet", true); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("a remote document's $ref to /etc/passwd: got %v, want it refused", err)
	}
}
