package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/tailormcp/tailor/internal/confusable"
)

// MaxToolName is the longest tool name tailor emits. The MCP spec allows
// 128 characters but several clients cap tool names at 64.
const MaxToolName = 64

// ValidToolName reports whether name is a tool name tailor may emit: 1 to
// MaxToolName of a-z A-Z 0-9 _ -. (The length is checked apart from the
// characters: as a bounded repetition it compiled into 64 copies of the
// class at every start of tailor.)
func ValidToolName(name string) bool {
	return len(name) <= MaxToolName && toolNameChars.MatchString(name)
}

var toolNameChars = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// SnakeCase turns an operationId or a method+path into snake_case using only
// [a-z0-9_]: "findPetsByTag" → "find_pets_by_tag", "find pet by id" →
// "find_pet_by_id", "GET /v1/{id}" → "get_v1_id".
func SnakeCase(s string) string {
	var b strings.Builder
	rs := []rune(s)
	lastUnderscore := true
	for i, r := range rs {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if unicode.IsUpper(r) && !lastUnderscore && i > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					b.WriteByte('_')
				}
			}
			b.WriteRune(unicode.ToLower(r))
			lastUnderscore = false
		default:
			if !lastUnderscore {
				b.WriteByte('_')
				lastUnderscore = true
			}
		}
	}
	return strings.Trim(b.String(), "_")
}

// nameOf is the snake_case name of an operationId or a method and path,
// read as it looks: letters of other scripts that look like Latin ones
// are spelt in Latin ("get_usеr" with a Cyrillic е is get_user, not
// get_us_r), so that a name cannot hide what it says.
func nameOf(s string) string {
	latin, _ := confusable.ToLatin(s)
	return SnakeCase(latin)
}

// lookAlikes describes letters read as Latin ones: `Cyrillic U+0435 "е"
// as "e"`.
func lookAlikes(rs []rune) string {
	var parts []string
	seen := map[rune]bool{}
	for _, r := range rs {
		if seen[r] {
			continue
		}
		seen[r] = true
		parts = append(parts, fmt.Sprintf("%s U+%04X %q as %q", confusable.Script(r), r, string(r), confusable.Latin(r)))
	}
	return strings.Join(parts, ", ")
}

// shorten fits a snake_case name into max characters by dropping its
// least informative words first, so that two long names that differ only
// at the end stay apart and readable (see shortenKeeping).
func shorten(name string, max int, common map[string]bool) string {
	return shortenKeeping(name, max, common, nil)
}

// shortenKeeping fits a snake_case name into max characters. Words are
// dropped or shortened one at a time, left to right within each step, in
// this order, until the name fits:
//
//  1. version and date segments (v2, 2026, 09, beta): every operation of an
//     API version shares them;
//  2. words every operation's name has (common, e.g. "crm" or "api");
//  3. repeats of a word used earlier in the name;
//  4. connectives (by, of, the, ...);
//  5. long words spelt as their usual abbreviation (namespaced → ns,
//     configuration → config; see abbreviations);
//  6. any remaining word after the first, left to right;
//  7. then the words of keep too (words that tell this name from a
//     sibling's; steps 1 to 6 skip them).
//
// The first word (usually the verb: get, list, create) and the last (the
// distinguishing tail) are kept. Only a name whose first and last words
// alone are too long is cut, ending in a short hash of the whole name. The
// same input always gives the same output.
func shortenKeeping(name string, max int, common, keep map[string]bool) string {
	if len(name) <= max {
		return name
	}
	words := strings.Split(name, "_")
	kept := make([]bool, len(words))
	for i := range kept {
		kept[i] = true
	}
	length := len(name)
	seen := map[string]bool{}
	repeat := make([]bool, len(words))
	for i, w := range words {
		repeat[i] = seen[w]
		seen[w] = true
	}
	droppable := func(i int) bool { return !keep[words[i]] }
	steps := []func(i int) bool{
		func(i int) bool { return droppable(i) && versionWord.MatchString(words[i]) },
		func(i int) bool { return droppable(i) && common[words[i]] },
		func(i int) bool { return droppable(i) && repeat[i] },
		func(i int) bool { return droppable(i) && connectives[words[i]] },
		nil, // abbreviations
		droppable,
		func(int) bool { return true },
	}
	for _, drop := range steps {
		if drop == nil {
			for i := 1; i < len(words) && length > max; i++ {
				short, ok := abbreviations[words[i]]
				if !ok || !kept[i] {
					continue
				}
				if i < len(words)-1 && slices.Contains(keptWords(words[:i], kept), short) {
					// namespaces_{namespace} would read ns_ns.
					kept[i] = false
					length -= len(words[i]) + 1
					continue
				}
				length -= len(words[i]) - len(short)
				words[i] = short
			}
			continue
		}
		for i := 1; i < len(words)-1 && length > max; i++ {
			if kept[i] && drop(i) {
				kept[i] = false
				length -= len(words[i]) + 1
			}
		}
	}
	if length <= max {
		out := make([]string, 0, len(words))
		for i, w := range words {
			if kept[i] {
				out = append(out, w)
			}
		}
		return strings.Join(out, "_")
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "_" + hex.EncodeToString(sum[:])[:7]
	return strings.TrimRight(name[:max-len(suffix)], "_") + suffix
}

// keptWords are the words of words still kept.
func keptWords(words []string, kept []bool) []string {
	var out []string
	for i, w := range words {
		if kept[i] {
			out = append(out, w)
		}
	}
	return out
}

// abbreviations are the usual short forms of long words of API names,
// common to programming rather than to one domain.
var abbreviations = map[string]string{
	"administrator": "admin", "application": "app", "applications": "apps",
	"attribute": "attr", "attributes": "attrs", "authentication": "authn", "authorization": "authz",
	"certificate": "cert", "certificates": "certs", "configuration": "config", "configurations": "configs",
	"credential": "cred", "credentials": "creds", "database": "db", "databases": "dbs",
	"definition": "def", "definitions": "defs", "description": "desc", "development": "dev",
	"directory": "dir", "directories": "dirs", "document": "doc", "documents": "docs",
	"environment": "env", "environments": "envs", "identifier": "id", "identifiers": "ids",
	"information": "info", "management": "mgmt", "message": "msg", "messages": "msgs",
	"namespace": "ns", "namespaced": "ns", "namespaces": "ns", "number": "num",
	"organization": "org", "organizations": "orgs", "parameter": "param", "parameters": "params",
	"permission": "perm", "permissions": "perms", "properties": "props", "property": "prop",
	"reference": "ref", "references": "refs", "repository": "repo", "repositories": "repos",
	"request": "req", "requests": "reqs", "response": "resp", "responses": "resps",
	"specification": "spec", "statistics": "stats", "synchronization": "sync", "synchronize": "sync",
	"temporary": "temp", "transaction": "txn", "transactions": "txns",
}

// versionWord matches the words of version and date segments: v1, v2beta1,
// 2026, 09, alpha, beta, preview.
var versionWord = regexp.MustCompile(`^(v[0-9]+([a-z]+[0-9]*)?|[0-9]+|alpha|beta|preview)$`)

// connectives are words a name reads well without.
var connectives = map[string]bool{"a": true, "an": true, "the": true, "of": true, "by": true, "for": true, "with": true, "and": true}

// commonWords are the words every name of names has; nil when there are
// fewer than two names (then no word is common knowledge).
func commonWords(names []string) map[string]bool {
	if len(names) < 2 {
		return nil
	}
	var common map[string]bool
	for _, n := range names {
		here := map[string]bool{}
		for _, w := range strings.Split(n, "_") {
			if common == nil || common[w] {
				here[w] = true
			}
		}
		common = here
		if len(common) == 0 {
			return nil
		}
	}
	return common
}

var unsafeArg = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// safeArg reports whether unsafeArg matches nothing in name.
func safeArg(name string) bool {
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '.', c == '-':
		default:
			return false
		}
	}
	return true
}

// ArgName makes a parameter name usable as an inputSchema property name
// (several clients require ^[a-zA-Z0-9_.-]{1,64}$): "expand[]" → "expand".
func ArgName(name string) string {
	a := name
	if !safeArg(name) { // nearly every name is: the expression is slow beside the check
		a = unsafeArg.ReplaceAllString(name, "_")
	}
	a = strings.Trim(a, "_")
	if a == "" {
		a = "arg"
	}
	if len(a) > MaxToolName {
		a = shorten(a, MaxToolName, nil)
	}
	return a
}
