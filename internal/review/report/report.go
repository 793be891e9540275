// Package report is `tailor report`: it reads the audit logs of generated
// servers (and of tailor serve), one JSON line per tool call as mcpkit
// writes them, and ranks the tools by the signals that show a model getting
// stuck: error results by kind, retries (the same tool called again in a
// session after an error, and which argument the model rewrote), quotes
// never carried out, approvals declined, calls per session, and tools never
// called. Each finding points at the overlay entry to change
// (overlay.yaml:LINE) and says what kind of change usually helps.
//
// Lines that are not audit records are skipped: other log lines are
// counted, lines that cannot be read are counted and listed; nothing in a
// log makes the report fail.
//
// The package depends on the audit record's format (mcpkit/audit.go) and,
// for positions, on the overlay parser; the tool list comes from the
// caller.
package report

import (
	"encoding/json"
	"sort"
	"time"
)

// Options are what the report knows besides the logs.
type Options struct {
	// Tools lists the tool set's tools, to find those never called; nil
	// when unknown.
	Tools []string
	// Places are the tools' lines in the overlay; nil without one.
	Places *Places
}

// Report is the result of reading audit logs.
type Report struct {
	Sources []string `json:"sources"`
	// Overlay is the overlay findings point into, if one was given.
	Overlay    string `json:"overlay,omitempty"`
	Lines      int    `json:"lines"`
	Records    int    `json:"audit_records"`
	OtherLines int    `json:"other_log_lines"`
	Malformed  int    `json:"malformed_lines"`
	// MalformedAt lists the first malformed lines.
	MalformedAt []Skipped    `json:"malformed_at,omitempty"`
	From        string       `json:"from,omitempty"`
	To          string       `json:"to,omitempty"`
	Calls       int          `json:"calls"`
	Errors      int          `json:"errors"`
	Sessions    Sessions     `json:"sessions"`
	Tools       []*ToolStats `json:"tools"`
	// ToolsKnown says whether the tool set was given: NeverCalled is
	// meaningful only then.
	ToolsKnown  bool      `json:"tools_known"`
	NeverCalled []Unused  `json:"never_called"`
	Findings    []Finding `json:"findings"`
}

// Sessions sums up the conversations in the logs.
type Sessions struct {
	Count int `json:"count"`
	// CallsWithout counts calls made without a session (stateless HTTP):
	// they take part in no session figure and no retry chain.
	CallsWithout int `json:"calls_without_session"`
	MinCalls     int `json:"min_calls"`
	MedianCalls  int `json:"median_calls"`
	MaxCalls     int `json:"max_calls"`
	// EndedOnError counts sessions whose last call was an error;
	// QuoteLeft those that made a quote and never carried it out: tasks
	// that stopped half-way.
	EndedOnError int `json:"ended_on_error"`
	QuoteLeft    int `json:"left_a_quote"`
}

// ToolStats are one tool's figures.
type ToolStats struct {
	Tool   string       `json:"tool"`
	Calls  int          `json:"calls"`
	Errors int          `json:"errors"`
	ByKind map[Kind]int `json:"errors_by_kind,omitempty"`
	// Retries are calls of the tool, in a session, right after it failed.
	Retries   *Retries   `json:"retries,omitempty"`
	Quotes    *Quotes    `json:"quotes,omitempty"`
	Approvals *Approvals `json:"approvals,omitempty"`
	Cut       int        `json:"results_cut,omitempty"`
	// Stuck is what the ranking is by: error results (declined approvals
	// among them) and quotes never carried out.
	Stuck int    `json:"stuck"`
	Where string `json:"overlay,omitempty"`
}

// Retries are a tool's calls that repeated it after an error in the same
// session. A chain is an unbroken run of them; it is recovered when it
// ends in a success.
type Retries struct {
	Calls     int `json:"calls"`
	Chains    int `json:"chains"`
	Recovered int `json:"recovered"`
	// Changed counts, per argument, the retries that changed it (added,
	// removed or given another value); Unchanged the retries that changed
	// nothing.
	Changed   map[string]int `json:"changed_args,omitempty"`
	Unchanged int            `json:"unchanged"`
}

// Quotes are what became of the quotes a quote tool made. Every quote not
// confirmed is counted once: declined (its approval was declined), else
// expired (a confirm found it expired, or it expired before the log ends),
// else open.
type Quotes struct {
	Made      int `json:"made"`
	Confirmed int `json:"confirmed"`
	Declined  int `json:"declined"`
	Expired   int `json:"expired"`
	Open      int `json:"open"`
	// ConfirmTool carries them out, when the logs show it.
	ConfirmTool string `json:"confirm_tool,omitempty"`
}

// Approvals are a tool's approval questions and their answers (a confirm
// tool's, or any tool's with an approval or under the server's --approve
// policy).
type Approvals struct {
	Asked       int `json:"asked"`
	Accepted    int `json:"accepted"`
	Declined    int `json:"declined"`
	Dismissed   int `json:"dismissed"`
	Unavailable int `json:"unavailable"`
	// TimedOut: answered after the approval window.
	TimedOut int `json:"timed_out,omitempty"`
}

// Unused is a tool no call in the logs used.
type Unused struct {
	Tool  string `json:"tool"`
	Where string `json:"overlay,omitempty"`
}

// Finding is one signal on one tool: how often, where in the overlay, and
// what kind of change usually helps.
type Finding struct {
	Tool   string `json:"tool"`
	Signal string `json:"signal"`
	Count  int    `json:"count"`
	Of     int    `json:"of"`
	Detail string `json:"detail"`
	Where  string `json:"overlay,omitempty"`
	Change string `json:"change"`
}

// shownSkipped is how many malformed lines a report lists.
const shownSkipped = 5

// Analyze reads the signals out of a log.
func Analyze(l *Log, o Options) *Report {
	r := &Report{Sources: l.Sources, Lines: l.Lines, Records: len(l.Records), OtherLines: l.OtherLines,
		Malformed: len(l.Malformed), ToolsKnown: o.Tools != nil, NeverCalled: []Unused{}, Findings: []Finding{}}
	r.MalformedAt = l.Malformed[:min(len(l.Malformed), shownSkipped)]
	if o.Places != nil {
		r.Overlay = o.Places.File
	}
	if n := len(l.Records); n > 0 {
		r.From = l.Records[0].Time.UTC().Format(time.RFC3339)
		r.To = l.Records[n-1].Time.UTC().Format(time.RFC3339)
	}
	a := &analysis{report: r, places: o.Places, tools: map[string]*toolData{}, quotes: map[string]*quoteState{}}
	for _, rec := range l.Records {
		a.record(rec)
	}
	a.sessions(l.Records)
	var end time.Time
	if n := len(l.Records); n > 0 {
		end = l.Records[n-1].Time
	}
	a.settleQuotes(end)
	a.rank()
	called := map[string]bool{}
	for _, t := range r.Tools {
		called[t.Tool] = t.Calls > 0
	}
	for _, name := range sorted(o.Tools) {
		if !called[name] {
			r.NeverCalled = append(r.NeverCalled, Unused{Tool: name, Where: o.Places.toolAt(name)})
		}
	}
	a.findings()
	return r
}

// analysis accumulates a report.
type analysis struct {
	report *Report
	places *Places
	tools  map[string]*toolData
	quotes map[string]*quoteState
	order  []string // quote ids in the order made
}

// toolData is a tool's figures and what its findings need.
type toolData struct {
	*ToolStats
	invalidArgs map[string]int // validation errors by argument
	notFound    int
	apiInvalid  int            // validation errors the API found (invalid_argument)
	unruled     int            // business-rule refusals no rule wrote
	quoteIssues map[string]int // a confirm's quote refused: expired, used, reserved
	statuses    map[int]int    // HTTP status of the unruled refusals
	unchangedAt map[int]int    // unchanged retries after a rule's text (-1: no rule)
}

type quoteState struct {
	id, tool             string
	session              string
	expires              time.Time
	confirmed, declined  bool
	expired              bool
	confirmTool, confirm string
}

func (a *analysis) tool(name string) *toolData {
	t := a.tools[name]
	if t == nil {
		t = &toolData{ToolStats: &ToolStats{Tool: name, ByKind: map[Kind]int{}, Where: a.places.toolAt(name)},
			invalidArgs: map[string]int{}, quoteIssues: map[string]int{}, statuses: map[int]int{}, unchangedAt: map[int]int{}}
		a.tools[name] = t
		a.report.Tools = append(a.report.Tools, t.ToolStats)
	}
	return t
}

func (a *analysis) record(rec *Record) {
	t := a.tool(rec.Tool)
	a.approval(t, rec)
	if rec.Outcome == outcomeAwaiting {
		// The first half of an approval round trip, not a call of its own.
		return
	}
	t.Calls++
	a.report.Calls++
	for _, id := range rec.Messages {
		if cutMessages[id] {
			t.Cut++
			break
		}
	}
	if rec.Outcome != outcomeOK {
		a.failure(t, rec)
	}
	a.quote(rec)
}

func (a *analysis) failure(t *toolData, rec *Record) {
	t.Errors++
	a.report.Errors++
	k := kindOf(rec)
	t.ByKind[k]++
	switch {
	case rec.Rule != nil:
		// The overlay already answers it; retries after it say whether
		// the answer helps (see retries).
	case k == Validation && len(rec.Invalid) > 0:
		for _, arg := range rec.Invalid {
			t.invalidArgs[arg]++
		}
	case k == Validation && (has(rec.Messages, "not_found") || lastStatus(rec) == 404):
		t.notFound++
	case k == Validation && has(rec.Messages, "invalid_argument"):
		t.apiInvalid++
	case k == BusinessRule && quoteIssue(rec) != "":
		t.quoteIssues[quoteIssue(rec)]++
	case k == BusinessRule:
		t.unruled++
		t.statuses[lastStatus(rec)]++
	}
}

func (a *analysis) approval(t *toolData, rec *Record) {
	if rec.Approval == "" {
		return
	}
	if t.Approvals == nil {
		t.Approvals = &Approvals{}
	}
	switch ap := t.Approvals; rec.Approval {
	case "asked":
		ap.Asked++
	case "accept":
		ap.Accepted++
	case "decline":
		ap.Declined++
	case "cancel":
		ap.Dismissed++
	case "refused: the client cannot elicit":
		ap.Unavailable++
	case "timed out":
		ap.TimedOut++
	}
}

// quote follows quotes: made by a quote tool's successful call, carried
// out (or refused) by a confirm tool's.
func (a *analysis) quote(rec *Record) {
	q := rec.Quote
	if q != nil && q.Tool == rec.Tool {
		if rec.Outcome == outcomeOK && a.quotes[q.ID] == nil {
			a.quotes[q.ID] = &quoteState{id: q.ID, tool: rec.Tool, session: rec.Session, expires: q.Expires}
			a.order = append(a.order, q.ID)
		}
		return
	}
	id := ""
	if q != nil {
		id = q.ID
	} else if s, ok := rec.Args["quote_id"].(string); ok {
		id = s
	}
	st := a.quotes[id]
	if st == nil {
		return
	}
	st.confirmTool = rec.Tool
	switch {
	case rec.Outcome == outcomeOK:
		st.confirmed = true
	case rec.Approval == "decline" || rec.Approval == "cancel":
		st.declined = true
	case has(rec.Messages, "quote_expired"):
		st.expired = true
	}
}

func (a *analysis) settleQuotes(end time.Time) {
	for _, id := range a.order {
		st := a.quotes[id]
		t := a.tool(st.tool)
		if t.Quotes == nil {
			t.Quotes = &Quotes{}
		}
		qs := t.Quotes
		qs.Made++
		if st.confirmTool != "" {
			qs.ConfirmTool = st.confirmTool
		}
		switch {
		case st.confirmed:
			qs.Confirmed++
		case st.declined:
			qs.Declined++
		case st.expired || !st.expires.IsZero() && st.expires.Before(end):
			qs.Expired++
		default:
			qs.Open++
		}
	}
}

// sessions groups the calls by session for the session figures and the
// retry chains.
func (a *analysis) sessions(recs []*Record) {
	bySession := map[string][]*Record{}
	var ids []string
	for _, rec := range recs {
		if rec.Outcome == outcomeAwaiting {
			continue
		}
		if rec.Session == "" {
			a.report.Sessions.CallsWithout++
			continue
		}
		if bySession[rec.Session] == nil {
			ids = append(ids, rec.Session)
		}
		bySession[rec.Session] = append(bySession[rec.Session], rec)
	}
	s := &a.report.Sessions
	s.Count = len(ids)
	var counts []int
	for _, id := range ids {
		calls := bySession[id]
		counts = append(counts, len(calls))
		if calls[len(calls)-1].Outcome != outcomeOK {
			s.EndedOnError++
		}
		a.retries(calls)
	}
	left := map[string]bool{}
	for _, id := range a.order {
		if st := a.quotes[id]; !st.confirmed && st.session != "" {
			left[st.session] = true
		}
	}
	s.QuoteLeft = len(left)
	if len(counts) > 0 {
		sort.Ints(counts)
		s.MinCalls, s.MaxCalls, s.MedianCalls = counts[0], counts[len(counts)-1], counts[len(counts)/2]
	}
}

// retries finds, in one session's calls, the calls that repeat a tool
// right after it failed, and what the model changed in the arguments.
func (a *analysis) retries(calls []*Record) {
	last := map[string]*Record{}
	inChain := map[string]bool{}
	for _, rec := range calls {
		prev := last[rec.Tool]
		last[rec.Tool] = rec
		if prev == nil || prev.Outcome == outcomeOK {
			inChain[rec.Tool] = false
			continue
		}
		t := a.tool(rec.Tool)
		if t.Retries == nil {
			t.Retries = &Retries{Changed: map[string]int{}}
		}
		rt := t.Retries
		rt.Calls++
		if !inChain[rec.Tool] {
			rt.Chains++
			inChain[rec.Tool] = true
		}
		changed := changedArgs(prev.Args, rec.Args)
		for _, name := range changed {
			rt.Changed[name]++
		}
		if len(changed) == 0 {
			rt.Unchanged++
			rule := -1
			if prev.Rule != nil {
				rule = *prev.Rule
			}
			t.unchangedAt[rule]++
		}
		if rec.Outcome == outcomeOK {
			rt.Recovered++
			inChain[rec.Tool] = false
		}
	}
}

// changedArgs lists the arguments that differ between two calls, sorted.
func changedArgs(before, after map[string]any) []string {
	var out []string
	for name, v := range after {
		if w, ok := before[name]; !ok || jsonText(v) != jsonText(w) {
			out = append(out, name)
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// rank orders the tools, most stuck first.
func (a *analysis) rank() {
	for _, t := range a.tools {
		t.Stuck = t.Errors
		if q := t.Quotes; q != nil {
			t.Stuck += q.Made - q.Confirmed
		}
		if len(t.ByKind) == 0 {
			t.ByKind = nil
		}
		if t.Retries != nil && len(t.Retries.Changed) == 0 {
			t.Retries.Changed = nil
		}
	}
	sort.SliceStable(a.report.Tools, func(i, j int) bool {
		x, y := a.report.Tools[i], a.report.Tools[j]
		if x.Stuck != y.Stuck {
			return x.Stuck > y.Stuck
		}
		if x.Calls != y.Calls {
			return x.Calls > y.Calls
		}
		return x.Tool < y.Tool
	})
}

// quoteIssue is the message of a confirm refused for its quote's state.
func quoteIssue(rec *Record) string {
	for _, id := range rec.Messages {
		switch id {
		case "quote_expired", "quote_used", "quote_reserved":
			return id
		}
	}
	return ""
}

func lastStatus(rec *Record) int {
	if n := len(rec.Calls); n > 0 {
		return rec.Calls[n-1].Status
	}
	return 0
}

func has(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func sorted(l []string) []string {
	out := append([]string(nil), l...)
	sort.Strings(out)
	return out
}
