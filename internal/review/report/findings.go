package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// findings turns each tool's figures into findings, in the tools' rank
// order, each tool's biggest signal first; tools never called come last.
func (a *analysis) findings() {
	r := a.report
	for _, ts := range r.Tools {
		t := a.tools[ts.Tool]
		var fs []Finding
		add := func(signal string, count, of int, detail, where, change string) {
			if count > 0 {
				fs = append(fs, Finding{Tool: t.Tool, Signal: signal, Count: count, Of: of, Detail: detail, Where: where, Change: change})
			}
		}
		a.validation(t, add)
		a.refusals(t, add)
		a.quoteRefusals(t, add)
		add("auth", t.ByKind[Auth], t.Calls, fmt.Sprintf("%s refused for the caller's identity or permissions", calls(t.ByKind[Auth], t.Calls)), t.Where,
			"identity must come from the caller's context (a parameter `from: context.<name>`), never from an argument the model fills; a permission refusal is the server's credentials, not the tool")
		add("backend failure", t.ByKind[Backend], t.Calls, fmt.Sprintf("%s failed in the API or the server's configuration", callsOf(t.ByKind[Backend], t.Calls)), t.Where,
			"not the tool's design: check the API's health and the server's base URL and credentials")
		add("outcome unknown", t.ByKind[OutcomeUnknown], t.Calls, fmt.Sprintf("%s sent a write whose outcome is unknown", callsOf(t.ByKind[OutcomeUnknown], t.Calls)), t.Where,
			"send an Idempotency-Key so the write can be resent safely, and name a read-only tool that checks it in an error rule's text")
		a.retrySignals(t, add)
		a.quoteSignals(t, add)
		a.approvalSignals(t, add)
		add("results cut", t.Cut, t.Calls, fmt.Sprintf("%s cut to the result limit", resultsWere(t.Cut, t.Calls)), a.places.partAt(t.Tool, func(p *ToolPlaces) int { return p.Result }),
			"keep only what the model needs (`result.keep` or `result.drop`), or fix a smaller page size with a parameter's `value`")
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].Count > fs[j].Count })
		r.Findings = append(r.Findings, fs...)
	}
	for _, u := range r.NeverCalled {
		r.Findings = append(r.Findings, Finding{Tool: u.Tool, Signal: "never called", Detail: "no call in these logs", Where: u.Where,
			Change: "its description may not say when to use it, or the task does not need it: say when to use it, or hide it to make tools/list smaller"})
	}
}

type addFunc func(signal string, count, of int, detail, where, change string)

func (a *analysis) validation(t *toolData, add addFunc) {
	for _, arg := range byCount(t.invalidArgs) {
		n := t.invalidArgs[arg]
		add("validation", n, t.Calls, fmt.Sprintf("%s refused: argument `%s` was missing or did not fit the input schema", calls(n, t.Calls), arg), a.places.paramAt(t.Tool, arg),
			fmt.Sprintf("say in `%s`'s description what it takes (its format, an example, which tool returns it), or narrow it with an enum, pattern or bounds", arg))
	}
	add("validation", t.notFound, t.Calls, fmt.Sprintf("%s named something that does not exist (HTTP 404)", callsOf(t.notFound, t.Calls)), t.Where,
		"say in the parameters' descriptions where their identifiers come from (which tool lists them); an error rule for 404 can say what to ask the user")
	add("validation", t.apiInvalid, t.Calls, fmt.Sprintf("%s passed the input schema but the API refused an argument", callsOf(t.apiInvalid, t.Calls)), t.Where,
		"the input schema lets through what the API refuses: narrow the parameter the API names (enum, pattern, bounds) or describe its rule")
}

func (a *analysis) refusals(t *toolData, add addFunc) {
	if t.unruled > 0 {
		var st []string
		for _, s := range byCount(t.statuses) {
			if s != 0 {
				st = append(st, fmt.Sprint(s))
			}
		}
		status := ""
		if len(st) > 0 {
			status = " (HTTP " + strings.Join(st, ", ") + ")"
		}
		add("business rule", t.unruled, t.Calls, fmt.Sprintf("%s refused by a rule of the API%s and answered with the built-in message", calls(t.unruled, t.Calls), status), t.Where,
			"add an error rule (`errors:` with `when: {status: …, body: {code: …}}`) whose text says why and what to do instead (another tool, or what to tell the user)")
	}
}

// quoteRefusals are confirms refused for the state of their quote; what
// helps depends on which.
func (a *analysis) quoteRefusals(t *toolData, add addFunc) {
	quoteTool := ""
	for _, st := range a.quotes {
		if st.confirmTool == t.Tool {
			quoteTool = st.tool
		}
	}
	ttl := a.places.partAt(quoteTool, func(p *ToolPlaces) int { return p.Quote })
	n := t.quoteIssues["quote_expired"]
	add("quotes expired", n, t.Calls, fmt.Sprintf("%s tried to carry out a quote that had expired", callsOf(n, t.Calls)), firstOf(ttl, t.Where),
		"the user took longer than the quote lasts: raise `quote.ttl`, or have the quote's text say until when it is valid")
	n = t.quoteIssues["quote_used"]
	add("quotes reused", n, t.Calls, fmt.Sprintf("%s tried to carry out a quote already carried out", callsOf(n, t.Calls)), a.places.partAt(t.Tool, func(p *ToolPlaces) int { return p.Result }),
		"the model did not take the first result as done: make the result text say plainly what was done and that nothing is left to do")
	n = t.quoteIssues["quote_reserved"]
	add("quotes in progress", n, t.Calls, fmt.Sprintf("%s came while another call was carrying out the same quote", callsOf(n, t.Calls)), t.Where,
		"the model called the tool again before the first call answered (parallel calls, or a client timeout): say in the description that it may wait for the user's approval")
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func (a *analysis) retrySignals(t *toolData, add addFunc) {
	rt := t.Retries
	if rt == nil {
		return
	}
	gaveUp := ""
	if n := rt.Chains - rt.Recovered; n > 0 {
		gaveUp = fmt.Sprintf("; %d of %d chains never succeeded", n, rt.Chains)
	}
	for _, arg := range byCount(rt.Changed) {
		if arg == "quote_id" {
			// A new quote is not a guess: the refusal of the old one is
			// its own finding.
			continue
		}
		n := rt.Changed[arg]
		add("retries", n, t.Calls, fmt.Sprintf("%s after an error changed `%s`%s", retriesText(n), arg, gaveUp), a.places.paramAt(t.Tool, arg),
			fmt.Sprintf("the model had to guess `%s`: say in its description what it takes and where the value comes from, or narrow it with an enum", arg))
	}
	for _, rule := range byCount(t.unchangedAt) {
		n := t.unchangedAt[rule]
		where, change := t.Where, "the error did not say what to do differently: add an error rule for this failure whose text gives the next step"
		if rule >= 0 {
			where, change = a.places.ruleAt(t.Tool, rule), fmt.Sprintf("error rule %d's text did not say what to do differently: give it an explicit next step", rule+1)
		}
		add("retries", n, t.Calls, fmt.Sprintf("%s after an error sent the same arguments again%s", retriesText(n), gaveUp), where, change)
	}
}

func (a *analysis) quoteSignals(t *toolData, add addFunc) {
	q := t.Quotes
	if q == nil {
		return
	}
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{q.Declined, "declined"}, {q.Expired, "expired"}, {q.Open, "still open when the log ends"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	next := "call the confirm tool"
	if q.ConfirmTool != "" {
		next = "call " + q.ConfirmTool
	}
	n := q.Made - q.Confirmed
	add("quotes not carried out", n, q.Made, fmt.Sprintf("%d of %d quotes never carried out (%s)", n, q.Made, strings.Join(parts, ", ")),
		a.places.partAt(t.Tool, func(p *ToolPlaces) int { return p.Result }),
		fmt.Sprintf("the quote's result text should give what the quote holds, how it was computed, and the next step (%s with the quote_id once the user agrees); quotes users turn down point at the computation or how it is explained", next))
}

func (a *analysis) approvalSignals(t *toolData, add addFunc) {
	ap := t.Approvals
	if ap == nil {
		return
	}
	where := a.places.partAt(t.Tool, func(p *ToolPlaces) int { return p.Approval })
	answered := ap.Accepted + ap.Declined + ap.Dismissed + ap.TimedOut
	refused := ap.Declined + ap.Dismissed + ap.TimedOut
	add("approvals declined", refused, answered, fmt.Sprintf("%d of %d approval questions declined, dismissed or left unanswered", refused, answered), where,
		"a tool people keep declining is asked too often or asks unclearly: the question should say exactly what will happen (what changes, by how much, for whom) and match what the user agreed to; or the model calls it when the user did not mean to")
	add("approvals unavailable", ap.Unavailable, t.Calls, fmt.Sprintf("%s refused: the client cannot ask the user for approval", calls(ap.Unavailable, t.Calls)), where,
		"use a client that supports elicitation, or set `approval.without_elicitation: proceed` where a person's approval is not required")
}

// calls is "N of M calls were", for a passive verb.
func calls(n, of int) string {
	if n == 1 {
		return fmt.Sprintf("1 of %d calls was", of)
	}
	return fmt.Sprintf("%d of %d calls were", n, of)
}

// callsOf is "N of M calls", for an active verb.
func callsOf(n, of int) string { return fmt.Sprintf("%d of %d calls", n, of) }

func resultsWere(n, of int) string {
	if n == 1 {
		return fmt.Sprintf("1 of %d results was", of)
	}
	return fmt.Sprintf("%d of %d results were", n, of)
}

func retriesText(n int) string {
	if n == 1 {
		return "1 retry"
	}
	return fmt.Sprintf("%d retries", n)
}

// byCount returns the keys of m, largest count first, then by key.
func byCount[K cmp.Ordered](m map[K]int) []K {
	return slices.SortedFunc(maps.Keys(m), func(a, b K) int {
		if c := cmp.Compare(m[b], m[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
}
