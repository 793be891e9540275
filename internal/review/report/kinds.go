package report

// Kind is why a call's result was an error, as far as improving the tool
// set is concerned: who can fix it, and where.
type Kind string

const (
	// Validation: the arguments were wrong (refused by the input schema,
	// by the API naming a field, or naming something that does not exist).
	Validation Kind = "validation"
	// BusinessRule: the API refused by one of its rules (a state, a
	// limit); the same call fails again.
	BusinessRule Kind = "business rule"
	// Auth: identity or permission: the caller's context, credentials.
	Auth Kind = "auth"
	// Backend: the API or the server's configuration failed.
	Backend Kind = "backend failure"
	// OutcomeUnknown: a write was sent and nobody knows whether it took effect.
	OutcomeUnknown Kind = "outcome unknown"
	// Declined: the person declined or dismissed the approval, or could not be asked.
	Declined Kind = "approval declined"
	// Other: none of the above (a cancelled call, a record that does not say).
	Other Kind = "other"
)

// Kinds lists the kinds in the order reports show them.
var Kinds = []Kind{Validation, BusinessRule, Auth, Backend, OutcomeUnknown, Declined, Other}

// messageKinds classifies the failure messages of mcpkit's catalog by id.
// Ids missing here are not failures (see notFailures); a test checks that
// every catalog id is in one of the two.
var messageKinds = map[string]Kind{
	"arguments_not_object": Validation, "arguments_too_large": Validation, "arguments_too_deep": Validation,
	"arguments_invalid": Validation, "request_not_built": Validation, "invalid_argument": Validation,
	"not_found": Validation, "quote_unknown": Validation, "quote_wrong_tool": Validation, "request_too_large": Validation,

	"refused": BusinessRule, "conflict": BusinessRule, "precondition_failed": BusinessRule,
	"quote_used": BusinessRule, "quote_expired": BusinessRule, "quote_reserved": BusinessRule,
	"quote_caller_full": BusinessRule,

	"not_permitted": Auth, "credentials_missing": Auth, "identity_unusable": Auth, "context_missing": Auth,
	"claim_not_text": Auth, "scope_missing": Auth, "quote_other_caller": Auth, "quote_unidentified": Auth,

	"base_url_missing": Backend, "server_error": Backend, "redirect": Backend, "other_status": Backend,
	"not_supported": Backend, "request_unbuildable": Backend, "certificate_untrusted": Backend,
	"unreachable": Backend, "timeout": Backend, "connection_refused": Backend, "host_unknown": Backend,
	"connection_failed": Backend, "response_too_large": Backend, "response_invalid": Backend,
	"quote_not_made": Backend, "quote_not_stored": Backend, "quote_store_full": Backend,
	"quote_store_failed": Backend, "rate_limited": Backend, "internal_error": Backend,
	"step_not_built": Backend, "step_not_a_list": Backend, "quote_store_unreachable": Backend,
	"quote_not_stored_unreachable": Backend, "step_not_recorded": Backend, "step_reservation_lost": Backend,
	"approval_key_mismatch": Backend, "approval_call_store_failed": Backend,

	"tool_read_only": Validation, "tool_not_selected": Validation, "selection_invalid": Validation,
	"tool_unknown": Validation, "toolset_unknown": Validation, "toolsets_not_kept": Validation,

	"server_error_write": OutcomeUnknown, "timeout_write": OutcomeUnknown, "connection_lost_write": OutcomeUnknown,
	"response_too_large_write": OutcomeUnknown, "response_invalid_write": OutcomeUnknown,
	"step_unknown_status": OutcomeUnknown, "step_unknown_rule": OutcomeUnknown, "step_unknown_timeout": OutcomeUnknown,
	"step_unknown_cancelled": OutcomeUnknown, "step_unknown_connection": OutcomeUnknown,
	"step_answer_unreadable": OutcomeUnknown, "steps_done_unreadable": OutcomeUnknown, "step_unknown_not_resent": OutcomeUnknown,

	"approval_declined": Declined, "approval_dismissed": Declined, "approval_unavailable": Declined,
	"approval_call_declined": Declined, "approval_call_dismissed": Declined, "approval_call_timed_out": Declined,

	"cancelled": Other,
}

// notFailures are catalog messages that say what was done, wrap a
// failure named before them (steps_none_done, steps_partly_done), or are
// not tool results at all (transport answers).
var notFailures = map[string]bool{
	"quote_ready": true, "done_no_content": true, "binary_content": true, "result_cut": true, "result_trimmed": true,
	"result_text_failed": true, "steps_done": true, "steps_none_done": true, "steps_partly_done": true,
	"approval_question": true, "approval_call_question": true, "frame_not_json": true, "frame_too_large": true, "frame_too_deep": true,
	"frame_invalid": true, "frame_empty_batch": true, "frame_batch_refused": true, "http_batch_refused": true, "origin_refused": true,
}

// cutMessages say a result was cut to size.
var cutMessages = map[string]bool{"result_cut": true, "result_trimmed": true}

// kindOf classifies an error result: by the first failure message it is
// made of; else, for an overlay error rule or a record from a server that
// does not name its messages, by the HTTP status of its last request.
func kindOf(r *Record) Kind {
	for _, id := range r.Messages {
		if k, ok := messageKinds[id]; ok {
			return k
		}
	}
	var last *Call
	for i := range r.Calls {
		last = &r.Calls[i]
	}
	if last == nil {
		return Other
	}
	if last.Outcome == "unknown" {
		return OutcomeUnknown
	}
	switch s := last.Status; {
	case s == 401 || s == 403:
		return Auth
	case s == 404:
		return Validation
	case (s == 400 || s == 422) && r.Rule == nil:
		return Validation
	case s >= 400 && s < 500:
		return BusinessRule
	}
	return Backend
}
