package mcpkit

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// Words of one business that built-in texts must not use: a server for
// clinics or hosting reads them too.
var domainWords = regexp.MustCompile(`(?i)\b(orders?|customers?|refunds?|back[ -]?office|shop|payments?|carts?|invoices?)\b`)

// TestCatalog renders every default message with every field set, so that
// a default that reads a field it does not declare fails here, and checks
// that none speaks of a particular business.
func TestCatalog(t *testing.T) {
	k := testKit(t, nil)
	for _, m := range Catalog() {
		f := M{}
		for _, fd := range m.Fields {
			f[fd.Name] = "<" + fd.Name + ">"
		}
		text, err := renderMessage(m.Text, map[string]any(f))
		if err != nil {
			t.Errorf("%s: %v", m.ID, err)
			continue
		}
		if w := domainWords.FindString(m.Text); w != "" {
			t.Errorf("%s speaks of %q: %s", m.ID, w, m.Text)
		}
		if strings.TrimSpace(text) == "" {
			t.Errorf("%s renders empty", m.ID)
		}
		if got := k.render(m.ID, "t", nil, nil); strings.Contains(got, "<no value>") || got == "" {
			t.Errorf("%s with no fields: %q", m.ID, got)
		}
		for _, fd := range m.Fields {
			if fd.Doc == "" {
				t.Errorf("%s: field %s is not documented", m.ID, fd.Name)
			}
		}
	}
}

func TestMessageOverrides(t *testing.T) {
	var log bytes.Buffer
	k := testKit(t, &log)
	k.api.Messages = map[string]string{"not_found": "server: {{.status}}", "conflict": "server conflict", "refused": "{{.nope}}"}
	tool := map[string]string{"not_found": "tool: {{.tool}} {{.code}}"}
	if got := k.render("not_found", "get_x", tool, M{"status": "HTTP 404", "code": 404}); got != "tool: get_x 404" {
		t.Errorf("tool override: %q", got)
	}
	if got := k.render("conflict", "get_x", tool, nil); got != "server conflict" {
		t.Errorf("server override: %q", got)
	}
	if got := k.render("other_status", "get_x", tool, M{"status": "HTTP 418"}); got != "The API answered HTTP 418." {
		t.Errorf("default: %q", got)
	}
	// An override that fails at run time is logged; the default is used.
	if got := k.render("refused", "get_x", nil, M{"status": "HTTP 422"}); !strings.HasPrefix(got, "The API refused the request (HTTP 422).") {
		t.Errorf("failing override: %q", got)
	}
	if !strings.Contains(log.String(), "message template failed") {
		t.Errorf("the failing override was not logged: %s", log.String())
	}
}

func testKit(t *testing.T, log *bytes.Buffer) *Runtime {
	t.Helper()
	if log == nil {
		log = &bytes.Buffer{}
	}
	k, err := NewRuntime(API{Name: "x", EnvPrefix: "X"}, Config{BaseURL: "http://127.0.0.1:1", Log: log, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return k
}
