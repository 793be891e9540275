package model

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"unicode"
)

// MaxToolName is the longest tool name tailor emits. The MCP spec allows
// 128 characters but several clients cap tool names at 64.
const MaxToolName = 64

// ValidToolName is the pattern every emitted tool name matches.
var ValidToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

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

// shorten cuts name to max characters, replacing the tail with a short hash
// of the whole name so that two long names that share a prefix stay apart,
// and the same input always gives the same output.
func shorten(name string, max int) string {
	if len(name) <= max {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "_" + hex.EncodeToString(sum[:])[:7]
	return strings.TrimRight(name[:max-len(suffix)], "_") + suffix
}

var unsafeArg = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// ArgName makes a parameter name usable as an inputSchema property name
// (several clients require ^[a-zA-Z0-9_.-]{1,64}$): "expand[]" → "expand".
func ArgName(name string) string {
	a := strings.Trim(unsafeArg.ReplaceAllString(name, "_"), "_")
	if a == "" {
		a = "arg"
	}
	if len(a) > MaxToolName {
		a = shorten(a, MaxToolName)
	}
	return a
}
