package mcpkit

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/tailormcp/tailor/internal/jsonv"
)

// The server-wide approval policy (--approve, <PREFIX>_APPROVE) makes the
// server ask the person before tools the overlay says nothing about:
//
//	none         ask only where the overlay has an approval (the default)
//	destructive  also before every tool that deletes or overwrites (Tool.Destructive)
//	writes       also before every tool that changes data (Tool.Writes)
//
// so that the raw tool set of a large API is safe to hand to an agent. The
// question is generated (approval_call_question): it names the tool, says
// what it does and lists the arguments, never a secret or a value of the
// caller's identity. The overlay overrides the policy per tool: its own
// approval (a message of its own), or `approval: false` (Approval.Never).
// Quote tools are never asked about: they change nothing by design; their
// confirm tools are.

// Approval policies.
const (
	ApproveNone        = "none"
	ApproveDestructive = "destructive"
	ApproveWrites      = "writes"
)

// approvePolicies are the values --approve accepts.
var approvePolicies = []string{ApproveNone, ApproveDestructive, ApproveWrites}

// checkApprovePolicy says what is wrong with a policy value, or nil.
func checkApprovePolicy(p string) error {
	if p == "" {
		return nil
	}
	for _, ok := range approvePolicies {
		if p == ok {
			return nil
		}
	}
	return fmt.Errorf("the approval policy %q is not one of %s", p, strings.Join(approvePolicies, ", "))
}

// generatedApproval is the approval the policy asks with: the generated
// question, refused when the client cannot ask the person.
var generatedApproval = &Approval{}

// ApprovalOf is the approval the server asks before a call of t, or nil:
// the overlay's, else the policy's.
func (k *Runtime) ApprovalOf(t *Tool) *Approval {
	if a := t.Approval; a != nil {
		if a.Never {
			return nil
		}
		return a
	}
	if t.Quote != nil || t.ReadOnly || !t.Writes {
		return nil
	}
	switch k.cfg.Approve {
	case ApproveWrites:
		return generatedApproval
	case ApproveDestructive:
		if t.Destructive {
			return generatedApproval
		}
	}
	return nil
}

// approval is ApprovalOf for this call's tool.
func (c *Call) approval() *Approval { return c.kit.ApprovalOf(c.tool) }

// secretName matches argument names whose values are never shown in a
// generated question, whatever they hold.
var secretName = regexp.MustCompile(`(?i)(pass(word|phrase)?|secret|token|api[-_]?key|apikey|auth|credential|private[-_]?key|signature|cookie|session)`)

// Bounds of the generated question: it stays one readable paragraph.
const (
	questionValue = 120 // characters of one argument's value
	questionArgs  = 600 // characters of the argument list
)

// generatedQuestion is the policy's question for this call: the tool, what
// it does, its arguments. An argument whose name says it holds a secret,
// or whose value is one of the caller's context values (identity), shows
// as "(not shown)"; configured secrets are redacted.
func (c *Call) generatedQuestion() string {
	t := c.tool
	what := strings.TrimSpace(t.Title)
	if what == "" || what == t.Name {
		what = firstSentence(t.Description)
	}
	hidden := map[string]bool{}
	for _, v := range c.contextValues() {
		if s := fmt.Sprint(v); s != "" {
			hidden[s] = true
		}
	}
	names := make([]string, 0, len(c.args))
	for n := range c.args {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	size := 0
	for i, n := range names {
		v := jsonv.Text(c.args[n])
		if s, ok := c.args[n].(string); ok && hidden[s] || secretName.MatchString(n) {
			v = "(not shown)"
		}
		if len(v) > questionValue {
			v = v[:questionValue] + "…"
		}
		p := n + "=" + v
		if size+len(p) > questionArgs {
			parts = append(parts, fmt.Sprintf("and %d more", len(names)-i))
			break
		}
		size += len(p)
		parts = append(parts, p)
	}
	args := strings.Join(parts, ", ")
	if args == "" {
		args = "none"
	}
	q := c.say("approval_call_question", M{"what": what, "destructive": t.Destructive, "arguments": args})
	for s := range hidden {
		// Short values would blank out ordinary words; arguments holding
		// them are hidden above.
		if len(s) >= 4 {
			q = strings.ReplaceAll(q, s, "(not shown)")
		}
	}
	return c.redact(q)
}

// firstSentence is the start of a description, up to its first full stop
// or line break, at most 160 characters.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\n"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(s, ".")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
