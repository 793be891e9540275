package model

import (
	"bytes"
	"strings"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/schema"
	"github.com/tailormcp/tailor/internal/parallel"
)

// MaxDescription bounds a tool's description, in bytes: Codex cuts plugin
// tool descriptions there, and every byte is paid on every turn.
const MaxDescription = 1000

// Listed makes what tools/list shows of the curated tool set api: each
// description within MaxDescription (cut at a sentence boundary), and,
// unless full, the strict form of each input schema (Strict).
func Listed(api *ir.API, full bool) []diag.Diagnostic {
	for _, t := range api.Tools {
		t.Description = schema.TrimText(schema.PlainText(t.Description), MaxDescription)
	}
	if full {
		return nil
	}
	return Strict(api)
}

// Strict gives every tool of api the strict form of its input schema
// (schema.ToStrict), which the server lists: the schema every major model
// API accepts for strict function calling. The full schema stays the
// tool's InputSchema, which validates the calls. It runs on the curated
// tool set, so that what the overlay changed is listed as changed. What
// the model can no longer say in the strict form is a warning, once per
// place (a component shared by many tools is one warning). An argument
// many tools describe alike is described once, in the instructions
// (sharedArguments). A tool whose strict form is its full schema keeps
// no StrictSchema: InputSchema is listed. A large tool set lists each tool within a smaller
// budget (schema.LargeSetBudget).
func Strict(api *ir.API) []diag.Diagnostic {
	shared := sharedArguments(api)
	api.Instructions = withInstructions(api.Instructions, sharedInstructions(shared))
	opts := schema.StrictOptions{Said: shared}
	if len(api.Tools) > schema.LargeSet {
		opts.Budget = schema.LargeSetBudget
	}
	// Tools with the same input schema have the same strict form, and
	// many do (the operations of each resource that take only its id,
	// every list with the same paging): each distinct schema is converted
	// once, and its tools share the form.
	forms := make([]*schema.StrictForm, len(api.Tools))
	errs := make([]error, len(api.Tools))
	same := make([]int, len(api.Tools)) // the tool whose form a tool has
	first := map[string]int{}
	var distinct []int
	for i, t := range api.Tools {
		if j, ok := first[string(t.InputSchema)]; ok {
			same[i] = j
			continue
		}
		first[string(t.InputSchema)], same[i] = i, i
		distinct = append(distinct, i)
	}
	parallel.For(len(distinct), func(k int) {
		i := distinct[k]
		forms[i], errs[i] = schema.ToStrictWith(api.Tools[i].InputSchema, opts)
	})
	l := &diag.List{}
	said := map[string]bool{}
	for i, t := range api.Tools {
		pos := diag.Pos{File: t.Origin.File, Line: t.Origin.Line, Col: t.Origin.Col}
		form, err := forms[same[i]], errs[same[i]]
		if err != nil {
			l.Warnf(pos, t.Origin.Pointer, "tool %q: input schema has no strict form (%v); its full schema is listed", t.Name, err)
			continue
		}
		if len(form.Plan) > 0 || !bytes.Equal(form.Schema, t.InputSchema) {
			// Only where it differs: the same text twice would be
			// written twice in schemas.go.
			t.StrictSchema, t.StrictPlan = form.Schema, form.Plan
		}
		for _, lost := range form.Lost {
			if strings.HasPrefix(lost, "#/$defs/") {
				if said[lost] {
					continue
				}
				said[lost] = true
			}
			l.Warnf(pos, t.Origin.Pointer, "tool %q lists its input schema in strict form, where %s; calls are still checked against the full schema (--full-schemas lists it)", t.Name, lostText(lost))
		}
	}
	return l.All()
}

// lostText puts a place in the input schema first in words:
// "#/properties/metadata: x" → "at metadata, x".
func lostText(lost string) string {
	where, what, ok := strings.Cut(lost, ": ")
	if !ok {
		return lost
	}
	where = strings.TrimPrefix(where, "#")
	where = strings.ReplaceAll(strings.TrimPrefix(where, "/"), "/properties/", ".")
	where = strings.TrimPrefix(where, "properties/")
	return "at " + where + ", " + what
}
