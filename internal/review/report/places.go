package report

import (
	"fmt"

	"github.com/tailormcp/tailor/internal/generate/overlay"
)

// Places are where each tool is curated in the overlay, so that a finding
// points at the line to change. A tool the overlay does not curate has no
// place: findings then say to add it.
type Places struct {
	File  string
	Tools map[string]*ToolPlaces
}

// ToolPlaces are the lines of one tool's entry and of its parts.
type ToolPlaces struct {
	Line int
	// Params maps a model-facing argument name to its entry's line.
	Params map[string]int
	// Rules are the lines of the tool's error rules, in order.
	Rules    []int
	Result   int // result.text, else result
	Quote    int
	Approval int
}

// PlacesOf reads the places of an overlay's tools.
func PlacesOf(o *overlay.Overlay) *Places {
	p := &Places{File: o.Path, Tools: map[string]*ToolPlaces{}}
	for _, t := range o.Tools {
		if t.Hidden {
			continue
		}
		tp := &ToolPlaces{Line: t.Pos.Line, Params: map[string]int{}}
		for _, prm := range t.Params {
			name := prm.Name
			if prm.Rename != nil {
				name = *prm.Rename
			}
			tp.Params[name] = prm.Pos.Line
		}
		for _, a := range t.Args {
			tp.Params[a.Name] = a.Pos.Line
		}
		for _, r := range t.Errors {
			tp.Rules = append(tp.Rules, r.Pos.Line)
		}
		if r := t.Result; r != nil {
			tp.Result = r.Pos.Line
			if r.Text != nil {
				tp.Result = r.Text.Pos.Line
			}
		}
		if t.Quote != nil {
			tp.Quote = t.Quote.Pos.Line
		}
		if t.Approval != nil {
			tp.Approval = t.Approval.Pos.Line
		}
		p.Tools[t.Name] = tp
	}
	return p
}

// at renders a line of the overlay as file:line, or "" when unknown.
func (p *Places) at(line int) string {
	if p == nil || line == 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d", p.File, line)
}

func (p *Places) tool(name string) *ToolPlaces {
	if p == nil {
		return nil
	}
	return p.Tools[name]
}

// toolAt is where a tool's entry is.
func (p *Places) toolAt(tool string) string {
	if tp := p.tool(tool); tp != nil {
		return p.at(tp.Line)
	}
	return ""
}

// paramAt is where an argument is curated, else where its tool is.
func (p *Places) paramAt(tool, arg string) string {
	if tp := p.tool(tool); tp != nil {
		if line := tp.Params[arg]; line != 0 {
			return p.at(line)
		}
		return p.at(tp.Line)
	}
	return ""
}

// ruleAt is where error rule i of a tool is, else where the tool is.
func (p *Places) ruleAt(tool string, i int) string {
	if tp := p.tool(tool); tp != nil {
		if i >= 0 && i < len(tp.Rules) {
			return p.at(tp.Rules[i])
		}
		return p.at(tp.Line)
	}
	return ""
}

// partAt is where a part of a tool is (a line of ToolPlaces), else the tool.
func (p *Places) partAt(tool string, part func(*ToolPlaces) int) string {
	if tp := p.tool(tool); tp != nil {
		if line := part(tp); line != 0 {
			return p.at(line)
		}
		return p.at(tp.Line)
	}
	return ""
}
