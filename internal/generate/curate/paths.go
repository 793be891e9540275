package curate

import (
	"slices"
	"strings"

	"github.com/go-openapi/jsonpointer"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/ir"
)

// CheckPaths makes sure every call of every tool goes where its spec path
// says and can fill it:
//
//   - a path with a dot segment ("/public/../admin/{id}", "/%2e%2e/x") is
//     an error at the path's key in the spec: servers and proxies resolve
//     dot segments (RFC 3986 reads %2e as a dot), so the call would reach
//     another resource than the one the path names, outside the base path
//     maybe;
//   - a placeholder that no argument, fixed value or context value fills
//     would make every call of the tool fail at run time, so it is an
//     error at the tool. (The model stage declares placeholders the spec
//     forgot, and curate refuses to hide a required parameter without a
//     source; this is the guarantee that nothing slipped between them.)
func CheckPaths(api *ir.API) error {
	l := &diag.List{}
	dotted := map[string][]string{} // path → the tools that call it
	var dottedOrder []string
	for _, t := range api.Tools {
		pos := diag.Pos{File: t.Origin.File, Line: t.Origin.Line, Col: t.Origin.Col}
		calls := []*ir.Call{t.Call}
		names := []string{""}
		for _, st := range t.Steps {
			calls = append(calls, st.Call)
			names = append(names, " (step "+st.Name+")")
		}
		for i, c := range calls {
			if c == nil {
				continue
			}
			if _, ok := DotSegment(c.Path); ok {
				if dotted[c.Path] == nil {
					dottedOrder = append(dottedOrder, c.Path)
				}
				dotted[c.Path] = append(dotted[c.Path], t.Name)
				continue // where it goes is wrong already
			}
			if missing := c.Unfilled(); len(missing) > 0 {
				l.Errorf(pos, t.Origin.Pointer, "tool %q%s: nothing fills {%s} of %s %s (no argument, fixed value or context value); every call would fail",
					t.Name, names[i], strings.Join(missing, "}, {"), c.Method, c.Path)
			}
		}
	}
	for _, p := range dottedOrder {
		seg, _ := DotSegment(p)
		tools := slices.Compact(dotted[p])
		which := "tool " + tools[0]
		if len(tools) > 1 {
			which = "tools " + strings.Join(tools, ", ")
		}
		// The key's line is found from its pointer (the spec's positions
		// are of operations).
		l.Errorf(diag.Pos{File: api.Source.SpecPath}, "#/paths/"+jsonpointer.Escape(p),
			"spec path %q has the dot segment %q (%s): servers and proxies resolve it, so a call would reach another resource than the path names; correct the path in the spec, or leave its operations out with the overlay's exclude",
			p, seg, which)
	}
	return l.Err()
}

// DotSegment returns the first segment of a spec path that is "." or "..",
// as written. Read as servers and proxies may read it: a dot may be
// percent-encoded ("%2E%2e", which RFC 3986 reads as ".."), an encoded
// slash or a backslash may separate segments ("..%2F.."), and a segment's
// parameters (";x", which servers such as Tomcat drop before resolving)
// do not count.
func DotSegment(path string) (string, bool) {
	for _, seg := range strings.FieldsFunc(separators.Replace(path), func(r rune) bool { return r == '/' }) {
		s, _, _ := strings.Cut(strings.ToLower(seg), ";")
		if s = strings.ReplaceAll(s, "%2e", "."); s == "." || s == ".." {
			return seg, true
		}
	}
	return "", false
}

// separators turns what may separate segments into slashes.
var separators = strings.NewReplacer("%2F", "/", "%2f", "/", "%5C", "/", "%5c", "/", `\`, "/")
