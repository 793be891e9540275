package e2e

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/testkit"
)

// TestSwagger2ParameterRules: a Swagger 2.0 spec with operations whose
// parameters break the version's rules (two bodies, a body beside form
// fields) no longer fails to load: generated and served, those operations
// are left out and every other one is a tool that reaches the backend as
// the spec means it (form fields as a form, a parameter declared twice
// as its later declaration).
func TestSwagger2ParameterRules(t *testing.T) {
	for _, sv := range goldenServers("defect-swagger2-parameters", "notes") {
		t.Run(sv.kind, func(t *testing.T) {
			backend := testkit.NewBackend(t, nil)
			srv := sv.stdio(t, []string{"NOTES_BASE_URL=" + backend.URL})
			list, err := srv.Session.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
			}
			slices.Sort(names)
			eq(t, "tools", strings.Join(names, ","), "add_tag,attach_file,get_note,list_notes")

			res := srv.Call(t, "add_tag", map[string]any{"id": "n1", "tag": "urgent"})
			eq(t, "add_tag isError", res.IsError, false)
			got := backend.Last(t)
			eq(t, "add_tag path", got.Method+" "+got.RawPath, "POST /notes/n1/tags")
			eq(t, "add_tag content type", got.Header.Get("Content-Type"), "application/x-www-form-urlencoded")
			form, _ := url.ParseQuery(got.Body)
			eq(t, "add_tag form", form.Encode(), "tag=urgent")

			res = srv.Call(t, "list_notes", map[string]any{"limit": 5})
			eq(t, "list_notes isError", res.IsError, false)
			eq(t, "list_notes query", backend.Last(t).Query, "limit=5")

			res = srv.Call(t, "list_notes", map[string]any{"limit": "five"})
			eq(t, "a limit that is no integer is refused", res.IsError, true)
		})
	}
}
