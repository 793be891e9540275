package curate

import (
	"sort"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/ir"
)

// toolsets applies the overlay's toolsets to out's tools and describes
// every toolset they name: each tool listed goes into its toolset, a
// confirm tool with its quote tool; the others keep their operation's.
// A toolset the overlay does not describe keeps the raw description.
func (c *curator) toolsets(out *ir.API) []ir.Toolset {
	rawTool := map[*ir.Tool]bool{}
	for _, t := range c.raw.Tools {
		rawTool[t] = true
	}
	byName := map[string]*ir.Tool{}
	var names []string
	for i, t := range out.Tools {
		if rawTool[t] { // kept as is: a copy, so the raw IR stays raw
			cp := *t
			t, out.Tools[i] = &cp, &cp
		}
		byName[t.Name] = t
		names = append(names, t.Name)
	}
	placed := map[string]diag.Pos{}
	for _, ts := range c.o.Toolsets {
		for _, n := range ts.Tools {
			t := byName[n.Name]
			if t == nil {
				c.errorf(n.Pos, "toolset `%s`: there is no tool `%s` in the server%s", ts.Name, n.Name, diag.DidYouMean(n.Name, names))
				continue
			}
			if prev, dup := placed[n.Name]; dup {
				c.errorf(n.Pos, "toolset `%s`: tool `%s` is already in a toolset at %s; a tool belongs to one toolset", ts.Name, n.Name, prev)
				continue
			}
			placed[n.Name] = n.Pos
			t.Toolset = ts.Name
		}
	}
	// A quote and its confirm tool travel together: the confirm tool goes
	// where its quote tool is, unless it was placed itself.
	for _, t := range out.Tools {
		q := byName[t.Confirms]
		if q == nil {
			continue
		}
		_, qPlaced := placed[q.Name]
		pos, tPlaced := placed[t.Name]
		switch {
		case tPlaced && qPlaced && q.Toolset != t.Toolset:
			c.errorf(pos, "tool `%s` confirms `%s`, which is in toolset `%s`: a quote tool and its confirm tool are served together, so they must be in the same toolset", t.Name, q.Name, q.Toolset)
		case tPlaced && !qPlaced:
			q.Toolset = t.Toolset
		default:
			t.Toolset = q.Toolset
		}
	}
	raw := map[string]ir.Toolset{}
	for _, ts := range c.raw.Toolsets {
		raw[ts.Name] = ts
	}
	used := map[string]bool{}
	for _, t := range out.Tools {
		used[t.Toolset] = true
	}
	described := map[string]bool{}
	var sets []ir.Toolset
	for _, ts := range c.o.Toolsets {
		if !used[ts.Name] {
			c.diags.Warnf(ts.Pos, "", "toolset `%s` has no tools: list some under `tools`, or remove it", ts.Name)
			continue
		}
		set := raw[ts.Name]
		set.Name, set.Default = ts.Name, true
		if ts.Description != nil {
			set.Description = *ts.Description
		}
		if ts.Default != nil {
			set.Default = *ts.Default
		}
		described[ts.Name] = true
		sets = append(sets, set)
	}
	for name := range used {
		if described[name] {
			continue
		}
		set, ok := raw[name]
		if !ok {
			set = ir.Toolset{Name: name, Default: true}
		}
		sets = append(sets, set)
	}
	sort.Slice(sets, func(i, j int) bool { return sets[i].Name < sets[j].Name })
	return sets
}
