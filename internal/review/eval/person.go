package eval

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// person is the simulated person of one trial: it answers the model's
// follow-up questions (a scripted reply whose pattern matches, else the
// persona model) and the server's approval questions (the first approval
// rule that matches and is not used up; decline when none does).
type person struct {
	task    *Task
	persona Model // nil: scripted replies only
	// spend counts what the persona's requests cost, and may refuse one.
	spend func(ctx context.Context, counted, maxOutput int64, call func() (*Turn, error)) (*Turn, error)
	// event records what happened in the transcript.
	event func(Event)

	mu           sync.Mutex
	replyUses    []int
	approvalUses []int
	// Approvals are the questions asked and the answers given.
	Approvals []Approval
}

// Approval is an approval question and the simulated person's answer.
type Approval struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// done is what the persona model says when the person has nothing to add.
const done = "DONE"

func newPerson(t *Task, persona Model) *person {
	return &person{task: t, persona: persona, replyUses: make([]int, len(t.Replies)), approvalUses: make([]int, len(t.Approvals))}
}

// approve is the client's elicitation handler: the server asks the person
// to approve something.
func (p *person) approve(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := req.Params.Message
	answer := "decline"
	for i, a := range p.task.Approvals {
		if a.Times > 0 && p.approvalUses[i] >= a.Times {
			continue
		}
		if a.Question != nil && len(a.Question.Mismatches("the question", q)) > 0 {
			continue
		}
		p.approvalUses[i]++
		answer = a.Answer
		break
	}
	p.Approvals = append(p.Approvals, Approval{Question: q, Answer: answer})
	p.event(Event{Type: "approval", Text: q, Answer: answer})
	return &mcp.ElicitResult{Action: answer}, nil
}

// reply is what the person says to the model's message text, or false
// when the person has nothing to say: the message is the final answer.
func (p *person) reply(ctx context.Context, text string, dialogue []Message) (string, bool, error) {
	p.mu.Lock()
	for i, r := range p.task.Replies {
		if r.Times > 0 && p.replyUses[i] >= r.Times {
			continue
		}
		if r.When.MatchString(text) {
			p.replyUses[i]++
			p.mu.Unlock()
			return r.Say, true, nil
		}
	}
	p.mu.Unlock()
	if p.persona == nil || p.task.Persona == "" {
		return "", false, nil
	}
	conv := &Conversation{System: personaPrompt(p.task), Messages: []Message{{Role: "user", Text: visibleDialogue(dialogue)}}}
	turn, err := p.spend(ctx, countTokens(conv), p.persona.MaxOutput(), func() (*Turn, error) { return p.persona.Next(ctx, conv) })
	if err != nil {
		return "", false, err
	}
	say := strings.TrimSpace(turn.Text)
	if say == "" || strings.Trim(say, ".! ") == done {
		return "", false, nil
	}
	return say, true, nil
}

func personaPrompt(t *Task) string {
	return fmt.Sprintf(`You play a person talking with an assistant that acts for a business. Stay in character; never act as the assistant.

Who you are and what you know: %s

What you asked at first: %s

You are given the conversation so far. Answer the assistant's last message as this person would, in one to three short sentences, using only what this person knows. If the assistant has finished or asks nothing you need to answer, reply with exactly %s.`, t.Persona, t.Ask, done)
}

// visibleDialogue is the conversation as the person saw it: their
// messages and the assistant's text, not the tool calls.
func visibleDialogue(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		if m.Text == "" {
			continue
		}
		who := "You"
		if m.Role == "assistant" {
			who = "Assistant"
		}
		fmt.Fprintf(&b, "%s: %s\n\n", who, m.Text)
	}
	return strings.TrimSpace(b.String())
}
