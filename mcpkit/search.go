package mcpkit

import (
	"encoding/json"
	"sort"
	"strings"
	"unicode"

	"github.com/tailormcp/tailor/internal/diag"
)

// search_tools ranks tools by the words of a query found in their names,
// toolsets, argument names and descriptions, in that order of weight: a
// word in the name says more than one somewhere in a long description.
// Words are compared lowercase, split at case changes and punctuation,
// with a plural's s (and ies) taken off, so "invoices" finds
// get_invoice and "customer's" finds customer.

// toolWords are a tool's words by where they occur.
type toolWords struct {
	name, toolset, args, required, desc map[string]bool
	nameLen                             int
	deprecated                          bool
}

// weights of a query word found in each place (the best place counts).
const (
	nameWeight    = 4
	toolsetWeight = 3
	argWeight     = 2
	descWeight    = 1
)

func (e *entry) wordsOf() *toolWords {
	e.search.Do(func() {
		t := e.tool
		name := words(t.Name)
		e.words = toolWords{name: set(name), toolset: set(words(t.Toolset)), desc: set(words(t.Description)), nameLen: len(name)}
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		_ = json.Unmarshal([]byte(t.InputSchema), &s)
		var args, required []string
		for n := range s.Properties {
			args = append(args, words(n)...)
		}
		for _, n := range s.Required {
			required = append(required, words(n)...)
		}
		e.words.args, e.words.required = set(args), set(required)
		e.words.deprecated = strings.HasPrefix(t.Description, "Deprecated")
	})
	return &e.words
}

// rank returns the entries matching query, best first.
func rank(query string, entries []*entry) []*entry {
	q := words(query)
	type hit struct {
		e            *entry
		score, found int
	}
	var hits []hit
	for _, e := range entries {
		w := e.wordsOf()
		h := hit{e: e}
		for _, qw := range q {
			switch {
			case has(w.name, qw):
				h.score += nameWeight
			case has(w.toolset, qw):
				h.score += toolsetWeight
			case has(w.args, qw):
				h.score += argWeight
			case has(w.desc, qw):
				h.score += descWeight
			default:
				continue
			}
			h.found++
			// A word the caller must give (a required argument) says
			// more about what the tool is for than one it may.
			if has(w.required, qw) {
				h.score++
			}
		}
		if w.deprecated && h.score > 0 {
			h.score--
		}
		if h.score > 0 {
			hits = append(hits, h)
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.found != b.found {
			return a.found > b.found
		}
		if a.score != b.score {
			return a.score > b.score
		}
		if la, lb := a.e.words.nameLen, b.e.words.nameLen; la != lb {
			return la < lb
		}
		return a.e.tool.Name < b.e.tool.Name
	})
	out := make([]*entry, len(hits))
	for i, h := range hits {
		out[i] = h.e
	}
	return out
}

// stopWords carry no meaning in a search.
var stopWords = set([]string{"a", "an", "the", "of", "for", "to", "by", "and", "or", "in", "on", "with", "from", "that", "this", "it", "its", "is", "are", "be", "me", "my", "all", "then", "tool", "s"})

// words splits text into lowercase, singular words without stop words.
func words(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			w := stem(strings.ToLower(string(cur)))
			if !stopWords[w] {
				out = append(out, w)
			}
			cur = cur[:0]
		}
	}
	rs := []rune(text)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			// A case change starts a word: listInvoices, HTTPServer.
			if len(cur) > 0 && unicode.IsUpper(r) && (unicode.IsLower(cur[len(cur)-1]) || unicode.IsDigit(cur[len(cur)-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(cur[len(cur)-1])) {
				flush()
			}
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:len(w)-1]
	}
	return w
}

// has reports whether words holds w, or a word that differs from it by a
// short ending (namespace, namespaced) when both are long enough to say
// so.
func has(words map[string]bool, w string) bool {
	if words[w] {
		return true
	}
	if len(w) < 5 {
		return false
	}
	for x := range words {
		if len(x) >= 5 && (strings.HasPrefix(x, w) && len(x)-len(w) <= 2 || strings.HasPrefix(w, x) && len(w)-len(x) <= 2) {
			return true
		}
	}
	return false
}

func set(l []string) map[string]bool {
	m := make(map[string]bool, len(l))
	for _, w := range l {
		m[w] = true
	}
	return m
}

// nearest is the known name closest to name, or "".
func nearest(name string, known []string) string { return diag.Nearest(name, known) }
