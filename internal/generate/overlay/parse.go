package overlay

import (
	"fmt"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/mcpkit"
)

func (d *decoder) overlay(n *yaml.Node, o *Overlay) {
	hasVersion := false
	d.fields(n, "the overlay", map[string]func(k, v *yaml.Node){
		"tailor": func(k, v *yaml.Node) {
			hasVersion = true
			if i := d.integer(v, "`tailor` (the format version)"); i != nil {
				o.Version = *i
				if *i != Version {
					d.errorf(v, "overlay format version %d is not supported: this tailor reads version %d", *i, Version)
				}
			}
		},
		"server":  func(k, v *yaml.Node) { d.server(v, &o.Server) },
		"include": func(k, v *yaml.Node) { d.include(v, &o.Include) },
		"exclude": func(k, v *yaml.Node) { o.Exclude = d.selectors(v, "exclude") },
		"tools": func(k, v *yaml.Node) {
			d.entries(v, "tools", func(k, v *yaml.Node) {
				if t := d.tool(k, v); t != nil {
					o.Tools = append(o.Tools, t)
				}
			})
		},
		"actions":  func(k, v *yaml.Node) { o.Actions = d.actions(v) },
		"lint":     func(k, v *yaml.Node) { o.Lint = d.toolSetLint(v) },
		"messages": func(k, v *yaml.Node) { o.Messages = d.messages(v, "messages") },
	})
	if !hasVersion && resolveAlias(n).Kind == yaml.MappingNode {
		d.errorf(n, "missing `tailor: %d` (the overlay format version) at the top of the file", Version)
	}
}

func (d *decoder) server(n *yaml.Node, s *Server) {
	d.fields(n, "server", map[string]func(k, v *yaml.Node){
		"name": func(k, v *yaml.Node) {
			if x, ok := d.str(v, "server.name"); ok {
				if !toolName.MatchString(x) {
					d.errorf(v, "server.name %q must match ^[a-zA-Z0-9_-]{1,64}$", x)
				}
				s.Name = x
			}
		},
		"title": func(k, v *yaml.Node) {
			if x, ok := d.str(v, "server.title"); ok {
				s.Title = x
			}
		},
		"instructions": func(k, v *yaml.Node) {
			if x, ok := d.str(v, "server.instructions"); ok {
				s.Instructions = strings.TrimSpace(x)
			}
		},
		"context": func(k, v *yaml.Node) {
			d.entries(v, "server.context", func(k, v *yaml.Node) {
				c := &ContextValue{Name: k.Value, Pos: d.pos(k)}
				if !toolName.MatchString(c.Name) {
					d.errorf(k, "context name %q must match ^[a-zA-Z0-9_-]{1,64}$", c.Name)
				}
				d.fields(v, "context value `"+c.Name+"`", map[string]func(k, v *yaml.Node){
					"header": func(k, v *yaml.Node) { c.Header, _ = d.str(v, "header") },
					"claim":  func(k, v *yaml.Node) { c.Claim, _ = d.str(v, "claim") },
					"env":    func(k, v *yaml.Node) { c.Env, _ = d.str(v, "env") },
				})
				if c.Header == "" && c.Claim == "" && c.Env == "" {
					d.errorf(k, "context value `%s` has no source: give at least one of header, claim, env", c.Name)
				}
				s.Context = append(s.Context, c)
			})
		},
	})
}

func (d *decoder) include(n *yaml.Node, inc *Include) {
	inc.Pos = d.pos(n)
	if n.Kind == yaml.ScalarNode {
		switch n.Value {
		case "all", "listed":
			inc.Mode = n.Value
		default:
			d.errorf(n, "include must be `all`, `listed`, or a list of selectors, not %s%s", describe(n), diag.DidYouMean(n.Value, []string{"all", "listed"}))
		}
		return
	}
	inc.Mode = "selected"
	inc.Selectors = d.selectors(n, "include")
}

func (d *decoder) selectors(n *yaml.Node, where string) []*Selector {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "%s must be a list of selectors such as `- tag: orders`, not %s", where, kindName(n))
		return nil
	}
	var out []*Selector
	for _, e := range n.Content {
		s := &Selector{Pos: d.pos(e)}
		d.fields(e, where+" selector", map[string]func(k, v *yaml.Node){
			"operation": func(k, v *yaml.Node) { s.Operation, _ = d.str(v, "operation") },
			"tag":       func(k, v *yaml.Node) { s.Tag, _ = d.str(v, "tag") },
			"method": func(k, v *yaml.Node) {
				if m, ok := d.str(v, "method"); ok {
					s.Method = strings.ToUpper(m)
				}
			},
			"path": func(k, v *yaml.Node) { s.Path, _ = d.str(v, "path") },
		})
		if s.Operation == "" && s.Tag == "" && s.Method == "" && s.Path == "" && resolveAlias(e).Kind == yaml.MappingNode {
			d.errorf(e, "empty selector: give operation, tag, method or path")
		}
		out = append(out, s)
	}
	return out
}

func (d *decoder) tool(k, n *yaml.Node) *Tool {
	t := &Tool{Name: k.Value, Pos: d.pos(k)}
	if !toolName.MatchString(t.Name) {
		d.errorf(k, "tool name %q is not valid for every MCP client: %s", t.Name, nameProblem(t.Name))
	}
	d.fields(n, "tool `"+t.Name+"`", map[string]func(k, v *yaml.Node){
		"operation": func(k, v *yaml.Node) {
			t.Operation, _ = d.str(v, "operation")
			t.OperationPos = d.pos(v)
		},
		"hidden": func(k, v *yaml.Node) { t.Hidden, _ = d.boolean(v, "hidden") },
		"title":  func(k, v *yaml.Node) { t.Title = d.strPtr(v, "title") },
		"description": func(k, v *yaml.Node) {
			if p := d.strPtr(v, "description"); p != nil {
				s := strings.TrimSpace(*p)
				t.Description = &s
			}
		},
		"annotations": func(k, v *yaml.Node) {
			a := &t.Annotations
			d.fields(v, "annotations", map[string]func(k, v *yaml.Node){
				"read_only":   func(k, v *yaml.Node) { a.ReadOnly = d.boolPtr(v, "read_only") },
				"destructive": func(k, v *yaml.Node) { a.Destructive = d.boolPtr(v, "destructive") },
				"idempotent":  func(k, v *yaml.Node) { a.Idempotent = d.boolPtr(v, "idempotent") },
				"open_world":  func(k, v *yaml.Node) { a.OpenWorld = d.boolPtr(v, "open_world") },
			})
		},
		"params": func(k, v *yaml.Node) {
			d.entries(v, "params", func(k, v *yaml.Node) { t.Params = append(t.Params, d.param(t.Name, k, v)) })
		},
		"result": func(k, v *yaml.Node) { t.Result = d.result(v) },
		"errors": func(k, v *yaml.Node) { t.Errors = d.errorRules(v) },
		"quote": func(k, v *yaml.Node) {
			q := &Quote{TTLSeconds: 15 * 60, Pos: d.pos(v)}
			d.fields(v, "quote", map[string]func(k, v *yaml.Node){
				"ttl": func(k, v *yaml.Node) {
					if s, ok := d.str(v, "ttl"); ok {
						dur, err := time.ParseDuration(s)
						if err != nil || dur < time.Second || dur > 24*time.Hour {
							d.errorf(v, "ttl must be a duration between 1s and 24h such as 15m, not %q", s)
							return
						}
						q.TTLSeconds = int(dur / time.Second)
					}
				},
			})
			t.Quote = q
		},
		"confirms": func(k, v *yaml.Node) {
			t.Confirms, _ = d.str(v, "confirms")
			t.ConfirmsPos = d.pos(v)
		},
		"approval": func(k, v *yaml.Node) {
			a := &Approval{WithoutElicitation: "refuse", Pos: d.pos(v)}
			hasMessage := false
			d.fields(v, "approval", map[string]func(k, v *yaml.Node){
				"message": func(k, v *yaml.Node) {
					if t, ok := d.text(v, "message"); ok {
						a.Message, hasMessage = t, true
					}
				},
				"without_elicitation": func(k, v *yaml.Node) {
					if s, ok := d.str(v, "without_elicitation"); ok {
						if s != "refuse" && s != "proceed" {
							d.errorf(v, "without_elicitation must be `refuse` or `proceed`, not %q%s", s, suggest(s, []string{"refuse", "proceed"}))
						}
						a.WithoutElicitation = s
					}
				},
			})
			if !hasMessage {
				d.errorf(v, "approval needs `message:`, the question the person is asked (a template, e.g. \"Refund NT${{money .quote.body.amount}}?\")")
			}
			t.Approval = a
		},
		"args": func(k, v *yaml.Node) {
			d.entries(v, "args", func(k, v *yaml.Node) {
				a := &Arg{Name: k.Value, Pos: d.pos(k)}
				if !argName.MatchString(a.Name) {
					d.errorf(k, "argument name %q is not valid: use 1 to 64 of a-z A-Z 0-9 _ . -", a.Name)
				}
				if val := d.value(v); val != nil {
					m, ok := val.V.(map[string]any)
					if !ok {
						d.errorf(v, "argument `%s` must be a JSON Schema such as {type: string, description: ...}", a.Name)
						return
					}
					if r, ok := m["required"]; ok {
						b, isBool := r.(bool)
						if !isBool {
							d.errorf(v, "argument `%s`: required must be true or false", a.Name)
						}
						a.Required = b
						delete(m, "required")
					}
					a.Schema = m
				}
				t.Args = append(t.Args, a)
			})
		},
		"steps":    func(k, v *yaml.Node) { t.Steps = d.steps(v) },
		"lint":     func(k, v *yaml.Node) { t.Lint = d.lint(v) },
		"messages": func(k, v *yaml.Node) { t.Messages = d.messages(v, "tool `"+t.Name+"` messages") },
	})
	if resolveAlias(n).Kind == yaml.MappingNode {
		switch {
		case t.Operation == "" && len(t.Steps) == 0:
			d.errorf(k, "tool `%s` needs `operation:` (an operationId, or \"METHOD /path\"), or `steps:` for a composed tool", t.Name)
		case t.Operation != "" && len(t.Steps) > 0:
			d.errorf(k, "tool `%s` has both `operation:` and `steps:`: a tool calls one operation, or is composed of steps", t.Name)
		case t.Confirms != "" && len(t.Steps) == 0:
			d.errorf(k, "tool `%s` confirms `%s` but has no `steps:` saying what carrying out a quote does", t.Name, t.Confirms)
		case t.Confirms != "" && len(t.Args) > 0:
			d.errorf(k, "tool `%s` confirms a quote, so its only argument is the quote id: remove `args:`", t.Name)
		case t.Approval != nil && t.Confirms == "":
			d.errorf(k, "tool `%s`: approval applies to confirm tools (`confirms:`)", t.Name)
		case t.Quote != nil && t.Operation == "":
			d.errorf(k, "tool `%s`: a quote tool calls one operation (the API's preview), not steps", t.Name)
		case len(t.Steps) > 0 && len(t.Params) > 0:
			d.errorf(k, "tool `%s` is composed: bind each step's parameters under the step's `args:`, and declare the tool's own under `args:`", t.Name)
		}
	}
	return t
}

// messages reads a map of message id → template; each id must be one of
// mcpkit's built-in messages. Whether the fields a template reads exist is
// checked by curate.
func (d *decoder) messages(n *yaml.Node, where string) []*Message {
	var ids []string
	for _, m := range mcpkit.Catalog() {
		ids = append(ids, m.ID)
	}
	var out []*Message
	d.entries(n, where, func(k, v *yaml.Node) {
		if _, known := mcpkit.LookupMessage(k.Value); !known {
			d.errorf(k, "there is no built-in message `%s`%s (`tailor messages` lists them)", k.Value, suggest(k.Value, ids))
		}
		if t, ok := d.text(v, "message `"+k.Value+"`"); ok {
			out = append(out, &Message{ID: k.Value, Text: t, Pos: d.pos(k)})
		}
	})
	return out
}

func (d *decoder) steps(n *yaml.Node) []*Step {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "steps must be a list of steps, each with name and operation, not %s", kindName(n))
		return nil
	}
	var out []*Step
	names := map[string]bool{}
	for _, e := range n.Content {
		st := &Step{Pos: d.pos(e)}
		d.fields(e, "step", map[string]func(k, v *yaml.Node){
			"name": func(k, v *yaml.Node) {
				if s, ok := d.str(v, "name"); ok {
					if !stepName.MatchString(s) {
						d.errorf(v, "step name %q must be a short identifier (letters, digits, _), since templates refer to it as .steps.%s", s, s)
					} else if names[s] {
						d.errorf(v, "two steps are named `%s`", s)
					}
					names[s] = true
					st.Name = s
				}
			},
			"operation": func(k, v *yaml.Node) {
				st.Operation, _ = d.str(v, "operation")
				st.OperationPos = d.pos(v)
			},
			"for_each": func(k, v *yaml.Node) {
				if t, ok := d.text(v, "for_each"); ok {
					st.ForEach = &t
				}
			},
			"idempotency_key": func(k, v *yaml.Node) { st.IdempotencyKey, _ = d.boolean(v, "idempotency_key") },
			"args": func(k, v *yaml.Node) {
				d.entries(v, "step args", func(k, v *yaml.Node) {
					a := &StepArg{Name: k.Value, Pos: d.pos(k)}
					a.Value = d.value(v)
					if a.Value != nil && v.Kind == yaml.ScalarNode && v.Tag == "!!str" {
						a.Value.Pos = d.pos(v)
					}
					st.Args = append(st.Args, a)
				})
			},
		})
		if resolveAlias(e).Kind == yaml.MappingNode {
			if st.Name == "" {
				d.errorf(e, "step needs `name:`, which templates use to refer to its result (.steps.<name>)")
			}
			if st.Operation == "" {
				d.errorf(e, "step needs `operation:` (an operationId, or \"METHOD /path\")")
			}
		}
		out = append(out, st)
	}
	return out
}

func (d *decoder) param(tool string, k, n *yaml.Node) *Param {
	p := &Param{Name: k.Value, Pos: d.pos(k)}
	where := "tool `" + tool + "`, parameter `" + p.Name + "`"
	d.fields(n, where, map[string]func(k, v *yaml.Node){
		"rename": func(k, v *yaml.Node) {
			if s := d.strPtr(v, "rename"); s != nil {
				if !argName.MatchString(*s) {
					d.errorf(v, "rename %q is not a valid argument name: use 1 to 64 of a-z A-Z 0-9 _ . -", *s)
				}
				p.Rename = s
			}
		},
		"description": func(k, v *yaml.Node) { p.Description = d.strPtr(v, "description") },
		"examples":    func(k, v *yaml.Node) { p.Examples = d.list(v, "examples") },
		"enum":        func(k, v *yaml.Node) { p.Enum = d.list(v, "enum") },
		"default":     func(k, v *yaml.Node) { p.Default = d.value(v) },
		"minimum":     func(k, v *yaml.Node) { p.Minimum = d.number(v, "minimum") },
		"maximum":     func(k, v *yaml.Node) { p.Maximum = d.number(v, "maximum") },
		"pattern":     func(k, v *yaml.Node) { p.Pattern = d.strPtr(v, "pattern") },
		"min_length":  func(k, v *yaml.Node) { p.MinLength = d.integer(v, "min_length") },
		"max_length":  func(k, v *yaml.Node) { p.MaxLength = d.integer(v, "max_length") },
		"value":       func(k, v *yaml.Node) { p.Value = d.value(v) },
		"from": func(k, v *yaml.Node) {
			p.FromPos = d.pos(v)
			if s, ok := d.str(v, "from"); ok {
				name, found := strings.CutPrefix(s, "context.")
				if !found || !toolName.MatchString(name) {
					hint := ""
					if !found && toolName.MatchString(s) {
						hint = fmt.Sprintf("; did you mean `context.%s`?", s)
					}
					d.errorf(v, "from must name a context value as `context.<name>`, not %q%s", s, hint)
					return
				}
				p.From = name
			}
		},
		"hidden":   func(k, v *yaml.Node) { p.Hidden, _ = d.boolean(v, "hidden") },
		"required": func(k, v *yaml.Node) { p.Required = d.boolPtr(v, "required") },
	})
	sources := 0
	for _, set := range []bool{p.Value != nil, p.From != "", p.Hidden} {
		if set {
			sources++
		}
	}
	if sources > 1 {
		d.errorf(k, "%s: value, from and hidden: true exclude each other (choose one)", where)
	}
	if sources == 1 && (p.Rename != nil || p.Description != nil || p.Default != nil || p.Enum != nil || p.Examples != nil ||
		p.Minimum != nil || p.Maximum != nil || p.Pattern != nil || p.MinLength != nil || p.MaxLength != nil || p.Required != nil) {
		d.errorf(k, "%s is hidden from the model (value, from or hidden), so rename, description, default and constraints have no effect: remove them", where)
	}
	return p
}

func (d *decoder) result(n *yaml.Node) *Result {
	r := &Result{Pos: d.pos(n)}
	d.fields(n, "result", map[string]func(k, v *yaml.Node){
		"keep": func(k, v *yaml.Node) { r.Keep = d.texts(v, "keep") },
		"drop": func(k, v *yaml.Node) { r.Drop = d.texts(v, "drop") },
		"text": func(k, v *yaml.Node) {
			if t, ok := d.text(v, "text"); ok {
				r.Text = &t
			}
		},
		"max_bytes": func(k, v *yaml.Node) {
			if i := d.integer(v, "max_bytes"); i != nil {
				if *i < 256 {
					d.errorf(v, "max_bytes must be at least 256")
				}
				r.MaxBytes = *i
			}
		},
	})
	if len(r.Keep) > 0 && len(r.Drop) > 0 {
		d.errorf(n, "result: use keep or drop, not both")
	}
	return r
}

func (d *decoder) errorRules(n *yaml.Node) []*ErrorRule {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "errors must be a list of rules such as `- when: {status: 404}` with `text:`, not %s", kindName(n))
		return nil
	}
	var out []*ErrorRule
	for _, e := range n.Content {
		r := &ErrorRule{Pos: d.pos(e)}
		hasText := false
		d.fields(e, "error rule", map[string]func(k, v *yaml.Node){
			"when": func(k, v *yaml.Node) {
				d.fields(v, "when", map[string]func(k, v *yaml.Node){
					"status": func(k, v *yaml.Node) { r.Status = d.statuses(v) },
					"body": func(k, v *yaml.Node) {
						if val := d.value(v); val != nil {
							m, ok := val.V.(map[string]any)
							if !ok {
								d.errorf(v, "when.body must map response fields to values, e.g. {code: already_fulfilled}")
							}
							r.Body = m
						}
					},
				})
			},
			"text": func(k, v *yaml.Node) {
				if t, ok := d.text(v, "text"); ok {
					hasText = true
					r.Text = t
				}
			},
		})
		if !hasText && resolveAlias(e).Kind == yaml.MappingNode {
			d.errorf(e, "error rule needs `text:`, the message the model reads (say what went wrong and what to do next)")
		}
		out = append(out, r)
	}
	return out
}

func (d *decoder) statuses(n *yaml.Node) []string {
	var nodes []*yaml.Node
	if n.Kind == yaml.SequenceNode {
		nodes = n.Content
	} else {
		nodes = []*yaml.Node{n}
	}
	var out []string
	for _, e := range nodes {
		s := strings.ToUpper(e.Value)
		if e.Kind != yaml.ScalarNode || !statusPattern.MatchString(s) {
			d.errorf(e, "status must be an HTTP status such as 404, or a class such as 4XX, not %s", describe(e))
			continue
		}
		out = append(out, s)
	}
	return out
}

func (d *decoder) actions(n *yaml.Node) []*Action {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "actions must be a list of OpenAPI Overlay actions (target, update/remove/copy), not %s", kindName(n))
		return nil
	}
	var out []*Action
	for _, e := range n.Content {
		a := &Action{Pos: d.pos(e)}
		d.fields(e, "action", map[string]func(k, v *yaml.Node){
			"target":      func(k, v *yaml.Node) { a.Target, _ = d.str(v, "target") },
			"description": func(k, v *yaml.Node) { a.Description, _ = d.str(v, "description") },
			"update": func(k, v *yaml.Node) {
				if val := d.value(v); val != nil {
					a.Update, a.HasUpdate = val.V, true
				}
			},
			"remove": func(k, v *yaml.Node) { a.Remove, _ = d.boolean(v, "remove") },
			"copy":   func(k, v *yaml.Node) { a.Copy, _ = d.str(v, "copy") },
		})
		switch {
		case a.Target == "":
			d.errorf(e, "action needs `target:`, a JSONPath such as $.paths['/orders'].get")
		case !a.HasUpdate && !a.Remove && a.Copy == "":
			d.errorf(e, "action needs one of update, remove or copy")
		case a.Remove && (a.HasUpdate || a.Copy != ""):
			d.errorf(e, "an action that removes cannot also update or copy")
		}
		out = append(out, a)
	}
	return out
}
