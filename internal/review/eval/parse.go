package eval

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
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
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, diag.YAML(path, err)
	}
	p := &parser{Walker: yamlwalk.New(path)}
	p.Keys = keys
	f := &File{Path: path}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		p.Errorf(&doc, "the task file is empty: it needs `tailor-eval: %d` and `tasks:`", Version)
		return nil, p.Diags.Err()
	}
	p.file(doc.Content[0], f)
	if err := p.Diags.Err(); err != nil {
		return nil, err
	}
	return f, nil
}

type parser struct{ yamlwalk.Walker }

func (p *parser) file(n *yaml.Node, f *File) {
	hasVersion, hasTasks := false, false
	ok := p.Fields(n, "the task file", map[string]func(k, v *yaml.Node){
		"tailor-eval": func(k, v *yaml.Node) {
			hasVersion = true
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
				p.Errorf(v, "`tailor-eval` (the format version) must be %d, not %s", Version, diag.Describe(v))
			} else if i, _ := strconv.Atoi(v.Value); i != Version {
				p.Errorf(v, "task format version %d is not supported: this tailor reads version %d", i, Version)
			}
		},
		"env":       func(k, v *yaml.Node) { f.Env = p.env(v, "env") },
		"system":    func(k, v *yaml.Node) { f.System, _ = p.Str(v, "system") },
		"trials":    func(k, v *yaml.Node) { f.Trials = p.positive(v, "trials") },
		"max_turns": func(k, v *yaml.Node) { f.MaxTurns = p.positive(v, "max_turns") },
		"backend":   func(k, v *yaml.Node) { p.backend(v, &f.Backend) },
		"tasks": func(k, v *yaml.Node) {
			hasTasks = true
			names := map[string]*yaml.Node{}
			items := p.Items(v, "tasks")
			if v.Kind == yaml.SequenceNode && len(items) == 0 {
				p.Errorf(v, "tasks is empty: list at least one task")
			}
			for i, e := range items {
				t := p.task(e, i+1)
				if t == nil {
					continue
				}
				if first := names[t.Name]; first != nil {
					p.Errorf(e, "two tasks are named %q (the first at line %d): names must be unique", t.Name, first.Line)
				}
				names[t.Name] = e
				f.Tasks = append(f.Tasks, t)
			}
		},
	})
	if !ok {
		return
	}
	if !hasVersion {
		p.Errorf(n, "missing `tailor-eval: %d` (the task format version) at the top of the file", Version)
	}
	if !hasTasks {
		p.Errorf(n, "missing `tasks:` (the list of tasks)")
	}
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (p *parser) env(n *yaml.Node, where string) []scenario.EnvVar {
	var out []scenario.EnvVar
	p.Entries(n, where, func(k, v *yaml.Node) {
		if !envName.MatchString(k.Value) {
			p.Errorf(k, "%q is not an environment variable name (letters, digits and _, not starting with a digit)", k.Value)
			return
		}
		if s, ok := p.Str(v, where+"."+k.Value); ok {
			out = append(out, scenario.EnvVar{Name: k.Value, Value: s})
		}
	})
	return out
}

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

// value returns the value of key in mapping n, or nil.
func value(n *yaml.Node, key string) *yaml.Node {
	n = yamlwalk.Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return yamlwalk.Resolve(n.Content[i+1])
		}
	}
	return nil
}

func (p *parser) task(n *yaml.Node, index int) *Task {
	t := &Task{Pos: p.Pos(n)}
	where := fmt.Sprintf("task %d", index)
	if name := value(n, "name"); name != nil && name.Kind == yaml.ScalarNode && name.Value != "" {
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
	if value(n, "name") == nil {
		p.Errorf(n, "%s has no `name`", where)
	}
	if value(n, "ask") == nil {
		p.Errorf(n, "%s has no `ask` (what the person asks: the first user message)", where)
	}
	if value(n, "success") == nil {
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
	if value(n, "when") == nil {
		p.Errorf(n, "%s has no `when` (a regular expression on the model's message)", where)
	}
	if value(n, "say") == nil {
		p.Errorf(n, "%s has no `say` (what the person answers)", where)
	}
	if r.When == nil {
		return nil
	}
	return r
}

var answers = []string{"accept", "decline", "cancel"}

func (p *parser) approval(n *yaml.Node, where string) *ApprovalRule {
	a := &ApprovalRule{Pos: p.Pos(n)}
	ok := p.Fields(n, where, map[string]func(k, v *yaml.Node){
		"answer": func(k, v *yaml.Node) {
			x, ok := p.Str(v, "answer")
			if !ok {
				return
			}
			if !slices.Contains(answers, x) {
				p.Errorf(v, "answer %q is not one of accept, decline, cancel%s", x, diag.DidYouMean(x, answers))
				return
			}
			a.Answer = x
		},
		"question": func(k, v *yaml.Node) { a.Question = scenario.ParseText(p.Walker, v, "question", where) },
		"times":    func(k, v *yaml.Node) { a.Times = p.positive(v, "times") },
	})
	if !ok {
		return nil
	}
	if value(n, "answer") == nil {
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
	if ok && value(n, "requests") == nil && value(n, "answer") == nil {
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
