package overlay

import (
	"fmt"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/yamlwalk"
	"github.com/tailormcp/tailor/mcpkit"
)

func (d *decoder) overlay(n *yaml.Node, o *Overlay) {
	hasVersion := false
	d.Fields(n, "the overlay", map[string]func(k, v *yaml.Node){
		"tailor": func(k, v *yaml.Node) {
			hasVersion = true
			if i := d.integer(v, "`tailor` (the format version)"); i != nil {
				o.Version = *i
				if *i != Version {
					d.Errorf(v, "overlay format version %d is not supported: this tailor reads version %d", *i, Version)
				}
			}
		},
		"server":  func(k, v *yaml.Node) { d.server(v, &o.Server) },
		"include": func(k, v *yaml.Node) { d.include(v, &o.Include) },
		"exclude": func(k, v *yaml.Node) { o.Exclude = d.selectors(v, "exclude") },
		"tools": func(k, v *yaml.Node) {
			d.Entries(v, "tools", func(k, v *yaml.Node) {
				if t := d.tool(k, v); t != nil {
					o.Tools = append(o.Tools, t)
				}
			})
		},
		"actions":  func(k, v *yaml.Node) { o.Actions = d.actions(v) },
		"lint":     func(k, v *yaml.Node) { o.Lint = d.toolSetLint(v) },
		"messages": func(k, v *yaml.Node) { o.Messages = d.messages(v, "messages") },
		"toolsets": func(k, v *yaml.Node) { o.Toolsets = d.toolsets(v) },
	})
	if !hasVersion && yamlwalk.Resolve(n).Kind == yaml.MappingNode {
		d.Errorf(n, "missing `tailor: %d` (the overlay format version) at the top of the file", Version)
	}
}

func (d *decoder) toolsets(n *yaml.Node) []*Toolset {
	var out []*Toolset
	d.Entries(n, "toolsets", func(k, v *yaml.Node) {
		ts := &Toolset{Name: k.Value, Pos: d.Pos(k)}
		if !toolsetName.MatchString(k.Value) {
			d.Errorf(k, "toolset name %q must match %s (it is given in --toolsets, comma-separated)", k.Value, toolsetName)
		}
		where := "toolset `" + k.Value + "`"
		d.Fields(v, where, map[string]func(k, v *yaml.Node){
			"description": func(k, v *yaml.Node) {
				if x, ok := d.Str(v, where+" description"); ok {
					ts.Description = &x
				}
			},
			"default": func(k, v *yaml.Node) {
				if x, ok := d.Bool(v, where+" default"); ok {
					ts.Default = &x
				}
			},
			"tools": func(k, v *yaml.Node) {
				for _, item := range d.Items(v, where+" tools") {
					if x, ok := d.Str(item, where+" tool name"); ok {
						ts.Tools = append(ts.Tools, Named{Name: x, Pos: d.Pos(item)})
					}
				}
			},
		})
		out = append(out, ts)
	})
	return out
}

func (d *decoder) server(n *yaml.Node, s *Server) {
	d.Fields(n, "server", map[string]func(k, v *yaml.Node){
		"name": func(k, v *yaml.Node) {
			if x, ok := d.Str(v, "server.name"); ok {
				if !toolName.MatchString(x) {
					d.Errorf(v, "server.name %q must match ^[a-zA-Z0-9_-]{1,64}$", x)
				}
				s.Name = x
			}
		},
		"title": func(k, v *yaml.Node) {
			if x, ok := d.Str(v, "server.title"); ok {
				s.Title = x
			}
		},
		"instructions": func(k, v *yaml.Node) {
			if x, ok := d.Str(v, "server.instructions"); ok {
				s.Instructions = strings.TrimSpace(x)
			}
		},
		"context": func(k, v *yaml.Node) {
			d.Entries(v, "server.context", func(k, v *yaml.Node) {
				c := &ContextValue{Name: k.Value, Pos: d.Pos(k)}
				if !toolName.MatchString(c.Name) {
					d.Errorf(k, "context name %q must match ^[a-zA-Z0-9_-]{1,64}$", c.Name)
				}
				d.Fields(v, "context value `"+c.Name+"`", map[string]func(k, v *yaml.Node){
					"header": func(k, v *yaml.Node) { c.Header, _ = d.Str(v, "header") },
					"claim":  func(k, v *yaml.Node) { c.Claim, _ = d.Str(v, "claim") },
					"env":    func(k, v *yaml.Node) { c.Env, _ = d.Str(v, "env") },
				})
				if c.Header == "" && c.Claim == "" && c.Env == "" {
					d.Errorf(k, "context value `%s` has no source: give at least one of header, claim, env", c.Name)
				}
				s.Context = append(s.Context, c)
			})
		},
	})
}

func (d *decoder) include(n *yaml.Node, inc *Include) {
	inc.Pos = d.Pos(n)
	if n.Kind == yaml.ScalarNode {
		switch n.Value {
		case "all", "listed":
			inc.Mode = n.Value
		default:
			d.Errorf(n, "include must be `all`, `listed`, or a list of selectors, not %s%s", diag.Describe(n), diag.DidYouMean(n.Value, []string{"all", "listed"}))
		}
		return
	}
	inc.Mode = "selected"
	inc.Selectors = d.selectors(n, "include")
}

func (d *decoder) selectors(n *yaml.Node, where string) []*Selector {
	if n.Kind != yaml.SequenceNode {
		d.Errorf(n, "%s must be a list of selectors such as `- tag: orders`, not %s", where, diag.Describe(n))
		return nil
	}
	var out []*Selector
	for _, e := range n.Content {
		s := &Selector{Pos: d.Pos(e)}
		d.Fields(e, where+" selector", map[string]func(k, v *yaml.Node){
			"operation": func(k, v *yaml.Node) { s.Operation, _ = d.Str(v, "operation") },
			"tag":       func(k, v *yaml.Node) { s.Tag, _ = d.Str(v, "tag") },
			"method": func(k, v *yaml.Node) {
				if m, ok := d.Str(v, "method"); ok {
					s.Method = strings.ToUpper(m)
				}
			},
			"path": func(k, v *yaml.Node) { s.Path, _ = d.Str(v, "path") },
		})
		if s.Operation == "" && s.Tag == "" && s.Method == "" && s.Path == "" && yamlwalk.Resolve(e).Kind == yaml.MappingNode {
			d.Errorf(e, "empty selector: give operation, tag, method or path")
		}
		out = append(out, s)
	}
	return out
}

func (d *decoder) tool(k, n *yaml.Node) *Tool {
	t := &Tool{Name: k.Value, Pos: d.Pos(k)}
	if !toolName.MatchString(t.Name) {
		d.Errorf(k, "tool name %q is not valid for every MCP client: %s", t.Name, nameProblem(t.Name))
	}
	d.Fields(n, "tool `"+t.Name+"`", map[string]func(k, v *yaml.Node){
		"operation": func(k, v *yaml.Node) {
			t.Operation, _ = d.Str(v, "operation")
			t.OperationPos = d.Pos(v)
		},
		"hidden": func(k, v *yaml.Node) { t.Hidden, _ = d.Bool(v, "hidden") },
		"title":  func(k, v *yaml.Node) { t.Title = d.strPtr(v, "title") },
		"description": func(k, v *yaml.Node) {
			if p := d.strPtr(v, "description"); p != nil {
				s := strings.TrimSpace(*p)
				t.Description = &s
			}
		},
		"annotations": func(k, v *yaml.Node) {
			a := &t.Annotations
			d.Fields(v, "annotations", map[string]func(k, v *yaml.Node){
				"read_only":   func(k, v *yaml.Node) { a.ReadOnly = d.boolPtr(v, "read_only") },
				"destructive": func(k, v *yaml.Node) { a.Destructive = d.boolPtr(v, "destructive") },
				"idempotent":  func(k, v *yaml.Node) { a.Idempotent = d.boolPtr(v, "idempotent") },
				"open_world":  func(k, v *yaml.Node) { a.OpenWorld = d.boolPtr(v, "open_world") },
			})
		},
		"params": func(k, v *yaml.Node) {
			d.Entries(v, "params", func(k, v *yaml.Node) { t.Params = append(t.Params, d.param(t.Name, k, v)) })
		},
		"result": func(k, v *yaml.Node) { t.Result = d.result(v) },
		"errors": func(k, v *yaml.Node) { t.Errors = d.errorRules(v) },
		"quote": func(k, v *yaml.Node) {
			q := &Quote{TTLSeconds: 15 * 60, Pos: d.Pos(v)}
			d.Fields(v, "quote", map[string]func(k, v *yaml.Node){
				"hold": func(k, v *yaml.Node) { q.Hold, _ = d.Bool(v, "hold") },
				"ttl": func(k, v *yaml.Node) {
					if s, ok := d.Str(v, "ttl"); ok {
						dur, err := time.ParseDuration(s)
						if err != nil || dur < time.Second || dur > 24*time.Hour {
							d.Errorf(v, "ttl must be a duration between 1s and 24h such as 15m, not %q", s)
							return
						}
						q.TTLSeconds = int(dur / time.Second)
					}
				},
			})
			t.Quote = q
		},
		"confirms": func(k, v *yaml.Node) {
			t.Confirms, _ = d.Str(v, "confirms")
			t.ConfirmsPos = d.Pos(v)
		},
		"approval": func(k, v *yaml.Node) {
			a := &Approval{WithoutElicitation: "refuse", Pos: d.Pos(v)}
			if yamlwalk.Resolve(v).Kind == yaml.ScalarNode {
				// approval: true asks the generated question; false exempts
				// the tool from the server's --approve policy.
				if b, ok := d.Bool(v, "approval"); ok {
					a.Never = !b
					t.Approval = a
				}
				return
			}
			d.Fields(v, "approval", map[string]func(k, v *yaml.Node){
				"message": func(k, v *yaml.Node) {
					if t, ok := d.text(v, "message"); ok {
						a.Message = t
					}
				},
				"without_elicitation": func(k, v *yaml.Node) {
					if s, ok := d.Str(v, "without_elicitation"); ok {
						if s != "refuse" && s != "proceed" {
							d.Errorf(v, "without_elicitation must be `refuse` or `proceed`, not %q%s", s, diag.Suggest(s, []string{"refuse", "proceed"}))
						}
						a.WithoutElicitation = s
					}
				},
			})
			t.Approval = a
		},
		"args": func(k, v *yaml.Node) {
			d.Entries(v, "args", func(k, v *yaml.Node) {
				a := &Arg{Name: k.Value, Pos: d.Pos(k)}
				if !argName.MatchString(a.Name) {
					d.Errorf(k, "argument name %q is not valid: use 1 to 64 of a-z A-Z 0-9 _ . -", a.Name)
				}
				if val := d.value(v); val != nil {
					m, ok := val.V.(map[string]any)
					if !ok {
						d.Errorf(v, "argument `%s` must be a JSON Schema such as {type: string, description: ...}", a.Name)
						return
					}
					if r, ok := m["required"]; ok {
						b, isBool := r.(bool)
						if !isBool {
							d.Errorf(v, "argument `%s`: required must be true or false", a.Name)
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
		"reads":    func(k, v *yaml.Node) { t.Reads = d.steps(v) },
		"lint":     func(k, v *yaml.Node) { t.Lint = d.lint(v) },
		"messages": func(k, v *yaml.Node) { t.Messages = d.messages(v, "tool `"+t.Name+"` messages") },
		"scopes":   func(k, v *yaml.Node) { t.Scopes, t.ScopesAt = d.scopes(v) },
	})
	if yamlwalk.Resolve(n).Kind == yaml.MappingNode {
		switch {
		case t.Operation == "" && len(t.Steps) == 0:
			d.Errorf(k, "tool `%s` needs `operation:` (an operationId, or \"METHOD /path\"), or `steps:` for a composed tool", t.Name)
		case len(t.Reads) > 0 && t.Operation == "":
			d.Errorf(k, "tool `%s`: `reads:` are the read-only steps a one-operation tool runs before its approval question or held quote; a composed tool starts its `steps:` with them instead", t.Name)
		case len(t.Reads) > 0 && t.Approval == nil && (t.Quote == nil || !t.Quote.Hold):
			d.Errorf(k, "tool `%s`: `reads:` run before an approval question or a held quote (`quote: {hold: true}`), and this tool has neither", t.Name)
		case t.Operation != "" && len(t.Steps) > 0:
			d.Errorf(k, "tool `%s` has both `operation:` and `steps:`: a tool calls one operation, or is composed of steps", t.Name)
		case t.Confirms != "" && len(t.Steps) == 0:
			d.Errorf(k, "tool `%s` confirms `%s` but has no `steps:` saying what carrying out a quote does", t.Name, t.Confirms)
		case t.Confirms != "" && len(t.Args) > 0:
			d.Errorf(k, "tool `%s` confirms a quote, so its only argument is the quote id: remove `args:`", t.Name)
		case t.Quote != nil && t.Operation == "":
			d.Errorf(k, "tool `%s`: a quote tool calls one operation (the API's preview), not steps", t.Name)
		case len(t.Steps) > 0 && len(t.Params) > 0:
			d.Errorf(k, "tool `%s` is composed: bind each step's parameters under the step's `args:`, and declare the tool's own under `args:`", t.Name)
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
	d.Entries(n, where, func(k, v *yaml.Node) {
		if _, known := mcpkit.LookupMessage(k.Value); !known {
			d.Errorf(k, "there is no built-in message `%s`%s (`tailor messages` lists them)", k.Value, diag.Suggest(k.Value, ids))
		}
		if t, ok := d.text(v, "message `"+k.Value+"`"); ok {
			out = append(out, &Message{ID: k.Value, Text: t, Pos: d.Pos(k)})
		}
	})
	return out
}

func (d *decoder) steps(n *yaml.Node) []*Step {
	if n.Kind != yaml.SequenceNode {
		d.Errorf(n, "steps must be a list of steps, each with name and operation, not %s", diag.Describe(n))
		return nil
	}
	var out []*Step
	names := map[string]bool{}
	for _, e := range n.Content {
		st := &Step{Pos: d.Pos(e)}
		d.Fields(e, "step", map[string]func(k, v *yaml.Node){
			"name": func(k, v *yaml.Node) {
				if s, ok := d.Str(v, "name"); ok {
					if !stepName.MatchString(s) {
						d.Errorf(v, "step name %q must be a short identifier (letters, digits, _), since templates refer to it as .steps.%s", s, s)
					} else if names[s] {
						d.Errorf(v, "two steps are named `%s`", s)
					}
					names[s] = true
					st.Name = s
				}
			},
			"operation": func(k, v *yaml.Node) {
				st.Operation, _ = d.Str(v, "operation")
				st.OperationPos = d.Pos(v)
			},
			"for_each": func(k, v *yaml.Node) {
				if t, ok := d.text(v, "for_each"); ok {
					st.ForEach = &t
				}
			},
			"idempotency_key": func(k, v *yaml.Node) { st.IdempotencyKey, _ = d.Bool(v, "idempotency_key") },
			"args": func(k, v *yaml.Node) {
				d.Entries(v, "step args", func(k, v *yaml.Node) {
					a := &StepArg{Name: k.Value, Pos: d.Pos(k)}
					a.Value = d.value(v)
					if a.Value != nil && v.Kind == yaml.ScalarNode && v.Tag == "!!str" {
						a.Value.Pos = d.Pos(v)
					}
					st.Args = append(st.Args, a)
				})
			},
		})
		if yamlwalk.Resolve(e).Kind == yaml.MappingNode {
			if st.Name == "" {
				d.Errorf(e, "step needs `name:`, which templates use to refer to its result (.steps.<name>)")
			}
			if st.Operation == "" {
				d.Errorf(e, "step needs `operation:` (an operationId, or \"METHOD /path\")")
			}
		}
		out = append(out, st)
	}
	return out
}

func (d *decoder) param(tool string, k, n *yaml.Node) *Param {
	p := &Param{Name: k.Value, Pos: d.Pos(k)}
	where := "tool `" + tool + "`, parameter `" + p.Name + "`"
	d.Fields(n, where, map[string]func(k, v *yaml.Node){
		"rename": func(k, v *yaml.Node) {
			if s := d.strPtr(v, "rename"); s != nil {
				if !argName.MatchString(*s) {
					d.Errorf(v, "rename %q is not a valid argument name: use 1 to 64 of a-z A-Z 0-9 _ . -", *s)
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
			p.FromPos = d.Pos(v)
			if s, ok := d.Str(v, "from"); ok {
				name, found := strings.CutPrefix(s, "context.")
				if !found || !toolName.MatchString(name) {
					hint := ""
					if !found && toolName.MatchString(s) {
						hint = fmt.Sprintf("; did you mean `context.%s`?", s)
					}
					d.Errorf(v, "from must name a context value as `context.<name>`, not %q%s", s, hint)
					return
				}
				p.From = name
			}
		},
		"hidden":   func(k, v *yaml.Node) { p.Hidden, _ = d.Bool(v, "hidden") },
		"required": func(k, v *yaml.Node) { p.Required = d.boolPtr(v, "required") },
	})
	sources := 0
	for _, set := range []bool{p.Value != nil, p.From != "", p.Hidden} {
		if set {
			sources++
		}
	}
	if sources > 1 {
		d.Errorf(k, "%s: value, from and hidden: true exclude each other (choose one)", where)
	}
	if sources == 1 && (p.Rename != nil || p.Description != nil || p.Default != nil || p.Enum != nil || p.Examples != nil ||
		p.Minimum != nil || p.Maximum != nil || p.Pattern != nil || p.MinLength != nil || p.MaxLength != nil || p.Required != nil) {
		d.Errorf(k, "%s is hidden from the model (value, from or hidden), so rename, description, default and constraints have no effect: remove them", where)
	}
	return p
}

func (d *decoder) result(n *yaml.Node) *Result {
	r := &Result{Pos: d.Pos(n)}
	d.Fields(n, "result", map[string]func(k, v *yaml.Node){
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
					d.Errorf(v, "max_bytes must be at least 256")
				}
				r.MaxBytes = *i
			}
		},
	})
	if len(r.Keep) > 0 && len(r.Drop) > 0 {
		d.Errorf(n, "result: use keep or drop, not both")
	}
	return r
}

func (d *decoder) errorRules(n *yaml.Node) []*ErrorRule {
	if n.Kind != yaml.SequenceNode {
		d.Errorf(n, "errors must be a list of rules such as `- when: {status: 404}` with `text:`, not %s", diag.Describe(n))
		return nil
	}
	var out []*ErrorRule
	for _, e := range n.Content {
		r := &ErrorRule{Pos: d.Pos(e)}
		hasText := false
		d.Fields(e, "error rule", map[string]func(k, v *yaml.Node){
			"when": func(k, v *yaml.Node) {
				d.Fields(v, "when", map[string]func(k, v *yaml.Node){
					"status": func(k, v *yaml.Node) { r.Status = d.statuses(v) },
					"body": func(k, v *yaml.Node) {
						if val := d.value(v); val != nil {
							m, ok := val.V.(map[string]any)
							if !ok {
								d.Errorf(v, "when.body must map response fields to values, e.g. {code: already_fulfilled}")
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
		if !hasText && yamlwalk.Resolve(e).Kind == yaml.MappingNode {
			d.Errorf(e, "error rule needs `text:`, the message the model reads (say what went wrong and what to do next)")
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
			d.Errorf(e, "status must be an HTTP status such as 404, or a class such as 4XX, not %s", diag.Describe(e))
			continue
		}
		out = append(out, s)
	}
	return out
}

func (d *decoder) actions(n *yaml.Node) []*Action {
	if n.Kind != yaml.SequenceNode {
		d.Errorf(n, "actions must be a list of OpenAPI Overlay actions (target, update/remove/copy), not %s", diag.Describe(n))
		return nil
	}
	var out []*Action
	for _, e := range n.Content {
		a := &Action{Pos: d.Pos(e)}
		d.Fields(e, "action", map[string]func(k, v *yaml.Node){
			"target":      func(k, v *yaml.Node) { a.Target, _ = d.Str(v, "target") },
			"description": func(k, v *yaml.Node) { a.Description, _ = d.Str(v, "description") },
			"update": func(k, v *yaml.Node) {
				if val := d.value(v); val != nil {
					a.Update, a.HasUpdate = val.V, true
				}
			},
			"remove": func(k, v *yaml.Node) { a.Remove, _ = d.Bool(v, "remove") },
			"copy":   func(k, v *yaml.Node) { a.Copy, _ = d.Str(v, "copy") },
		})
		switch {
		case a.Target == "":
			d.Errorf(e, "action needs `target:`, a JSONPath such as $.paths['/orders'].get")
		case !a.HasUpdate && !a.Remove && a.Copy == "":
			d.Errorf(e, "action needs one of update, remove or copy")
		case a.Remove && (a.HasUpdate || a.Copy != ""):
			d.Errorf(e, "an action that removes cannot also update or copy")
		}
		out = append(out, a)
	}
	return out
}
