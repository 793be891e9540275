package model

import (
	"strconv"
	"strings"
)

// fitted is the name fitNames chose for one base name.
type fitted struct {
	name string
	// shortened says the base was over the budget; taken names the tool
	// that had the name first when this one got a suffix ("" if none).
	shortened bool
	taken     int
}

// fitNames names every operation from its base name (baseName), all
// within budget characters, all different, deterministically:
//
//   - a base within the budget is the name, unchanged (a tool that fits
//     every client keeps its name);
//   - a longer one is shortened (shortenKeeping), dropping first the words
//     every base has; when shortened names come out alike, the words that
//     tell their bases apart (v1 and v2, pods and services) are kept and
//     they are shortened again;
//   - names still alike get a suffix _2, _3, ... in operation order,
//     names that needed no shortening first: no tool is dropped.
func fitNames(bases []string, budget int) []fitted {
	common := commonWords(bases)
	out := make([]fitted, len(bases))
	keep := make([]map[string]bool, len(bases))
	for i, b := range bases {
		out[i] = fitted{name: shorten(b, budget, common), shortened: len(b) > budget, taken: -1}
	}
	// Shortened names alike: keep what tells the bases apart, twice at
	// most (a second round settles what the first made alike anew).
	for range 2 {
		groups := map[string][]int{}
		for i, f := range out {
			groups[f.name] = append(groups[f.name], i)
		}
		changed := false
		for _, g := range groups {
			if len(g) < 2 {
				continue
			}
			// Among the shortened names only: one alike a name that fits
			// whole takes a suffix below.
			var short []int
			for _, i := range g {
				if out[i].shortened {
					short = append(short, i)
				}
			}
			if len(short) < 2 {
				continue
			}
			telling := tellingWords(bases, short)
			for _, i := range short {
				for w := range telling {
					if keep[i] == nil {
						keep[i] = map[string]bool{}
					}
					if !keep[i][w] && strings.Contains("_"+bases[i]+"_", "_"+w+"_") {
						keep[i][w] = true
						changed = true
					}
				}
				out[i].name = shortenKeeping(bases[i], budget, common, keep[i])
			}
		}
		if !changed {
			break
		}
	}
	// Suffixes: names that fit whole keep them first.
	used := map[string]int{}
	// next is where the search for a base's suffix starts: the smallest
	// free one, when the bases alike came before it (a name repeated
	// thousands of times tried every suffix taken before it).
	next := map[string]int{}
	for _, whole := range []bool{true, false} {
		for i := range out {
			if out[i].shortened == whole {
				continue
			}
			name := out[i].name
			if first, ok := used[name]; ok {
				out[i].taken = first
				// The suffixed name is the base's alone when no words
				// are kept for it (keep); then the ones below next are
				// taken.
				key, n := "", 2
				if len(keep[i]) == 0 {
					key = bases[i]
					n = max(n, next[key])
				}
				for ; ; n++ {
					suffix := "_" + strconv.Itoa(n)
					name = shortenKeeping(bases[i], budget-len(suffix), common, keep[i]) + suffix
					if _, ok := used[name]; !ok {
						break
					}
				}
				if key != "" {
					next[key] = n + 1
				}
			}
			used[name] = i
			out[i].name = name
		}
	}
	return out
}

// tellingWords are the words some but not all of the bases of group have.
func tellingWords(bases []string, group []int) map[string]bool {
	count := map[string]int{}
	for _, i := range group {
		seen := map[string]bool{}
		for _, w := range strings.Split(bases[i], "_") {
			if !seen[w] {
				seen[w] = true
				count[w]++
			}
		}
	}
	out := map[string]bool{}
	for w, n := range count {
		if n < len(group) {
			out[w] = true
		}
	}
	return out
}
