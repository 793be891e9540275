package scenario

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/theory/jsonpath"
	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/yamlwalk"
)

// Parse reads a scenario file. On failure it returns a *diag.Errors listing
// every problem of the file, each as file:line:col.
func Parse(path string, data []byte) (*File, error) { return parse(path, data, nil) }

// parse is Parse that records, in keys, every key the parser knows at the
// places the file reaches (for the test that compares them with the JSON
// Schema).
func parse(path string, data []byte, keys map[string]bool) (*File, error) {
	p := &parser{Walker: yamlwalk.New(path)}
	p.Keys = keys
	f := &File{Path: path}
	err := ParseDocument(&p.Walker, data, Document{
		Kind: "scenario file", Item: "scenario", VersionKey: "tailor-test", Version: Version, Env: &f.Env,
		Entry: func(n *yaml.Node, index int) (string, bool) {
			s := p.scenario(n, index)
			if s == nil {
				return "", false
			}
			f.Scenarios = append(f.Scenarios, s)
			return s.Name, true
		},
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// parser walks the scenario file's YAML node tree (yamlwalk: keys and
// types checked as it goes, every problem collected).
type parser struct {
	yamlwalk.Walker
	// saved are the names the calls so far of the current scenario save,
	// which later calls may refer to.
	saved []string
}

// text reads a string that may hold references to saved values.
func (p *parser) text(n *yaml.Node, what string) (Str, bool) {
	s, ok := p.Str(n, what)
	if !ok {
		return Str{}, false
	}
	p.refs(n, s)
	return Str{S: s, Pos: p.Pos(n)}, true
}

func (p *parser) texts(n *yaml.Node, what string) []Str {
	if n.Kind == yaml.ScalarNode {
		if s, ok := p.text(n, what); ok {
			return []Str{s}
		}
		return nil
	}
	var out []Str
	for _, e := range p.Items(n, what) {
		if s, ok := p.text(e, what+" entries"); ok {
			out = append(out, s)
		}
	}
	return out
}

// value reads any YAML value as JSON, checking the references in its
// strings.
func (p *parser) value(n *yaml.Node) (any, bool) {
	v, ok := p.Value(n)
	if ok {
		p.walkStrings(n)
	}
	return v, ok
}

func (p *parser) walkStrings(n *yaml.Node) {
	n = yamlwalk.Resolve(n)
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!str" {
			p.refs(n, n.Value)
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			p.walkStrings(n.Content[i])
		}
	case yaml.SequenceNode:
		for _, e := range n.Content {
			p.walkStrings(e)
		}
	}
}

var (
	refPattern = regexp.MustCompile(`\{\{(.*?)\}\}`)
	refName    = regexp.MustCompile(`^\s*\.([A-Za-z_][A-Za-z0-9_]*)\s*$`)
	saveName   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// refs checks the references ({{.name}}) in s: each must name a value an
// earlier call of the scenario saves.
func (p *parser) refs(n *yaml.Node, s string) {
	if !strings.Contains(s, "{{") {
		return
	}
	for _, m := range refPattern.FindAllStringSubmatch(s, -1) {
		name := refName.FindStringSubmatch(m[1])
		if name == nil {
			p.Errorf(n, "`%s` is not a reference: write {{.name}}, name being a value an earlier call saves", m[0])
			continue
		}
		if !slices.Contains(p.saved, name[1]) {
			hint := "; no earlier call of this scenario saves a value (save: {" + name[1] + ": $.path})"
			if len(p.saved) > 0 {
				hint = diag.Suggest(name[1], p.saved)
				if hint == "" {
					hint = "; the saved values are: " + strings.Join(p.saved, ", ")
				}
			}
			p.Errorf(n, "`%s` refers to a value no earlier call saves%s", m[0], hint)
		}
	}
	if rest := refPattern.ReplaceAllString(s, ""); strings.Contains(rest, "{{") {
		p.Errorf(n, "an unclosed `{{` in %q: a reference is {{.name}}", s)
	}
}

func (p *parser) env(n *yaml.Node, where string) []EnvVar { return ParseEnv(&p.Walker, n, where) }

func (p *parser) scenario(n *yaml.Node, index int) *Scenario {
	s := &Scenario{Pos: p.Pos(n)}
	where := fmt.Sprintf("scenario %d", index)
	if name := MappingValue(n, "name"); name != nil && name.Kind == yaml.ScalarNode && name.Value != "" {
		where = fmt.Sprintf("scenario %q", name.Value)
	}
	hasCalls := false
	ok := p.Fields(n, where, map[string]func(k, v *yaml.Node){
		"name": func(k, v *yaml.Node) {
			if x, ok := p.Str(v, "name"); ok {
				if strings.TrimSpace(x) == "" {
					p.Errorf(v, "a scenario's name must not be empty")
				}
				s.Name = x
			}
		},
		"description": func(k, v *yaml.Node) { s.Description, _ = p.Str(v, "description") },
		"skip": func(k, v *yaml.Node) {
			for _, t := range p.texts(v, "skip") {
				s.Skip = append(s.Skip, t.S)
			}
		},
		"env": func(k, v *yaml.Node) { s.Env = p.env(v, where+" env") },
		"calls": func(k, v *yaml.Node) {
			hasCalls = true
			s.Calls = p.calls(v, where, "")
		},
		"variants": func(k, v *yaml.Node) {
			s.Variants = map[string][]*Call{}
			p.Entries(v, where+" variants", func(k, v *yaml.Node) {
				p.Fields(v, fmt.Sprintf("variant %q of %s", k.Value, where), map[string]func(k, v *yaml.Node){
					"calls": func(_, v *yaml.Node) { s.Variants[k.Value] = p.calls(v, where, k.Value) },
				})
				if _, ok := s.Variants[k.Value]; !ok && v.Kind == yaml.MappingNode {
					p.Errorf(v, "variant %q of %s has no `calls`", k.Value, where)
				}
			})
		},
	})
	if !ok {
		return nil
	}
	if s.Name == "" && MappingValue(n, "name") == nil {
		p.Errorf(n, "%s has no `name`", where)
	}
	if !hasCalls {
		p.Errorf(n, "%s has no `calls`", where)
	}
	return s
}

// calls reads a list of calls; each list saves its own values.
func (p *parser) calls(n *yaml.Node, where, variant string) []*Call {
	p.saved = nil
	if variant != "" {
		where = fmt.Sprintf("variant %q of %s", variant, where)
	}
	items := p.Items(n, "calls")
	if n.Kind == yaml.SequenceNode && len(items) == 0 {
		p.Errorf(n, "%s has no calls", where)
	}
	var out []*Call
	for i, e := range items {
		if c := p.call(e, i+1, where); c != nil {
			out = append(out, c)
		}
	}
	return out
}

func (p *parser) call(n *yaml.Node, index int, of string) *Call {
	c := &Call{Pos: p.Pos(n)}
	where := fmt.Sprintf("call %d of %s", index, of)
	if tool := MappingValue(n, "call"); tool != nil && tool.Kind == yaml.ScalarNode && tool.Value != "" {
		where = fmt.Sprintf("call %d (`%s`) of %s", index, tool.Value, of)
	}
	var saves *yaml.Node
	ok := p.Fields(n, where, map[string]func(k, v *yaml.Node){
		"call": func(k, v *yaml.Node) {
			if x, ok := p.Str(v, "call (the tool's name)"); ok {
				c.Tool, c.ToolPos = x, p.Pos(v)
			}
		},
		"args": func(k, v *yaml.Node) {
			if v.Kind != yaml.MappingNode {
				p.Errorf(v, "args must be a mapping of argument names to values, not %s", diag.Describe(v))
				return
			}
			c.Args, _ = p.value(v)
		},
		"approval": func(k, v *yaml.Node) { c.Approval = p.approval(v, where) },
		"expect":   func(k, v *yaml.Node) { p.expect(v, where, &c.Expect) },
		// Saved values are for later calls: read after the rest.
		"save": func(k, v *yaml.Node) { saves = v },
	})
	if !ok {
		return nil
	}
	if c.Tool == "" && MappingValue(n, "call") == nil {
		p.Errorf(n, "%s has no `call` (the name of the tool to call)", where)
	}
	if saves != nil {
		c.Save = p.saves(saves, where)
	}
	return c
}

func (p *parser) approval(n *yaml.Node, where string) *Approval {
	a := &Approval{Pos: p.Pos(n)}
	ok := p.Fields(n, "the approval of "+where, map[string]func(k, v *yaml.Node){
		"answer":   func(k, v *yaml.Node) { a.Answer = ParseAnswer(&p.Walker, v, "approval.answer") },
		"question": func(k, v *yaml.Node) { a.Question = p.textCond(v, "approval.question", where) },
	})
	if ok && a.Answer == "" && MappingValue(n, "answer") == nil {
		p.Errorf(n, "the approval of %s has no `answer` (accept, decline or cancel)", where)
	}
	return a
}

func (p *parser) expect(n *yaml.Node, where string, e *Expect) {
	p.Fields(n, "expect of "+where, map[string]func(k, v *yaml.Node){
		"is_error": func(k, v *yaml.Node) {
			if b, ok := p.Bool(v, "is_error"); ok {
				e.IsError, e.IsErrorPos = b, p.Pos(k)
			}
		},
		"text": func(k, v *yaml.Node) { e.Text = p.textCond(v, "expect.text", where) },
		"structured": func(k, v *yaml.Node) {
			e.Structured = p.pathConds(v, "structured", "structuredContent")
		},
		"requests": func(k, v *yaml.Node) {
			e.HasRequests, e.RequestsPos = true, p.Pos(k)
			for i, r := range p.Items(v, "requests") {
				if m := p.request(r, fmt.Sprintf("request %d", i+1)); m != nil {
					e.Requests = append(e.Requests, m)
				}
			}
		},
	})
}

func (p *parser) textCond(n *yaml.Node, what, where string) *TextCond {
	t := &TextCond{Pos: p.Pos(n)}
	if n.Kind == yaml.ScalarNode {
		p.Errorf(n, "%s must be a mapping of contains, not_contains, matches or equals, not %s", what, diag.Describe(n))
		return nil
	}
	ok := p.Fields(n, what+" of "+where, map[string]func(k, v *yaml.Node){
		"contains":     func(k, v *yaml.Node) { t.Contains = p.texts(v, what+".contains") },
		"not_contains": func(k, v *yaml.Node) { t.NotContains = p.texts(v, what+".not_contains") },
		"matches": func(k, v *yaml.Node) {
			for _, s := range p.texts(v, what+".matches") {
				if p.pattern(v, s) {
					t.Matches = append(t.Matches, s)
				}
			}
		},
		"equals": func(k, v *yaml.Node) {
			if s, ok := p.text(v, what+".equals"); ok {
				t.Equals = &s
			}
		},
	})
	if !ok {
		return nil
	}
	return t
}

// pattern checks that a regular expression compiles (references stand in
// as plain text).
func (p *parser) pattern(n *yaml.Node, s Str) bool {
	if _, err := regexp.Compile(refPattern.ReplaceAllString(s.S, "x")); err != nil {
		p.Errorf(n, "%q is not a regular expression Go accepts: %s", s.S, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		return false
	}
	return true
}

var condKeys = []string{"equals", "contains", "matches", "exists"}

// cond reads a condition on a value: a plain value means equals; a mapping
// holds equals, contains, matches or exists.
func (p *parser) cond(n *yaml.Node, what string) (Cond, bool) {
	c := Cond{Pos: p.Pos(n)}
	if n.Kind != yaml.MappingNode {
		v, ok := p.value(n)
		c.Equals, c.HasEquals = v, ok
		return c, ok
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !slices.Contains(condKeys, n.Content[i].Value) {
			p.Errorf(n.Content[i], "unknown key `%s` in the condition on %s%s (to compare with a mapping, write {equals: {...}})",
				n.Content[i].Value, what, diag.Suggest(n.Content[i].Value, condKeys))
			return c, false
		}
	}
	ok := p.Fields(n, "the condition on "+what, map[string]func(k, v *yaml.Node){
		"equals": func(k, v *yaml.Node) {
			c.Equals, c.HasEquals = p.value(v)
		},
		"contains": func(k, v *yaml.Node) {
			c.Contains, c.HasContains = p.value(v)
		},
		"matches": func(k, v *yaml.Node) {
			if s, ok := p.text(v, what+".matches"); ok && p.pattern(v, s) {
				c.Matches = &s
			}
		},
		"exists": func(k, v *yaml.Node) {
			if b, ok := p.Bool(v, "exists"); ok {
				c.Exists = &b
			}
		},
	})
	if ok && !c.HasEquals && !c.HasContains && c.Matches == nil && c.Exists == nil {
		p.Errorf(n, "the condition on %s is empty: give equals, contains, matches or exists", what)
		return c, false
	}
	return c, ok
}

// pathConds reads a mapping of JSONPath expressions to conditions.
func (p *parser) pathConds(n *yaml.Node, what, of string) []*PathCond {
	var out []*PathCond
	p.Entries(n, what, func(k, v *yaml.Node) {
		if !strings.HasPrefix(k.Value, "$") {
			p.Errorf(k, "the keys of %s are JSONPath expressions into the %s, starting with $: write $.%s", what, of, k.Value)
			return
		}
		jp, err := jsonpath.Parse(k.Value)
		if err != nil {
			p.Errorf(k, "%q is not a valid JSONPath expression (RFC 9535): %s", k.Value, strings.TrimPrefix(err.Error(), "jsonpath: "))
			return
		}
		if c, ok := p.cond(v, k.Value); ok {
			out = append(out, &PathCond{Path: k.Value, Compiled: jp, Cond: c})
		}
	})
	return out
}

func (p *parser) namedConds(n *yaml.Node, what string) []NamedCond {
	var out []NamedCond
	p.Entries(n, what, func(k, v *yaml.Node) {
		if c, ok := p.cond(v, what+" "+k.Value); ok {
			out = append(out, NamedCond{Name: k.Value, Cond: c})
		}
	})
	return out
}

var methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"}

func (p *parser) request(n *yaml.Node, where string) *RequestMatch {
	m := &RequestMatch{Pos: p.Pos(n)}
	ok := p.Fields(n, where, map[string]func(k, v *yaml.Node){
		"method": func(k, v *yaml.Node) {
			if x, ok := p.Str(v, "method"); ok {
				if !slices.Contains(methods, strings.ToUpper(x)) {
					p.Errorf(v, "method %q is not an HTTP method%s", x, diag.DidYouMean(strings.ToUpper(x), methods))
					return
				}
				m.Method = strings.ToUpper(x)
			}
		},
		"path": func(k, v *yaml.Node) {
			if s, ok := p.text(v, "path"); ok {
				if !strings.HasPrefix(s.S, "/") {
					p.Errorf(v, "path %q must start with / (the path below the backend's base URL)", s.S)
				}
				m.Path = &s
			}
		},
		"query":   func(k, v *yaml.Node) { m.Query = p.namedConds(v, "query") },
		"headers": func(k, v *yaml.Node) { m.Headers = p.namedConds(v, "header") },
		"body":    func(k, v *yaml.Node) { m.Body = p.pathConds(v, "body", "request body") },
	})
	if !ok {
		return nil
	}
	return m
}

func (p *parser) saves(n *yaml.Node, where string) []*Save {
	var out []*Save
	p.Entries(n, "save of "+where, func(k, v *yaml.Node) {
		s := &Save{Name: k.Value, Pos: p.Pos(k)}
		if !saveName.MatchString(k.Value) {
			p.Errorf(k, "%q cannot be a saved value's name: use letters, digits and _ (it is read as {{.name}})", k.Value)
			return
		}
		switch {
		case v.Kind == yaml.ScalarNode:
			x, ok := p.Str(v, "save."+k.Value)
			if !ok {
				return
			}
			if !strings.HasPrefix(x, "$") {
				p.Errorf(v, "save.%s must be a JSONPath expression into structuredContent (starting with $) or {match: REGEXP} on the text", k.Value)
				return
			}
			jp, err := jsonpath.Parse(x)
			if err != nil {
				p.Errorf(v, "%q is not a valid JSONPath expression (RFC 9535): %s", x, strings.TrimPrefix(err.Error(), "jsonpath: "))
				return
			}
			s.Path, s.Src = jp, x
		default:
			p.Fields(v, "save."+k.Value, map[string]func(k, v *yaml.Node){
				"match": func(_, v *yaml.Node) {
					x, ok := p.Str(v, "save."+s.Name+".match")
					if !ok {
						return
					}
					re, err := regexp.Compile(x)
					if err != nil {
						p.Errorf(v, "%q is not a regular expression Go accepts: %s", x, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
						return
					}
					s.Match, s.Src = re, x
				},
			})
			if s.Match == nil && MappingValue(v, "match") == nil && v.Kind == yaml.MappingNode {
				p.Errorf(v, "save.%s has no `match` (a regular expression on the result's text)", k.Value)
			}
		}
		if s.Path != nil || s.Match != nil {
			out = append(out, s)
		}
		if !slices.Contains(p.saved, s.Name) {
			p.saved = append(p.saved, s.Name)
		}
	})
	return out
}
