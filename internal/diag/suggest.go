package diag

import (
	"fmt"
	"slices"
	"strings"
)

// Nearest returns the candidate closest to s by edit distance, when close
// enough to be a likely typo, else "".
func Nearest(s string, candidates []string) string {
	best, bestDist := "", 1<<30
	for _, c := range candidates {
		dist := levenshtein(strings.ToLower(s), strings.ToLower(c))
		if dist < bestDist || dist == bestDist && c < best {
			best, bestDist = c, dist
		}
	}
	limit := max(2, len(s)/3)
	if bestDist <= limit && bestDist < len(s) {
		return best
	}
	// A name cut short (`desc`, `customer` for customer_id) is far from
	// the whole by edit distance; suggest the one name it begins.
	prefixed := ""
	for _, c := range candidates {
		if len(s) >= 3 && strings.HasPrefix(strings.ToLower(c), strings.ToLower(s)) {
			if prefixed != "" && prefixed != c {
				return ""
			}
			prefixed = c
		}
	}
	return prefixed
}

// DidYouMean is "; did you mean `x`?" for the candidate nearest to s, or
// "" when none is close: the end of a message about a misspelt name.
func DidYouMean(s string, candidates []string) string {
	if best := Nearest(s, candidates); best != "" {
		return fmt.Sprintf("; did you mean `%s`?", best)
	}
	return ""
}

// Suggest is DidYouMean, or, when no candidate is close and there are
// few, "; expected one of: a, b, c" (sorted): the end of a message about
// an unknown key or name in one of tailor's YAML files.
func Suggest(s string, candidates []string) string {
	if hint := DidYouMean(s, candidates); hint != "" {
		return hint
	}
	if len(candidates) > 0 && len(candidates) <= 20 {
		return "; expected one of: " + strings.Join(slices.Sorted(slices.Values(candidates)), ", ")
	}
	return ""
}

// JoinNames lists names for a message, the first fifteen of a longer list.
func JoinNames(names []string) string {
	if len(names) > 15 {
		return fmt.Sprintf("%s, … (%d in all)", JoinNames(names[:15]), len(names))
	}
	return strings.Join(names, ", ")
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
