package lint

// Severity of a rule: errors make `tailor lint` exit non-zero.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Rule is one check, with the reason it exists.
type Rule struct {
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	Why      string   `json:"why"`
}

// Rules lists every rule, in the order findings are reported within a tool.
var Rules = []Rule{
	{"description-short", Warning, "The model chooses tools by their descriptions alone: say what the tool does, when to use it, when not to, and what it returns (the tool-design guidance is three to four sentences)."},
	{"write-guidance", Warning, "A write changes data: its description must say when to call it and when not (what to check or confirm first, which tool to use instead), or the model calls it on a guess."},
	{"read-name-on-write", Error, "A name that says the tool reads (get_, list_, search_ ...) on a tool that changes data misleads the model and the person approving its calls: they take it for a safe look-up. Name it for what it changes, or mark it read-only in the overlay (`annotations: {read_only: true}`) when the call changes nothing, such as a search sent as POST."},
	{"money-from-model", Error, "A model asked for an amount computes money with rules it never saw; the API can quote it. Let a quote tool compute the amount and a confirm tool carry out exactly that quote."},
	{"identity-param", Warning, "Who the caller is belongs to the session, not to the model: an argument can be talked into naming someone else. Inject it from server.context (from: context.<name>)."},
	{"credential-param", Warning, "A secret the model fills passes through the conversation, the model's context and the call logs, and the model may be talked into sending another one. The server's configuration holds credentials: tailor fills a parameter from one when the spec's security scheme sends the same secret; otherwise hide the parameter or fix its value in the overlay."},
	{"values-without-enum", Warning, "The description lists the accepted values but the schema does not: the model guesses spellings and the server cannot reject a wrong one before calling the API. Add an enum."},
	{"ambiguous-name", Warning, "A bare noun such as `user` does not say whether it wants an id, a name or an email, while the API uses `user_id` elsewhere; the model fills in whatever it has."},
	{"name-mismatch", Warning, "A value another tool returns should keep its name (`line_item_id`, not `item`): the model carries values between tools by name."},
	{"name-too-long", Warning, "Clients put the server's name before each tool's (Claude Code mcp__<server>__<tool>, Gemini CLI mcp_<server>_<tool>) within a limit (64, 63; Cursor 60 for both names): past it the model API refuses the request, or the client cuts the name or drops the tool."},
	{"name-clash", Error, "Clients that sanitise names (lower case, - and . to _) see two of these as one: one tool hides the other, or the client refuses the server."},
	{"near-duplicate", Warning, "Two tools that read alike make the model pick at random; merge them, or say in each when to use it instead of the other."},
	{"resume-without-key", Warning, "A confirm tool that stops part-way resumes on the next call, but a POST or PATCH step whose outcome was unknown is sent again only with an idempotency key; without one it is skipped and the person must check by hand whether it took effect. Set `idempotency_key: true` on the step (or bind its Idempotency-Key from the quote id) where the API honours one."},
	{"unapproved-destructive", Warning, "A destructive tool (it deletes, overwrites or cannot be undone) runs the moment the model calls it; a client's \"always allow\" is not bound to the arguments and leaves no record on the server. Give it an `approval:` (the person approves this call's exact arguments, once, before anything is sent) or carry it out through a quote and a confirm tool; or run the server with --approve destructive."},
	{"tool-poisoning", Error, "Text that instructs the model (ignore previous instructions, <IMPORTANT>, read files, send secrets, hide things from the user) is a prompt-injection attack riding in the spec, and the model reads it as the tool's author's intent."},
	{"token-budget", Warning, "Every tool definition is in the model's context on every turn: past the budget, tool choice gets worse and each conversation costs more. Curate the tool set (include, hidden, shorter schemas). An error when the budget is yours (`lint: {budget: N}` in the overlay, or --budget)."},
	{"lint-config", Error, "A disabled rule must exist, or the switch-off silently does nothing."},
}

// rule finds a rule by id.
func rule(id string) Rule {
	for _, r := range Rules {
		if r.ID == id {
			return r
		}
	}
	panic("lint: unknown rule " + id)
}
