package mcpkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"text/template"
)

// Message is a built-in text that a model (or, for approval questions, a
// person) reads: what went wrong and what to do next, or what was done.
// Every one is a template over named fields, rendered by Call.say, and an
// overlay can replace any of them, for the whole server (`messages:`) or
// for one tool (`tools.<name>.messages:`); tailor checks the replacement's
// id and fields at generate time.
//
// The defaults are domain-neutral: they speak of "the API", "the user",
// "the change", never of a business they cannot know.
//
// To add a message: add an entry to catalog (id in snake_case, the default
// text, every field it may use with what it holds), then call
// c.say("the_id", M{...}) where the text was. Every field listed is
// available to overrides; say fills those a call site leaves out with "".
// TestCatalog renders each default and checks it is domain-neutral.
type Message struct {
	ID     string  `json:"id"`
	Text   string  `json:"text"`
	Fields []Field `json:"fields"`
}

// Field is a value a message template can read as .name.
type Field struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
}

// M holds a message's fields.
type M map[string]any

// Fields every message has.
var commonFields = []Field{{"tool", "the tool's name"}}

var (
	statusField   = Field{"status", `the HTTP status, e.g. "HTTP 404 Not Found"`}
	codeField     = Field{"code", "the HTTP status code, e.g. 404"}
	detailField   = Field{"detail", "what the API said (its error message), or empty"}
	hostField     = Field{"host", "the API's host"}
	timeoutField  = Field{"timeout", `the request timeout, e.g. "30s"`}
	errorField    = Field{"error", "the underlying error"}
	limitField    = Field{"limit", `the limit, e.g. "10 MiB"`}
	idField       = Field{"id", "the quote id"}
	confirmField  = Field{"confirm_tool", "the tool that carries the quote out"}
	quoteToolFld  = Field{"quote_tool", "the tool that makes quotes for this one"}
	expiresField  = Field{"expires_at", "when the quote expires (RFC 3339)"}
	questionField = Field{"question", "the approval question asked"}
	stepField     = Field{"step", "the step's name"}
	problemField  = Field{"problem", "what is wrong with the answer"}
	ctypeField    = Field{"content_type", "the answer's Content-Type, or empty"}
	excerptField  = Field{"excerpt", "the start of the answer, or empty"}
)

// failureFields are the fields of every message about a failed HTTP call.
var failureFields = []Field{statusField, codeField, detailField}

const saidText = `{{if .detail}} The API said: {{.detail}}.{{end}}`

var catalog = []Message{
	// What the server lacks to make any call (see settings.go).
	{ID: "base_url_missing", Fields: []Field{{"problem", "what is wrong with the configured base URL, or that none is set"}, {"fix", "how to set it"}},
		Text: "This MCP server is not configured with the API's address ({{.problem}}), so nothing was sent. Whoever runs the server must {{.fix}} and restart it. Tell the user; retrying will not help."},
	{ID: "credentials_missing", Fields: []Field{{"settings", "the environment variables that would supply a credential, alternatives joined by \", or\""}},
		Text: "This MCP server has no credentials for this operation of the API, so nothing was sent. Whoever runs the server must set {{.settings}} in its environment and restart it. Tell the user; retrying will not help."},

	{ID: "scope_missing", Fields: []Field{{"scopes", "the OAuth scopes the tool needs and the caller's token lacks, space-separated"}},
		Text: "The caller's access token does not grant the scopes {{.scopes}}, which {{.tool}} needs, so nothing was done. Tell the user: they must sign in again and grant these scopes, or ask an administrator for them. Retrying with the same token will not help."},

	// Arguments.
	{ID: "arguments_not_object", Text: "Invalid arguments: they must be a JSON object of named arguments. Call {{.tool}} again with an object matching its input schema."},
	{ID: "arguments_too_large", Fields: []Field{{"size", `the arguments' size, e.g. "12 MiB"`}, limitField},
		Text: "The arguments are {{.size}}, over this server's limit of {{.limit}}, so they were not read and nothing was sent to the API. Send less data (fewer or shorter values) and call {{.tool}} again."},
	{ID: "arguments_too_deep", Fields: []Field{{"limit", "the deepest nesting allowed"}},
		Text: "The arguments are nested more than {{.limit}} levels deep, so they were not read and nothing was sent to the API. Give them the shape of the tool's input schema and call {{.tool}} again."},
	{ID: "arguments_invalid", Fields: []Field{{"problems", "what is wrong, argument by argument"}},
		Text: "Invalid arguments for {{.tool}}: {{.problems}}. Nothing was sent to the API. Fix the arguments to match the tool's input schema and call it again."},
	{ID: "request_not_built", Fields: []Field{{"problem", "why the request could not be built"}},
		Text: "Invalid arguments for {{.tool}}: {{.problem}}. Nothing was sent to the API; fix the arguments and call again."},
	{ID: "identity_unusable", Fields: []Field{{"problem", "why the session's identity cannot be used"}, {"id", "the quote id, for a tool that carries out a quote, or empty"}},
		Text: "This session's identity cannot be used: {{.problem}}. {{if .id}}Nothing was done with quote {{.id}}.{{else}}Nothing was sent to the API.{{end}} Tell the user their session is not identified correctly (they may need to sign in again); do not ask them for it or try other tools to get around it."},
	{ID: "claim_not_text", Fields: []Field{{"name", "the context value's name"}, {"claim", "the token claim it comes from"}, {"kind", `what the claim holds instead, e.g. "a number"`}},
		Text: "the {{.claim}} claim of the caller's token is {{.kind}}, not a string, so it cannot be used as {{.name}}"},
	{ID: "context_missing", Fields: []Field{{"name", "the context value's name"}, {"sources", "where the server looks for it in this session, or empty when none of its sources is available"}},
		Text: "This session has no {{.name}}: {{if .sources}}the server takes it from {{.sources}}, and none was provided{{else}}none of its sources is available in this session{{end}}, so nothing was sent to the API. It identifies the caller and cannot be given as a tool argument. Tell the user their session is not identified (they may need to sign in again); do not ask them for it or try other tools to get around it."},

	// The API answered with a failure status.
	{ID: "invalid_argument", Fields: failureFields,
		Text: "The API rejected the request as invalid ({{.status}})." + saidText + " Correct the argument it names and call {{.tool}} again; do not repeat the same arguments."},
	{ID: "refused", Fields: failureFields,
		Text: "The API refused the request ({{.status}})." + saidText + " If that names an argument you can correct, correct it and call {{.tool}} again. If it is a rule of the service (the current state of something, or a limit), the same request will be refused again: tell the user why instead of retrying."},
	{ID: "not_permitted", Fields: failureFields,
		Text: "Not permitted ({{.status}})." + saidText + " The MCP server's credentials do not allow this call. Do not retry it and do not look for another tool to get around it; tell the user it is not permitted."},
	{ID: "not_found", Fields: failureFields,
		Text: "Not found ({{.status}})." + saidText + " Nothing exists at the identifiers you passed. Check them (for example by listing or searching first) instead of guessing new ones."},
	{ID: "not_supported", Fields: failureFields,
		Text: "The API does not support this operation here ({{.status}})." + saidText + " Do not retry."},
	{ID: "conflict", Fields: failureFields,
		Text: "Conflict ({{.status}})." + saidText + " The resource's current state does not allow this. Read its current state again and decide from that; do not repeat the call unchanged."},
	{ID: "precondition_failed", Fields: failureFields,
		Text: "Precondition failed ({{.status}})." + saidText + " The resource changed since you read it; read it again before retrying."},
	{ID: "request_too_large", Fields: failureFields,
		Text: "The request was too large ({{.status}})." + saidText + " Send less data."},
	{ID: "rate_limited", Fields: append([]Field{{"wait", `how long to wait, e.g. "30 seconds"`}}, failureFields...),
		Text: "Rate limited ({{.status}}): too many requests." + saidText + " Wait {{.wait}} before calling {{.tool}} again."},
	{ID: "server_error", Fields: failureFields,
		Text: "The API failed ({{.status}})." + saidText + " This is a problem on the API's side, not with your arguments. You may retry once later; if it keeps failing, tell the user the service is having trouble."},
	{ID: "server_error_write", Fields: failureFields,
		Text: "The API failed ({{.status}}) while handling this change." + saidText + " It may or may not have taken effect. Check the current state with a read-only tool before trying again, and do not resend it blindly."},
	{ID: "redirect", Fields: append([]Field{{"location", "where the redirect pointed (its Location header), or empty"}}, failureFields...),
		Text: "The API answered with a redirect ({{.status}}){{if .location}} to {{.location}}{{end}}. The MCP server does not follow redirects, so nothing further was requested there." + saidText + " The server's base URL is probably misconfigured; tell the user."},
	{ID: "other_status", Fields: failureFields, Text: "The API answered {{.status}}." + saidText},

	// The request could not be made, the API could not be reached, or it
	// did not answer.
	{ID: "request_unbuildable", Fields: []Field{errorField},
		Text: "The MCP server could not build the request for {{.tool}} ({{.error}}), so nothing was sent. This is a defect in the server's configuration or in the API description, not a problem with the API's availability or your arguments: retrying will not help. Tell the user."},
	{ID: "certificate_untrusted", Fields: []Field{hostField, errorField},
		Text: "The API at {{.host}} presented a TLS certificate the MCP server does not trust ({{.error}}). Retrying will not help: the server's base URL or the API's certificate is wrong; tell the user."},
	{ID: "cancelled", Text: "The call was cancelled before the API answered."},
	{ID: "unreachable", Fields: []Field{hostField, timeoutField},
		Text: "Could not reach the API at {{.host}} within {{.timeout}}; nothing was sent. Retry later; if it keeps failing, tell the user the service is unreachable."},
	{ID: "timeout", Fields: []Field{timeoutField},
		Text: "The API did not answer within {{.timeout}}. This call is safe to repeat: retry once; if it times out again, tell the user the service is slow or down."},
	{ID: "timeout_write", Fields: []Field{timeoutField},
		Text: "The request was sent but the API did not answer within {{.timeout}}, so the outcome is unknown: the change may or may not have been made. Do not call {{.tool}} again blindly; first check with a read-only tool whether it took effect."},
	{ID: "connection_refused", Fields: []Field{hostField},
		Text: "Could not connect to the API at {{.host}} (connection refused); nothing was sent. The service is down or the server is misconfigured. Retry later or tell the user."},
	{ID: "host_unknown", Fields: []Field{hostField},
		Text: "Could not resolve the API host {{.host}}; nothing was sent. The server is misconfigured; tell the user."},
	{ID: "connection_lost_write", Fields: []Field{errorField},
		Text: "The connection to the API failed after the request was sent ({{.error}}), so the outcome is unknown. Do not call {{.tool}} again blindly; check with a read-only tool whether it took effect."},
	{ID: "connection_failed", Fields: []Field{errorField},
		Text: "The call to the API failed: {{.error}}. Retry later; if it keeps failing, tell the user."},

	// The API answered 2xx with something that cannot be used.
	{ID: "response_too_large", Fields: []Field{statusField, limitField, problemField},
		Text: "The API's answer ({{.status}}) is larger than this server's limit of {{.limit}}, so it was not read and none of it is shown. Ask for less (a filter, a smaller page or limit, a narrower query) and call {{.tool}} again. The server's operator can raise the limit (--max-response-bytes)."},
	{ID: "response_too_large_write", Fields: []Field{statusField, limitField, problemField},
		Text: "The API accepted the change ({{.status}}), so it took effect, but its answer is larger than this server's limit of {{.limit}}, so it was not read: what it returned is not known. Check the result with a read-only tool; do not call {{.tool}} again to find out (that would make the change twice)."},
	{ID: "response_invalid", Fields: []Field{statusField, ctypeField, problemField, excerptField},
		Text: "The API answered {{.status}}, but {{.problem}}{{if .excerpt}} (it begins: {{.excerpt}}){{end}}, so the answer cannot be used. This is a problem on the API's side, not with your arguments. Retry once later; if it happens again, tell the user the service is returning broken answers."},
	{ID: "response_invalid_write", Fields: []Field{statusField, ctypeField, problemField, excerptField},
		Text: "The API accepted this change ({{.status}}), so it took effect, but {{.problem}}{{if .excerpt}} (it begins: {{.excerpt}}){{end}}, so what it returned is not known. Check the result with a read-only tool; do not call {{.tool}} again to find out (that would make the change twice)."},
	{ID: "quote_not_made", Fields: []Field{statusField, problemField, ctypeField, excerptField},
		Text: "The API answered {{.status}}, but {{.problem}}, so no quote was made and there is nothing to carry out. This is a problem on the API's side. Retry once later; if it happens again, tell the user the service cannot compute it now."},
	{ID: "done_no_content", Fields: []Field{statusField},
		Text: "Done: the API answered {{.status}} with no content."},
	{ID: "binary_content", Fields: []Field{statusField, {"size", "the content's size in bytes"}, {"content_type", "its Content-Type"}, {"base64", "the content in base64, cut to 4 KiB"}},
		Text: "The API answered {{.status}} with {{.size}} bytes of binary content ({{.content_type}}), which cannot be shown as text. Base64: {{.base64}}"},
	{ID: "result_cut", Fields: []Field{limitField, {"size", "the whole result's size in bytes"}},
		Text: "The result was cut at {{.limit}} of {{.size}} bytes. Ask for less (a smaller limit, a filter, or a narrower query) to see the rest."},
	{ID: "result_trimmed", Fields: []Field{limitField, {"cuts", "which lists were shortened, and how much"}},
		Text: "The result was cut to fit {{.limit}} bytes: {{.cuts}}. Ask for less (a smaller limit, a filter, or a narrower query) to see the rest."},
	{ID: "result_text_failed", Fields: []Field{errorField},
		Text: "(The summary of this result could not be written: {{.error}}. The call itself succeeded; its data follows.)"},

	// Quotes.
	{ID: "quote_ready", Fields: []Field{idField, expiresField, confirmField},
		Text: "Quote {{.id}}, valid until {{.expires_at}}. Nothing has been done yet: tell the user the result above and, once they agree, {{if .confirm_tool}}call {{.confirm_tool}} with quote_id {{.id}}{{else}}carry it out{{end}}."},
	{ID: "quote_not_stored",
		Text: "The quote was computed but could not be stored (the server's quote store failed), so it cannot be carried out. Nothing was changed. Try again in a moment."},
	{ID: "quote_store_full",
		Text: "The result was computed, but the server holds as many open quotes as it may, so no quote was stored and nothing can be carried out from it. Nothing was changed. Carry out or abandon earlier quotes, or call {{.tool}} again in a few minutes."},
	{ID: "quote_caller_full",
		Text: "The result was computed, but this caller already holds as many open quotes as one caller may, so no quote was stored and nothing can be carried out from it. Nothing was changed. Carry out the earlier quotes still needed, or wait until unused ones expire, then call {{.tool}} again."},
	{ID: "quote_unknown", Fields: []Field{idField, quoteToolFld},
		Text: "There is no quote {{printf \"%q\" .id}}. Quote ids come from {{.quote_tool}}; call it (it changes nothing) and use the quote_id it returns. Nothing was done."},
	{ID: "quote_not_stored_unreachable",
		Text: "The result was computed, but the server's quote store cannot be reached right now, so no quote was stored and nothing can be carried out from it. Nothing was changed. Try {{.tool}} again in a minute; if it keeps failing, tell the user this cannot be done right now."},
	{ID: "quote_store_unreachable", Fields: []Field{{"id", "the quote id given"}},
		Text: "The server's quote store cannot be reached right now, so quote {{.id}} could not be read or reserved. Nothing was done. Try again in a minute with the same quote_id; if it keeps failing, tell the user this cannot be carried out right now."},
	{ID: "quote_store_failed",
		Text: "The quote could not be used (the server's quote store failed). Nothing was done; try again in a moment."},
	{ID: "quote_unidentified", Fields: []Field{idField},
		Text: "This session is not identified, so quote {{.id}} cannot be carried out here. Nothing was done. Tell the user their session is not identified (they may need to sign in again); do not try other tools to get around it."},
	{ID: "quote_other_caller", Fields: []Field{idField, quoteToolFld},
		Text: "Quote {{.id}} was made for another caller or session, so it cannot be used here. Nothing was done. Call {{.quote_tool}} in this session and show the user the result."},
	{ID: "quote_wrong_tool", Fields: []Field{idField, quoteToolFld, {"made_by", "the tool that made the quote"}},
		Text: "{{.id}} is a quote of {{.made_by}}, not of {{.quote_tool}}. Nothing was done; call {{.quote_tool}} to get a quote for this action."},
	{ID: "quote_used", Fields: []Field{idField, {"used_at", "when it was carried out, or empty"}},
		Text: "Quote {{.id}} was already carried out{{if .used_at}} (at {{.used_at}}){{end}} and cannot be used twice. Nothing more was done. Check the current state with a read-only tool instead of retrying."},
	{ID: "quote_expired", Fields: []Field{idField, expiresField, quoteToolFld},
		Text: "Quote {{.id}} expired at {{.expires_at}}. Nothing was done. Call {{.quote_tool}} again, tell the user the new result, and carry out the new quote."},
	{ID: "quote_reserved", Fields: []Field{idField, {"free_at", "when the quote is free again if that other call was abandoned, or empty"}},
		Text: "Quote {{.id}} is being carried out by another call right now (its approval may be waiting for the user). This call did nothing. Wait for that call's result instead of calling {{.tool}} again.{{if .free_at}} If that call was abandoned, the quote is free again from {{.free_at}}.{{end}}"},

	// Approval by the person.
	{ID: "approval_question", Fields: []Field{idField, {"quote", "the quoted values as JSON"}},
		Text: "Approve {{.tool}} with quote {{.id}}? It carries out: {{.quote}}"},
	{ID: "approval_declined", Fields: []Field{questionField, idField, expiresField},
		Text: "The user declined ({{printf \"%q\" .question}}). Nothing was done, and quote {{.id}} stays valid until {{.expires_at}}. Ask the user what they want instead; do not retry without their agreement."},
	{ID: "approval_dismissed", Fields: []Field{idField, expiresField},
		Text: "The user dismissed the approval request without answering. Nothing was done; quote {{.id}} stays valid until {{.expires_at}}."},
	{ID: "approval_key_mismatch", Fields: []Field{idField, {"free_at", "when the quote is free again"}},
		Text: "This approval answer was issued by another instance of this server, which signs approvals with a different key, so it cannot be checked here. Nothing was done, and quote {{.id}} stays held by that approval request until {{.free_at}}. This is a configuration problem of the server (its instances must share one approval key), not something the user or you can fix: tell the user the approval could not be completed."},
	{ID: "approval_unavailable", Fields: []Field{questionField},
		Text: "This action needs the user's explicit approval ({{printf \"%q\" .question}}), and this client cannot ask for it, so nothing was done. Tell the user it needs their approval in a client that can ask for it."},
	// Approval of any call (approve_any.go, approve_policy.go).
	{ID: "approval_call_question", Fields: []Field{{"what", "what the tool does (its title or the first sentence of its description)"}, {"destructive", "true when the tool deletes or overwrites data"}, {"arguments", "the arguments as name=value, secrets and identity values not shown"}},
		Text: "Allow {{.tool}}{{if .what}} ({{.what}}){{end}}?{{if .destructive}} It deletes or overwrites data.{{else}} It changes data.{{end}} Arguments: {{.arguments}}."},
	{ID: "approval_call_declined", Fields: []Field{questionField},
		Text: "The user declined ({{printf \"%q\" .question}}). Nothing was done. Ask the user what they want instead; do not call {{.tool}} again without their agreement."},
	{ID: "approval_call_dismissed", Fields: []Field{questionField},
		Text: "The user dismissed the approval request ({{printf \"%q\" .question}}) without answering. Nothing was done."},
	{ID: "approval_call_timed_out",
		Text: "The approval request was answered too late (approvals must be answered within a few minutes), so nothing was done. Call {{.tool}} again if the user still wants it; they will be asked again."},
	{ID: "approval_call_store_failed",
		Text: "The approval could not be recorded (the server's approval store failed), so nothing was done. Try again in a moment."},

	// Composed tools.
	{ID: "step_not_built", Fields: []Field{stepField, {"problem", "why its request could not be built"}},
		Text: "Step {{.step}} could not be built: {{.problem}}. Its request was not sent. This is a problem in the tool's definition or in the data the step reads, not in your arguments."},
	{ID: "step_not_a_list", Fields: []Field{stepField, {"list", "the reference the step runs over"}, {"got", `what it is instead, e.g. "a string" or "absent"`}},
		Text: "Step {{.step}} runs once per element of {{.list}}, which is {{.got}} here, not a list. This is a problem in the tool's definition or in the API's answer, not in your arguments."},
	{ID: "step_unknown_status", Fields: []Field{stepField, statusField, detailField},
		Text: "Step {{.step}} was sent and the API failed ({{.status}})." + saidText + " Whether it was applied is unknown."},
	{ID: "step_unknown_rule", Fields: []Field{stepField, {"reason", "the overlay's error text for the failure"}},
		Text: "Step {{.step}} was sent and failed: {{.reason}} Whether it was applied is unknown."},
	{ID: "step_unknown_timeout", Fields: []Field{stepField, timeoutField},
		Text: "Step {{.step}} was sent, but the API did not answer within {{.timeout}}, so whether it was applied is unknown."},
	{ID: "step_unknown_cancelled", Fields: []Field{stepField},
		Text: "Step {{.step}} was sent, then the call was cancelled before the API answered, so whether it was applied is unknown."},
	{ID: "step_unknown_connection", Fields: []Field{stepField},
		Text: "Step {{.step}} was sent, but the connection failed before the API answered, so whether it was applied is unknown."},
	{ID: "step_answer_unreadable", Fields: []Field{stepField, statusField, problemField, excerptField, {"blocked", "a later step that needs what it returned, or empty"}},
		Text: "Step {{.step}} took effect (the API answered {{.status}}), but {{.problem}}{{if .excerpt}} (it begins: {{.excerpt}}){{end}}, so what it returned is not known.{{if .blocked}} Step {{.blocked}} needs what it returned, so the rest cannot be carried out.{{end}}"},
	{ID: "steps_done_unreadable", Fields: []Field{stepField, statusField, problemField, excerptField, {"done", "what the steps did, by step"}},
		Text: "Every step of {{.tool}} took effect ({{.done}}), but the answer to step {{.step}} ({{.status}}) cannot be used: {{.problem}}{{if .excerpt}} (it begins: {{.excerpt}}){{end}}. What it returned is not known. Check the result with a read-only tool; do not call {{.tool}} again to find out (that would make the change twice)."},
	{ID: "step_not_recorded", Fields: []Field{stepField},
		Text: "Step {{.step}} was not sent: the server's quote store could not be reached to record the run's progress first, and a change whose progress is not recorded could not be finished safely later."},
	{ID: "step_reservation_lost", Fields: []Field{stepField, idField},
		Text: "Step {{.step}} was not sent: this call's hold on quote {{.id}} lapsed before it (the run took longer than allowed), and another call may now be carrying the quote out."},
	{ID: "step_unknown_not_resent", Fields: []Field{stepField, {"method", "the step's HTTP method"}},
		Text: "Step {{.step}} was sent in an earlier call and its outcome is still unknown; it carries no idempotency key and {{.method}} is not safe to repeat, so it is not sent again. Check with a read-only tool whether it took effect."},
	{ID: "steps_none_done", Fields: []Field{stepField, {"reason", "why it failed"}, {"id", "the quote id, when the quote stays valid, or empty"}, expiresField},
		Text: "Nothing was done: step {{.step}} failed before any change took effect. {{.reason}}{{if .id}} Quote {{.id}} stays valid until {{.expires_at}}.{{end}}"},
	{ID: "steps_partly_done", Fields: []Field{stepField, {"reason", "why it stopped"},
		{"done", "the writes that took effect, by step, or empty"}, {"unknown", "the writes whose outcome is unknown (sent, no answer), by step, or empty"},
		{"not_run", "the steps (or calls of a step) that did not run, or empty"}, {"resume", "true when calling the tool again with the same quote finishes the run"},
		{"wait", "true when the cause must be resolved before that"}, {"id", "the quote id, or empty"}},
		Text: "Only part of {{.tool}} was done.{{if .done}} Took effect: {{.done}}.{{end}}{{if .unknown}} Outcome unknown (sent, but no answer says whether the API applied it): {{.unknown}}.{{end}}{{if .not_run}} Did not run: {{.not_run}}.{{end}} {{.reason}}{{if .resume}} Calling {{.tool}} again with quote_id {{.id}} finishes it: it sends again only what did not certainly take effect, with the same idempotency keys, and asks for no new approval.{{if .wait}} Do that only once the cause above is resolved.{{end}} Tell the user exactly what was and was not done.{{else}} Tell the user exactly what was and was not done before trying anything else.{{end}}"},
	{ID: "steps_done", Fields: []Field{{"done", "what the steps did: the reads, and the writes by step with the ids they created"}},
		Text: "Done: {{.done}}."},

	// Transports: answers to a client's malformed messages (JSON-RPC
	// errors over stdio, an HTTP status), which a client may show the model.
	{ID: "frame_not_json", Text: "Parse error: the message is not valid JSON."},
	{ID: "frame_too_large", Fields: []Field{limitField}, Text: "Invalid Request: a message must be at most {{.limit}}."},
	{ID: "frame_too_deep", Fields: []Field{{"depth", "how deep the message nests"}, {"limit", "the deepest nesting allowed"}},
		Text: "Invalid Request: the message nests {{.depth}} levels deep; at most {{.limit}} are allowed."},
	{ID: "frame_invalid", Fields: []Field{{"problem", "why it is not a JSON-RPC message"}}, Text: "Invalid Request: {{.problem}}."},
	{ID: "frame_empty_batch", Text: "Invalid Request: an empty batch."},
	{ID: "frame_batch_refused", Fields: []Field{{"version", "the protocol version the session uses"}},
		Text: "Invalid Request: batches are not part of protocol version {{.version}}."},
	{ID: "http_batch_refused", Text: "Invalid Request: this server takes one JSON-RPC message per HTTP request, not a batch; send the messages one at a time."},
	{ID: "origin_refused", Fields: []Field{{"origin", "the request's Origin header"}},
		Text: "Forbidden: cross-origin requests from {{.origin}} are not allowed (the server's operator can allow an origin with --allow-origin)."},

	// The request's selection of tools (selection.go, dynamic.go).
	{ID: "tool_read_only", Fields: []Field{{"setting", "the setting that makes the server read-only"}},
		Text: "{{.tool}} changes data, and this server is read-only ({{.setting}}), so nothing was done. Only tools that read data can be used here; tell the user if the task needs a change."},
	{ID: "tool_not_selected", Fields: []Field{{"setting", "the setting that leaves the tool out"}},
		Text: "{{.tool}} is not available on this server as it is configured ({{.setting}}), so nothing was done. Use one of the tools you were given instead."},
	{ID: "selection_invalid", Fields: []Field{problemField},
		Text: "The request's choice of tools cannot be used: {{.problem}}. Nothing was done. Whoever configured the client must correct it."},
	{ID: "tool_unknown", Fields: []Field{{"name", "the name asked for"}, {"suggestion", "the nearest tool name available, or empty"}},
		Text: "There is no tool named {{printf \"%q\" .name}} available here, so nothing was done.{{if .suggestion}} Did you mean {{.suggestion}}?{{end}} Find tools with search_tools."},
	{ID: "toolset_unknown", Fields: []Field{{"problems", "each name that is not a toolset, with the nearest one"}},
		Text: "Nothing was enabled: {{.problems}}. list_toolsets lists the toolsets available here."},
	{ID: "toolsets_not_kept", Text: "This server keeps no sessions, so a toolset cannot stay enabled and nothing was enabled. Call the tools you need with call_tool instead."},

	{ID: "internal_error",
		Text: "The tool failed because of an internal error in the MCP server (this is a bug, not a problem with your arguments). Do not retry; tell the user the tool is broken."},
}

var messageIndex = func() map[string]*Message {
	m := make(map[string]*Message, len(catalog))
	for i := range catalog {
		msg := &catalog[i]
		msg.Fields = append(append([]Field(nil), commonFields...), msg.Fields...)
		if m[msg.ID] != nil {
			panic("mcpkit: message " + msg.ID + " is in the catalog twice")
		}
		m[msg.ID] = msg
	}
	return m
}()

// Catalog returns every built-in message, sorted by id.
func Catalog() []Message {
	out := make([]Message, 0, len(catalog))
	for _, m := range catalog {
		m.Fields = append([]Field(nil), m.Fields...)
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// LookupMessage returns the built-in message id, if there is one.
func LookupMessage(id string) (Message, bool) {
	m, ok := messageIndex[id]
	if !ok {
		return Message{}, false
	}
	return *m, true
}

var messageTemplates sync.Map // text → *template.Template

func messageTemplate(text string) (*template.Template, error) {
	if t, ok := messageTemplates.Load(text); ok {
		return t.(*template.Template), nil
	}
	t, err := ParseTemplate("message", text)
	if err != nil {
		return nil, err
	}
	messageTemplates.Store(text, t)
	return t, nil
}

// say renders message id for this call: the tool's override, else the
// server's, else the default. An override that fails to render is logged
// and the default is used; the text is never empty.
func (c *Call) say(id string, f M) string {
	var toolOver map[string]string
	name := ""
	if c != nil && c.tool != nil {
		toolOver, name = c.tool.Messages, c.tool.Name
	}
	var k *Runtime
	if c != nil {
		k = c.kit
		c.audit.said(id)
	}
	return k.render(id, name, toolOver, f)
}

func (k *Runtime) render(id, tool string, toolOver map[string]string, f M) string {
	msg, ok := messageIndex[id]
	if !ok {
		panic("mcpkit: unknown message " + id)
	}
	data := make(map[string]any, len(msg.Fields))
	for _, fd := range msg.Fields {
		data[fd.Name] = ""
	}
	for name, v := range f {
		data[name] = v
	}
	data["tool"] = tool
	var texts []string
	if s, ok := toolOver[id]; ok {
		texts = append(texts, s)
	}
	if k != nil {
		if s, ok := k.api.Messages[id]; ok {
			texts = append(texts, s)
		}
	}
	texts = append(texts, msg.Text)
	for i, text := range texts {
		out, err := renderMessage(text, data)
		if err == nil {
			return out
		}
		if k != nil {
			k.log.Error("message template failed; using the next one", "message", id, "tool", tool, "override", i < len(texts)-1, "error", err.Error())
		}
	}
	// Only a broken default gets here (TestCatalog renders each one).
	b, _ := json.Marshal(f)
	return fmt.Sprintf("%s: %s", id, b)
}

func renderMessage(text string, data map[string]any) (string, error) {
	t, err := messageTemplate(text)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := executeTemplate(t, &buf, data); err != nil {
		return "", err
	}
	return strings.TrimSpace(buf.String()), nil
}
