package lint

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/model"
)

// --- descriptions ---

var (
	abbreviations = regexp.MustCompile(`(?i)\b(e\.g|i\.e|etc|vs|cf|approx|incl|no)\.`)
	codeSpans     = regexp.MustCompile("`[^`]*`")
	sentenceEnd   = regexp.MustCompile(`[.!?]+(\s|$)|\n\s*\n|\n\s*[-*]\s`)
)

// Sentences counts the sentences of a description: runs of at least two
// words ending in . ! ? or a paragraph break (a non-empty text has one).
func Sentences(s string) int {
	s = codeSpans.ReplaceAllString(s, "code")
	s = abbreviations.ReplaceAllString(s, "$1")
	n := 0
	for _, part := range sentenceEnd.Split(s, -1) {
		if len(strings.Fields(part)) >= 2 {
			n++
		}
	}
	if n == 0 && strings.TrimSpace(s) != "" {
		n = 1
	}
	return n
}

func (l *linter) description(ti *toolInfo) {
	t := ti.t
	d := strings.TrimSpace(t.Description)
	if d == "" {
		l.add(Finding{Rule: "description-short", Tool: t.Name, Pos: l.toolPos(t), Message: fmt.Sprintf("tool `%s` has no description", t.Name)})
		return
	}
	if n := Sentences(d); n < 3 {
		l.add(Finding{Rule: "description-short", Tool: t.Name, Pos: l.toolPos(t), Message: fmt.Sprintf("tool `%s`: the description has %d sentence%s (%d characters); say what it does, when to use it and when not, and what it returns", t.Name, n, plural(n), len(d))})
	}
}

var (
	whenCue    = regexp.MustCompile(`(?i)\b(use (this|it|when|only|for|to|after|before)|call (this|it|when|only|after|before|first)|only (after|when|if|once|for)|before|after|when the|once the|if the (user|customer)|(user|customer|person) (has )?(agreed|confirmed|approved|asked))\b`)
	whenNotCue = regexp.MustCompile(`(?i)\b(do not|don't|never|not for|not to|instead|unless|only|rather than|must not|cannot be undone|irreversible|(fails|is refused|is rejected) (if|when|once|for))\b`)
)

func (l *linter) writeGuidance(ti *toolInfo) {
	t := ti.t
	if t.Annotations.ReadOnly || strings.TrimSpace(t.Description) == "" {
		return
	}
	var missing []string
	if !whenCue.MatchString(t.Description) {
		missing = append(missing, "when to use it")
	}
	if !whenNotCue.MatchString(t.Description) {
		missing = append(missing, "when not to")
	}
	if len(missing) > 0 {
		l.add(Finding{Rule: "write-guidance", Tool: t.Name, Pos: l.toolPos(t), Message: fmt.Sprintf("write tool `%s` does not say %s", t.Name, strings.Join(missing, " or "))})
	}
}

// ReadVerbs are the first words of a name that says the tool only reads.
var ReadVerbs = map[string]bool{"get": true, "list": true, "search": true, "find": true, "fetch": true, "read": true, "show": true,
	"describe": true, "view": true, "lookup": true, "retrieve": true, "query": true, "count": true}

// readNameOnWrite: a tool that writes (its annotations are not read-only:
// a POST, PUT, PATCH or DELETE the overlay did not mark read_only) must
// not be named as a read.
func (l *linter) readNameOnWrite(ti *toolInfo) {
	t := ti.t
	w := words(t.Name)
	if t.Annotations.ReadOnly || len(w) == 0 || !ReadVerbs[w[0]] {
		return
	}
	what, rename := "a composed tool whose steps are not all reads", ""
	if c := t.Call; c != nil {
		what = c.Method + " " + c.Path
		switch c.Method {
		case "DELETE":
			rename = "delete"
		case "PUT", "PATCH":
			rename = "update"
		}
	}
	if rename != "" && len(w) > 1 {
		rename = " (`" + rename + "_" + strings.Join(w[1:], "_") + "`)"
	} else {
		rename = ""
	}
	l.add(Finding{Rule: "read-name-on-write", Tool: t.Name, Pos: l.toolPos(t), Message: fmt.Sprintf("tool `%s` is named as a read (`%s`) but it writes (%s); name it for what it changes%s, or mark it read_only in the overlay if the call changes nothing", t.Name, w[0], what, rename)})
}

// --- arguments ---

// MoneyWords are the words of an argument name that make it money-like.
var MoneyWords = map[string]bool{"amount": true, "price": true, "total": true, "cost": true, "fee": true, "fees": true, "subtotal": true, "balance": true, "discount": true, "tax": true, "refund": true, "charge": true, "payment": true}

// notMoney are final words that make a money-like name something else
// (refund_id, price_currency, amount_type).
var notMoney = map[string]bool{"id": true, "ids": true, "currency": true, "type": true, "types": true, "count": true, "status": true, "method": true, "reason": true, "code": true, "mode": true, "policy": true, "rule": true, "description": true, "behavior": true,
	"length": true, "size": true, "parts": true, "pages": true, "items": true, "results": true, "hits": true, "records": true, "bytes": true, "entries": true, "rows": true, "seconds": true, "duration": true}

// MoneyLike reports whether an argument name reads as an amount of money.
func MoneyLike(name string) bool {
	w := words(name)
	if len(w) == 0 || notMoney[w[len(w)-1]] {
		return false
	}
	for _, x := range w {
		if MoneyWords[x] {
			return true
		}
	}
	return false
}

var quoteOp = regexp.MustCompile(`(?i)quote|preview|estimate`)

// QuoteOperation reports whether an operation reads as one that computes
// a price or outcome without changing anything.
func QuoteOperation(c *ir.Call) bool {
	return c != nil && (quoteOp.MatchString(c.OperationID) || quoteOp.MatchString(c.Path))
}

func (l *linter) findQuotes() {
	src := l.raw
	if src == nil {
		src = l.api
	}
	for _, t := range src.Tools {
		if QuoteOperation(t.Call) {
			l.quote = t.Call.Method + " " + t.Call.Path
			if t.Call.OperationID != "" {
				l.quote = t.Call.OperationID + " (" + l.quote + ")"
			}
			return
		}
	}
}

func (l *linter) money(ti *toolInfo) {
	t := ti.t
	if t.Annotations.ReadOnly || l.quote == "" || t.Quote != nil || QuoteOperation(t.Call) {
		return
	}
	for _, a := range ti.args {
		if MoneyLike(a.name) && a.is("number", "integer", "string") {
			l.add(Finding{Rule: "money-from-model", Tool: t.Name, Param: a.name, Pos: l.argPos(t, a.name), Message: fmt.Sprintf("write tool `%s` asks the model for `%s`, a money-like number, though the API has a quote operation, %s: quote it there and confirm the quote", t.Name, a.name, l.quote)})
		}
	}
}

// identityNames are identity-like argument names, in words.
var identityNames = map[string]bool{"customer id": true, "user id": true, "tenant id": true, "account id": true, "org id": true, "organization id": true, "organisation id": true, "workspace id": true, "owner id": true, "member id": true, "client id": true, "caller id": true}

// IdentityLike reports whether an argument names the caller's identity
// (customer_id, X-User-Id, tenantId, ...).
func IdentityLike(name string) bool {
	w := words(name)
	if len(w) > 0 && w[0] == "x" {
		w = w[1:]
	}
	return identityNames[strings.Join(w, " ")]
}

func (l *linter) identity(ti *toolInfo) {
	t := ti.t
	for _, a := range ti.args {
		if IdentityLike(a.name) {
			l.add(Finding{Rule: "identity-param", Tool: t.Name, Param: a.name, Pos: l.argPos(t, a.name), Message: fmt.Sprintf("tool `%s`: the model fills `%s`, an identity; inject it from the caller's context (from: context.<name>)", t.Name, a.name)})
		}
	}
}

// credentialNames are secret-like argument names, in words.
var credentialNames = map[string]bool{
	"token": true, "access token": true, "auth token": true, "api token": true, "bearer token": true,
	"private token": true, "session token": true, "api key": true, "apikey": true, "hapikey": true,
	"app key": true, "secret": true, "client secret": true, "app secret": true, "api secret": true,
	"password": true, "passwd": true, "auth": true, "authorization": true, "credentials": true,
}

// CredentialLike reports whether an argument name reads as a secret that
// authenticates the call (token, api_key, X-Api-Key, client_secret).
func CredentialLike(name string) bool {
	w := words(name)
	if len(w) > 0 && w[0] == "x" {
		w = w[1:]
	}
	return credentialNames[strings.Join(w, " ")]
}

// credential flags secret-like arguments the model fills. tailor already
// fills a parameter from the credential when the spec's security scheme
// sends the same secret; what remains is the spec declaring a secret as an
// ordinary parameter.
func (l *linter) credential(ti *toolInfo) {
	t := ti.t
	for _, a := range ti.args {
		if CredentialLike(a.name) && !ti.inPath(a.name) {
			l.add(Finding{Rule: "credential-param", Tool: t.Name, Param: a.name, Pos: l.argPos(t, a.name), Message: fmt.Sprintf("tool `%s`: the model fills `%s`, which reads as a credential; a secret belongs in the server's configuration (hide it, or give it a value from context), not in the model's arguments", t.Name, a.name)})
		}
	}
}

var (
	// strongCue introduces a list of values wherever the values follow
	// in its sentence (or in a bulleted list after a colon).
	strongCue = regexp.MustCompile(`(?i)\b((possible|allowed|valid|accepted|acceptable|supported|permitted) (standard )?values?( are| include| is)?|options are|values are|values include)\b`)
	// weakCue does only when a value follows at once: "can be `open` or
	// `closed`", not "can be used only when `q` is set" or "in one of two
	// ways".
	weakCue = regexp.MustCompile(`(?i)\b(one of( the following)?|can (either )?be|must be|may be|should be|either)\b`)
	quoted  = regexp.MustCompile("[`\"']([A-Za-z0-9_.:/-]{1,40})[`\"']")
	piped   = regexp.MustCompile(`\b[a-z][a-z0-9_]*(\s*\|\s*[a-z][a-z0-9_]*){2,}\b`)
	// sentenceStop ends a cue's scope: a sentence end or a paragraph break.
	sentenceStop = regexp.MustCompile(`[.!?](\s|$)|\n\s*\n|\n\s*([-*•]|[0-9]+\.)\s`)
	bulletLine   = regexp.MustCompile(`^\s*([-*•]|[0-9]+\.)\s`)
	// subFieldItem is a bulleted line about a field of the value
	// ("- `status`: one of ..."): its values are that field's.
	subFieldItem = regexp.MustCompile("^\\s*[-*•]\\s+[`\"'][^`\"']+[`\"']\\s*:")
	notAValue    = regexp.MustCompile(`^([-+]?[0-9]|true$|false$|null$|nil$)|[/:]`)
)

// ListsValues reports whether a description enumerates the values a
// string accepts, and returns them. Prose mentions many quoted words that
// are not values of the argument: other parameters ("use `org` or
// `orgID`"), examples ("for example `123`"), booleans and formats. So a
// value counts only where a cue introduces it ("possible values are",
// "one of", "can be `x` or `y`"), within the cue's sentence (or the
// bulleted list its colon opens), and quoted words that are numbers,
// booleans, paths or URLs, or one of names (the tool's arguments, which
// prose cross-references), are not values.
func ListsValues(desc string, names ...string) []string {
	if m := piped.FindString(desc); m != "" {
		var out []string
		for _, v := range strings.Split(m, "|") {
			out = append(out, strings.TrimSpace(v))
		}
		return out
	}
	skip := map[string]bool{}
	for _, n := range names {
		skip[n] = true
	}
	desc = abbreviations.ReplaceAllString(desc, "$1")
	var out []string
	seen := map[string]bool{}
	cues := append(strongCue.FindAllStringIndex(desc, -1), weakCue.FindAllStringIndex(desc, -1)...)
	for _, c := range cues {
		lineStart := strings.LastIndexByte(desc[:c[0]], '\n') + 1
		if subFieldItem.MatchString(desc[lineStart:c[0]]) {
			continue
		}
		weak := weakCue.MatchString(desc[c[0]:c[1]]) && !strongCue.MatchString(desc[c[0]:c[1]])
		scope := cueScope(desc[c[1]:])
		found := quoted.FindAllStringSubmatchIndex(scope, -1)
		if len(found) == 0 || weak && !leadsToValue(scope[:found[0][0]]) {
			continue
		}
		for _, m := range found {
			v := scope[m[2]:m[3]]
			if !seen[v] && !skip[v] && !notAValue.MatchString(v) {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// leadsToValue reports whether the text between a weak cue and the first
// quoted word keeps them together: nothing but punctuation, or a short
// phrase ending in a colon ("one of the following algorithms:").
func leadsToValue(gap string) bool {
	gap = strings.TrimSpace(gap)
	if strings.Trim(gap, ",:") == "" {
		return true
	}
	return strings.HasSuffix(gap, ":") && len(strings.Fields(gap)) <= 4
}

// cueScope is the text a cue's values may be in: up to the end of its
// sentence, or, when the cue ends its line with a colon, the bulleted
// list that follows.
func cueScope(rest string) string {
	line, after, _ := strings.Cut(rest, "\n")
	if strings.HasSuffix(strings.TrimSpace(line), ":") {
		scope := line
		for _, l := range strings.Split(after, "\n") {
			if strings.TrimSpace(l) == "" {
				continue
			}
			if !bulletLine.MatchString(l) {
				break
			}
			scope += "\n" + l
		}
		return scope
	}
	if loc := sentenceStop.FindStringIndex(rest); loc != nil {
		return rest[:loc[0]]
	}
	return rest
}

func (l *linter) valuesWithoutEnum(ti *toolInfo) {
	t := ti.t
	for _, a := range ti.args {
		if a.enum || !a.is("string") || a.description == "" {
			continue
		}
		if vals := ListsValues(a.description, ti.argNames()...); vals != nil {
			if len(vals) > 6 {
				vals = append(vals[:6], "…")
			}
			l.add(Finding{Rule: "values-without-enum", Tool: t.Name, Param: a.name, Pos: l.argPos(t, a.name), Message: fmt.Sprintf("tool `%s`, argument `%s`: the description lists values (%s) but the schema has no enum", t.Name, a.name, strings.Join(vals, ", "))})
		}
	}
}

// --- names ---

// indexFields collects the property names of every schema and, for
// response schemas, the tool that first returns each.
func (l *linter) indexFields() {
	l.outputFields, l.fieldNames, l.argOwner = map[string]string{}, map[string]bool{}, map[string]string{}
	for _, ti := range l.tools {
		for _, a := range ti.args {
			if owner, ok := l.argOwner[a.name]; !ok {
				l.argOwner[a.name] = ti.t.Name
			} else if owner != ti.t.Name {
				l.argOwner[a.name] = "" // several tools
			}
		}
		if len(ti.t.OutputSchema) == 0 {
			continue
		}
		var root any
		if json.Unmarshal(ti.t.OutputSchema, &root) != nil {
			continue
		}
		collectNames(root, 0, func(n string) {
			l.fieldNames[n] = true
			if _, ok := l.outputFields[n]; !ok {
				l.outputFields[n] = ti.t.Name
			}
		})
	}
}

func collectNames(s any, depth int, f func(string)) {
	if depth > 6 {
		return
	}
	switch v := s.(type) {
	case map[string]any:
		for k, x := range v {
			if k == "properties" {
				if props, ok := x.(map[string]any); ok {
					for name, p := range props {
						f(name)
						collectNames(p, depth+1, f)
					}
				}
				continue
			}
			if k == "$defs" || k == "items" || k == "allOf" || k == "anyOf" || k == "oneOf" || k == "additionalProperties" {
				collectNames(x, depth+1, f)
			}
		}
	case []any:
		for _, x := range v {
			collectNames(x, depth+1, f)
		}
	}
}

// idSuffixes end names that already say what they hold.
var idSuffixes = map[string]bool{"id": true, "ids": true, "name": true, "names": true, "email": true, "number": true, "code": true, "key": true, "slug": true, "uuid": true, "url": true, "ref": true, "handle": true, "login": true, "username": true}

var mentionsKind = regexp.MustCompile(`(?i)\b(id|ids|identifier|name|email|number|uuid|slug|key|handle|login)\b`)

func (l *linter) names(ti *toolInfo) {
	t := ti.t
	for _, a := range ti.args {
		w := words(a.name)
		if len(w) == 0 || !a.scalar() {
			continue
		}
		last := w[len(w)-1]
		// ambiguous-name: a bare noun where the API says noun_id.
		if !idSuffixes[last] && !mentionsKind.MatchString(a.description) {
			for _, cand := range []string{a.name + "_id", a.name + "Id", a.name + "ID"} {
				owner, isArg := l.argOwner[cand]
				if l.fieldNames[cand] || (isArg && owner != t.Name) {
					l.add(Finding{Rule: "ambiguous-name", Tool: t.Name, Param: a.name, Pos: l.argPos(t, a.name), Message: fmt.Sprintf("tool `%s`, argument `%s`: an id, a name or something else? The API calls it `%s` elsewhere; rename it or say which in its description", t.Name, a.name, cand)})
					break
				}
			}
		}
		// name-mismatch: another tool returns this value under a longer
		// name (item vs line_item_id).
		if _, returned := l.outputFields[a.name]; returned || a.name == "id" || len(a.name) < 3 {
			continue
		}
		core := w
		if last == "id" {
			core = w[:len(w)-1]
		}
		if len(core) == 0 {
			continue
		}
		if match, producer := l.producer(core, t.Name); match != "" {
			l.add(Finding{Rule: "name-mismatch", Tool: t.Name, Param: a.name, Pos: l.argPos(t, a.name), Message: fmt.Sprintf("tool `%s`, argument `%s`: `%s` returns this value as `%s`; use the same name", t.Name, a.name, producer, match)})
		}
	}
}

// producer finds a response field of another tool, named like core plus
// leading words and a final id (core [item] → line_item_id).
func (l *linter) producer(core []string, self string) (field, tool string) {
	var cands []string
	for f, owner := range l.outputFields {
		if owner == self {
			continue
		}
		w := words(f)
		if len(w) < len(core)+2 || w[len(w)-1] != "id" {
			continue
		}
		fc := w[:len(w)-1]
		if strings.Join(fc[len(fc)-len(core):], " ") == strings.Join(core, " ") {
			cands = append(cands, f)
		}
	}
	if len(cands) == 0 {
		return "", ""
	}
	sort.Strings(cands)
	return cands[0], l.outputFields[cands[0]]
}

// nameLength checks every name against each major client's limit with
// the server's name before it (model.Clients), and counts per client.
func (l *linter) nameLength() {
	server := l.api.Name
	names := make([]string, len(l.tools))
	for i, ti := range l.tools {
		names[i] = ti.t.Name
	}
	l.res.Clients = model.NamesByClient(server, names)
	budget := model.NameBudget(server)
	for _, ti := range l.tools {
		t := ti.t
		if over := model.Over(server, t.Name); over != "" {
			l.add(Finding{Rule: "name-too-long", Tool: t.Name, Pos: l.toolPos(t), Message: fmt.Sprintf("tool `%s` is %d characters: too long for %s with the server named `%s`; every major client passes names of up to %d characters whole: name it `%s`", t.Name, len(t.Name), over, server, budget, model.FitName(t.Name, budget))})
		}
	}
}

// Sanitised is a tool name as the strictest clients see it.
func Sanitised(name string) string {
	return strings.ToLower(strings.NewReplacer("-", "_", ".", "_").Replace(name))
}

func (l *linter) nameClash() {
	seen := map[string]string{}
	for _, ti := range l.tools {
		t := ti.t
		s := Sanitised(t.Name)
		if prev, ok := seen[s]; ok {
			l.add(Finding{Rule: "name-clash", Tool: t.Name, Pos: l.toolPos(t), Message: fmt.Sprintf("tool `%s` and tool `%s` are both `%s` to clients that sanitise names", prev, t.Name, s)})
			continue
		}
		seen[s] = t.Name
		args := map[string]string{}
		for _, a := range ti.args {
			sa := Sanitised(a.name)
			if prev, ok := args[sa]; ok {
				l.add(Finding{Rule: "name-clash", Tool: t.Name, Param: a.name, Pos: l.argPos(t, a.name), Message: fmt.Sprintf("tool `%s`: arguments `%s` and `%s` are both `%s` once sanitised", t.Name, prev, a.name, sa)})
				continue
			}
			args[sa] = a.name
		}
	}
}

var stop = map[string]bool{"the": true, "and": true, "for": true, "with": true, "this": true, "that": true, "from": true, "are": true, "its": true, "use": true, "you": true, "your": true, "not": true, "all": true, "can": true, "will": true, "into": true, "when": true, "has": true, "have": true, "one": true, "any": true, "was": true, "but": true}

var wordRe = regexp.MustCompile(`[a-z0-9]+`)

func bag(t *ir.Tool) map[string]bool {
	out := map[string]bool{}
	for _, w := range wordRe.FindAllString(strings.ToLower(t.Description), -1) {
		if len(w) >= 3 && !stop[w] {
			out[w] = true
		}
	}
	for _, w := range words(t.Name) {
		if len(w) >= 3 && !stop[w] {
			out[w] = true
		}
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// nearDuplicates reports each tool whose description and name read like
// an earlier tool's (Jaccard similarity of their words at least 0.85).
func (l *linter) nearDuplicates() {
	bags := make([]map[string]bool, len(l.tools))
	for i, ti := range l.tools {
		bags[i] = bag(ti.t)
	}
	for i, ti := range l.tools {
		if len(bags[i]) < 4 {
			continue
		}
		for j := 0; j < i; j++ {
			if len(bags[j]) < 4 {
				continue
			}
			if sim := jaccard(bags[i], bags[j]); sim >= 0.85 {
				l.add(Finding{Rule: "near-duplicate", Tool: ti.t.Name, Pos: l.toolPos(ti.t), Message: fmt.Sprintf("tool `%s` reads like `%s` (%.0f%% of their words in common); merge them or say when to use each", ti.t.Name, l.tools[j].t.Name, sim*100)})
				break
			}
		}
	}
}

func clip(s string, n int) string {
	s = spaces.ReplaceAllString(s, " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// resumeKeys flags the write steps of a confirm tool that a resumed run
// cannot send again: methods not safe to repeat (POST, PATCH) carrying no
// Idempotency-Key, neither the quote id (idempotency_key: true) nor one
// the overlay binds.
func (l *linter) resumeKeys(ti *toolInfo) {
	t := ti.t
	if t.Confirms == "" {
		return
	}
	for _, st := range t.Steps {
		if m := strings.ToUpper(st.Call.Method); (m != "POST" && m != "PATCH") || st.IdempotencyKey || boundKey(st.Call) {
			continue
		}
		l.add(Finding{Rule: "resume-without-key", Tool: t.Name, Pos: l.stepPos(t, st.Name), Message: fmt.Sprintf("step `%s` of confirm tool `%s` (%s %s) is sent without an Idempotency-Key: if a run stops with its outcome unknown, calling the tool again skips it instead of resending it; set `idempotency_key: true` on the step if the API honours the header", st.Name, t.Name, st.Call.Method, st.Call.Path)})
	}
}

// boundKey reports whether the call's Idempotency-Key header gets a value
// the model does not choose.
func boundKey(c *ir.Call) bool {
	for _, p := range c.Params {
		if p.In == ir.InHeader && strings.EqualFold(p.Name, "Idempotency-Key") && (p.Source.Template != "" || p.Source.Fixed != nil || p.Source.Context != "") {
			return true
		}
	}
	return false
}

// unapprovedDestructive flags a tool that deletes or overwrites with
// neither an approval (`approval: false` counts as none) nor a confirm
// tool's quote: nothing on the server asks the person before it runs.
func (l *linter) unapprovedDestructive(ti *toolInfo) {
	t := ti.t
	if t.Annotations.ReadOnly || !t.Annotations.Destructive || t.Confirms != "" || t.Quote != nil || t.Approval != nil && !t.Approval.Never {
		return
	}
	what := "a DELETE"
	if c := t.Call; c != nil {
		what = c.Method + " " + c.Path
	}
	l.add(Finding{Rule: "unapproved-destructive", Tool: t.Name, Pos: l.toolPos(t), Message: fmt.Sprintf("tool `%s` (%s) is destructive and runs without the person's approval: give it `approval:` (a question over its arguments), or make it the confirm tool of a quote; the server's --approve destructive asks a generated question instead", t.Name, what)})
}
