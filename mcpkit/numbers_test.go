package mcpkit

import (
	"bytes"
	"strings"
	"testing"
)

// Numbers in templates are the API's json.Number values: conditions and
// comparisons must treat them as numbers, and printing must keep them
// exact.
func TestTemplateNumbers(t *testing.T) {
	body := func(s string) map[string]any { return map[string]any{"body": decode(t, s)} }
	zero := body(`{"voucher": 0, "credit": 0.0, "name": "x", "big": 12345678901234567890, "list": [], "flag": false}`)
	some := body(`{"voucher": 2.5, "credit": 30, "name": "x", "big": 12345678901234567890, "list": [1], "flag": true}`)
	for _, tc := range []struct {
		tmpl       string
		zero, some string
	}{
		{`{{if .body.voucher}}yes{{else}}no{{end}}`, "no", "yes"},
		{`{{if .body.credit}}yes{{else}}no{{end}}`, "no", "yes"},
		{`{{if gt .body.voucher 0}}pos{{else}}none{{end}}`, "none", "pos"},
		{`{{if ge .body.credit 30}}ge{{end}}{{if lt .body.credit 30}}lt{{end}}`, "lt", "ge"},
		{`{{if eq .body.credit 0}}zero{{end}}{{if ne .body.credit 0}}nonzero{{end}}`, "zero", "nonzero"},
		{`{{if eq .body.credit 1 30 50}}listed{{end}}`, "", "listed"},
		{`{{if eq .body.voucher 2.5}}exact{{end}}`, "", "exact"},
		{`{{with .body.credit}}credit {{.}}{{else}}no credit{{end}}`, "no credit", "credit 30"},
		{`{{if and .body.voucher .body.credit}}both{{end}}{{if or .body.voucher .body.credit}} one{{end}}{{if not .body.voucher}} none{{end}}`, " none", "both one"},
		{`{{if $v := .body.voucher}}{{$v}}{{end}}`, "", "2.5"},
		{`{{.body.big}} {{if gt .body.big 12345678901234567}}big{{end}}`, "12345678901234567890 big", "12345678901234567890 big"},
		{`{{if .body.list}}items{{end}}{{if .body.flag}}flag{{end}}{{if eq .body.name "x"}} named{{end}}`, " named", "itemsflag named"},
		{`{{money .body.credit}}`, "0", "30"},
		{`{{range .body.list}}{{if eq . 1}}one{{end}}{{end}}`, "", "one"},
	} {
		tm, err := ParseTemplate("t", tc.tmpl)
		if err != nil {
			t.Fatalf("%s: %v", tc.tmpl, err)
		}
		for _, c := range []struct {
			data map[string]any
			want string
		}{{zero, tc.zero}, {some, tc.some}} {
			var buf bytes.Buffer
			if err := executeTemplate(tm, &buf, c.data); err != nil {
				t.Errorf("%s: %v", tc.tmpl, err)
			} else if buf.String() != c.want {
				t.Errorf("%s on %v: %q, want %q", tc.tmpl, c.data["body"], buf.String(), c.want)
			}
		}
	}
}

// A comparison that makes no sense is an error, not a silent false.
func TestTemplateComparisonErrors(t *testing.T) {
	for _, src := range []string{`{{if gt .body.obj 0}}x{{end}}`, `{{if lt .body.flag true}}x{{end}}`, `{{if eq .body.obj .body.list}}x{{end}}`,
		`{{if gt .body.n "5"}}x{{end}}`, `{{if eq .body.n "10"}}x{{end}}`} {
		tm, err := ParseTemplate("t", src)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		err = executeTemplate(tm, &buf, map[string]any{"body": decode(t, `{"obj": {"a": 1}, "flag": true, "list": [1], "n": 10}`)})
		if err == nil {
			t.Errorf("%s: no error", src)
		} else if msg := templateError(err); !strings.HasPrefix(msg, "at <") {
			t.Errorf("%s: error %q", src, msg)
		}
	}
}
