package eval

import (
	"fmt"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/review/scenario"
	"github.com/tailormcp/tailor/internal/yamlwalk"
)

// Parse reads a task file. On failure it returns a *diag.Errors listing
// every problem of the file, each as file:line:col.
func Parse(path string, data []byte) (*File, error) { return parse(path, data, nil) }

// parse is Parse that records in keys every key the parser knows (for the
// test that compares them with the JSON Schema).
func parse(path string, data []byte, keys map[string]bool) (*File, error) {
	p := &parser{Walker: yamlwalk.New(path)}
	p.Keys = keys
	f := &File{Path: path}
	err := scenario.ParseDocument(&p.Walker, data, scenario.Document{
		Kind: "task file", Item: "task", VersionKey: "tailor-eval", Version: Version, Env: &f.Env,
		Fields: map[string]func(k, v *yaml.Node){
			"system":    func(k, v *yaml.Node) { f.System, _ = p.Str(v, "system") },
			"trials":    func(k, v *yaml.Node) { f.Trials = p.positive(v, "trials") },
			"max_turns": func(k, v *yaml.Node) { f.MaxTurns = p.positive(v, "max_turns") },
			"backend":   func(k, v *yaml.Node) { p.backend(v, &f.Backend) },
		},
		Entry: func(n *yaml.Node, index int) (string, bool) {
			t := p.task(n, index)
			if t == nil {
				return "", false
			}
			f.Tasks = append(f.Tasks, t)
			return t.Name, true
		},
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

type parser struct{ yamlwalk.Walker }

func (p *parser) positive(n *yaml.Node, what string) int {
	i, ok := p.Count(n, what)
	if ok && i < 1 {
		p.Errorf(n, "%s must be at least 1", what)
		return 0
	}
	return i
}

func (p *parser) backend(n *yaml.Node, b *Backend) {
	b.Pos = p.Pos(n)
	p.Fields(n, "backend", map[string]func(k, v *yaml.Node){
		"reset": func(k, v *yaml.Node) { b.Reset, _ = p.Str(v, "backend.reset") },
		"start": func(k, v *yaml.Node) {
			if s, ok := p.Str(v, "backend.start"); ok {
				if !strings.Contains(s, "{addr}") {
					p.Errorf(v, "backend.start must say where to listen with {addr} (a free loopback host:port tailor picks), as in `shop-api --addr {addr}`")
				}
				b.Start = s
			}
		},
	})
	if b.Reset != "" && b.Start != "" {
		p.Errorf(n, "backend has both `reset` and `start`: give one (start runs a fresh backend per trial, reset puts --backend's data back)")
	}
}

func (p *parser) task(n *yaml.Node, index int) *Task {
	t := &Task{Pos: p.Pos(n)}
	where := fmt.Sprintf("task %d", index)
	if name := scenario.MappingValue(n, "name"); name != nil && name.Kind == yaml.ScalarNode && name.Value != "" {
		where = fmt.Sprintf("task %q", name.Value)
	}
	ok := p.Fields(n, where, map[string]func(k, v *yaml.Node){
		"name": func(k, v *yaml.Node) {
			if x, ok := p.Str(v, "name"); ok {
				if strings.TrimSpace(x) == "" {
					p.Errorf(v, "a task's name must not be empty")
				}
				t.Name = x
			}
		},
		"ask": func(k, v *yaml.Node) {
			if x, ok := p.Str(v, "ask"); ok {
				if strings.TrimSpace(x) == "" {
					p.Errorf(v, "ask (the first user message) must not be empty")
				}
				t.Ask = x
			}
		},
		"persona": func(k, v *yaml.Node) { t.Persona, _ = p.Str(v, "persona") },
		"replies": func(k, v *yaml.Node) {
			for i, e := range p.Items(v, "replies") {
				if r := p.reply(e, fmt.Sprintf("reply %d of %s", i+1, where)); r != nil {
					t.Replies = append(t.Replies, r)
				}
			}
		},
		"approvals": func(k, v *yaml.Node) {
			for i, e := range p.Items(v, "approvals") {
				if a := p.approval(e, fmt.Sprintf("approval %d of %s", i+1, where)); a != nil {
					t.Approvals = append(t.Approvals, a)
				}
			}
		},
		"max_turns": func(k, v *yaml.Node) { t.MaxTurns = p.positive(v, "max_turns") },
		"skip": func(k, v *yaml.Node) {
			if v.Kind == yaml.ScalarNode {
				if s, ok := p.Str(v, "skip"); ok {
					t.Skip = []string{s}
				}
				return
			}
			for _, e := range p.Items(v, "skip") {
				if s, ok := p.Str(e, "skip entries"); ok {
					t.Skip = append(t.Skip, s)
				}
			}
		},
		"success": func(k, v *yaml.Node) { p.success(v, where, &t.Success) },
	})
	if !ok {
		return nil
	}
	if scenario.MappingValue(n, "name") == nil {
		p.Errorf(n, "%s has no `name`", where)
	}
	if scenario.MappingValue(n, "ask") == nil {
		p.Errorf(n, "%s has no `ask` (what the person asks: the first user message)", where)
	}
	if scenario.MappingValue(n, "success") == nil {
		p.Errorf(n, "%s has no `success` (the requests the backend must receive, or a condition on the answer)", where)
	}
	return t
}

// pattern compiles a regular expression of the file.
func (p *parser) pattern(n *yaml.Node, what string) *regexp.Regexp {
	s, ok := p.Str(n, what)
	if !ok {
		return nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		p.Errorf(n, "%q is not a regular expression Go accepts: %s", s, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		return nil
	}
	return re
}

func (p *parser) reply(n *yaml.Node, where string) *Reply {
	r := &Reply{Pos: p.Pos(n)}
	ok := p.Fields(n, where, map[string]func(k, v *yaml.Node){
		"when":  func(k, v *yaml.Node) { r.When = p.pattern(v, "when") },
		"say":   func(k, v *yaml.Node) { r.Say, _ = p.Str(v, "say") },
		"times": func(k, v *yaml.Node) { r.Times = p.positive(v, "times") },
	})
	if !ok {
		return nil
	}
	if scenario.MappingValue(n, "when") == nil {
		p.Errorf(n, "%s has no `when` (a regular expression on the model's message)", where)
	}
	if scenario.MappingValue(n, "say") == nil {
		p.Errorf(n, "%s has no `say` (what the person answers)", where)
	}
	if r.When == nil {
		return nil
	}
	return r
}

func (p *parser) approval(n *yaml.Node, where string) *ApprovalRule {
	a := &ApprovalRule{Pos: p.Pos(n)}
	ok := p.Fields(n, where, map[string]func(k, v *yaml.Node){
		"answer":   func(k, v *yaml.Node) { a.Answer = scenario.ParseAnswer(&p.Walker, v, "answer") },
		"question": func(k, v *yaml.Node) { a.Question = scenario.ParseText(p.Walker, v, "question", where) },
		"times":    func(k, v *yaml.Node) { a.Times = p.positive(v, "times") },
	})
	if !ok {
		return nil
	}
	if scenario.MappingValue(n, "answer") == nil {
		p.Errorf(n, "%s has no `answer` (accept, decline or cancel)", where)
	}
	return a
}

func (p *parser) success(n *yaml.Node, where string, s *Success) {
	ok := p.Fields(n, "success of "+where, map[string]func(k, v *yaml.Node){
		"requests": func(k, v *yaml.Node) {
			for i, e := range p.Items(v, "requests") {
				if r := p.requestCount(e, fmt.Sprintf("request %d of the success of %s", i+1, where)); r != nil {
					s.Requests = append(s.Requests, r)
				}
			}
		},
		"answer": func(k, v *yaml.Node) { s.Answer = scenario.ParseText(p.Walker, v, "answer", where) },
	})
	if ok && scenario.MappingValue(n, "requests") == nil && scenario.MappingValue(n, "answer") == nil {
		p.Errorf(n, "the success of %s is empty: give requests (what the backend must receive) or answer", where)
	}
}

// requestCount reads a request matcher of `tailor test` with one more key,
// count.
func (p *parser) requestCount(n *yaml.Node, where string) *RequestCount {
	n = yamlwalk.Resolve(n)
	rc := &RequestCount{Pos: p.Pos(n)}
	if n.Kind != yaml.MappingNode {
		p.Errorf(n, "%s must be a mapping (method, path, query, headers, body, count), not %s", where, diag.Describe(n))
		return nil
	}
	rest := *n
	rest.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "count" {
			if c, ok := p.Count(n.Content[i+1], "count"); ok {
				rc.Count, rc.HasCount = c, true
			}
			continue
		}
		rest.Content = append(rest.Content, n.Content[i], n.Content[i+1])
	}
	if p.Keys != nil {
		p.Keys["count"] = true
	}
	rc.Match = scenario.ParseRequest(p.Walker, &rest, where)
	if rc.Match == nil {
		return nil
	}
	return rc
}
