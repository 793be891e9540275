package mcpkit

import (
	"strings"
	"testing"
)

func TestDotSegment(t *testing.T) {
	for seg, want := range map[string]bool{
		".": true, "..": true, "%2E": true, "%2e%2E": true, ".%2E": true,
		"%252E%252E": true, "%25252e%25252e": true,
		"...": false, "a..": false, "..a": false, "%2E%2E%2E": false, "": false, "%zz": false,
	} {
		if got := dotSegment(seg); got != want {
			t.Errorf("dotSegment(%q) = %v, want %v", seg, got, want)
		}
	}
}

// Every style and every encoding of a dot segment is refused before
// anything is built; values that only contain dots pass.
func TestPathRefusesDotSegments(t *testing.T) {
	c := &Call{tool: &Tool{}}
	for _, tc := range []struct {
		template string
		fill     map[string]any
		style    Style
		refused  bool
	}{
		{"/orders/{id}", map[string]any{"id": ".."}, Simple, true},
		{"/orders/{id}", map[string]any{"id": "."}, Simple, true},
		{"/orders/{id}", map[string]any{"id": "%2E%2E"}, Simple, true},
		{"/orders/{id}", map[string]any{"id": "%252e%252e"}, Simple, true},
		{"/orders/{id}", map[string]any{"id": []any{".."}}, Simple, true},
		{"/orders/{id}", map[string]any{"id": "."}, Style{Name: "label"}, true},
		{"/files/{a}{b}", map[string]any{"a": ".", "b": "."}, Simple, true},
		{"/orders/{id}", map[string]any{"id": "..."}, Simple, false},
		{"/orders/{id}", map[string]any{"id": "../admin"}, Simple, false},
		{"/orders/{id}.json", map[string]any{"id": "."}, Simple, false},
		{"/orders/{id}", map[string]any{"id": []any{"..", "a"}}, Simple, false},
		{"/orders/{id}", map[string]any{"id": ".."}, Style{Name: "matrix"}, false},
	} {
		r := c.Request("GET", tc.template)
		for _, k := range sortedKeys(tc.fill) {
			r.Path(k, Value{Set: true, V: tc.fill[k]}, tc.style)
		}
		if got := r.err != nil; got != tc.refused {
			t.Errorf("%s %v (%s): refused = %v (%v), want %v", tc.template, tc.fill, tc.style.Name, got, r.err, tc.refused)
		}
		if tc.refused && !strings.Contains(r.err.Error(), "relative step") {
			t.Errorf("%s %v: message %q does not say why", tc.template, tc.fill, r.err)
		}
	}
}
