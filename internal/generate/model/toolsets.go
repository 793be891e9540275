package model

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tailormcp/tailor/internal/generate/ir"
)

// Every tool belongs to a toolset, so that a large API can be served in
// parts (--toolsets) or discovered (--dynamic): the operation's first tag,
// else the first meaningful segment of its path (stripe tags nothing:
// /v1/customers/{customer}/sources is in customers). Version segments
// (v1, 2024-01-01), "api" and placeholders are not meaningful.

// notMeaningful matches path segments that do not say what a path is about.
var notMeaningful = regexp.MustCompile(`^(?i:v\d+([._-]?\w+)?|\d[\d._-]*|api|apis|rest|\{.*\})$`)

// toolsetOf names the toolset of an operation.
func toolsetOf(tags []string, path string) (name, tag string) {
	if len(tags) > 0 {
		if n := SnakeCase(tags[0]); n != "" {
			return n, tags[0]
		}
	}
	for _, seg := range strings.Split(path, "/") {
		if seg == "" || notMeaningful.MatchString(seg) {
			continue
		}
		if n := SnakeCase(seg); n != "" {
			return n, ""
		}
	}
	return "general", ""
}

// Toolsets describes the toolsets api's tools name, sorted by name: a
// tag's description, else what the toolset's tools have in common. Every
// raw toolset is served by default.
func toolsets(doc *openapi3.T, api *ir.API, tags map[string]string) []ir.Toolset {
	byName := map[string]*ir.Toolset{}
	var prefixes = map[string]string{}
	for _, t := range api.Tools {
		if byName[t.Toolset] == nil {
			byName[t.Toolset] = &ir.Toolset{Name: t.Toolset, Default: true}
			prefixes[t.Toolset] = t.Call.Path
		}
		prefixes[t.Toolset] = commonPrefix(prefixes[t.Toolset], t.Call.Path)
	}
	var out []ir.Toolset
	for name, ts := range byName {
		tag := tags[name]
		switch {
		case tag != "" && doc.Tags.Get(tag) != nil && strings.TrimSpace(doc.Tags.Get(tag).Description) != "":
			ts.Description = firstSentence(doc.Tags.Get(tag).Description, 200)
		case tag != "":
			ts.Description = fmt.Sprintf("Operations the API tags %q.", tag)
		default:
			ts.Description = fmt.Sprintf("Operations on %s.", strings.TrimRight(prefixes[name], "/"))
		}
		out = append(out, *ts)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// commonPrefix is the longest common prefix of two paths, in whole
// segments.
func commonPrefix(a, b string) string {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	return strings.Join(as[:n], "/") + "/"
}

// firstSentence is text's first sentence on one line, at most max runes.
func firstSentence(text string, max int) string {
	text = strings.Join(strings.Fields(text), " ")
	if i := strings.Index(text, ". "); i > 0 {
		text = text[:i+1]
	}
	if r := []rune(text); len(r) > max {
		text = strings.TrimSpace(string(r[:max-1])) + "…"
	}
	return text
}
