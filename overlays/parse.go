package overlays

import (
	"strings"

	"gopkg.in/yaml.v3"
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
		"actions": func(k, v *yaml.Node) { o.Actions = d.actions(v) },
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
			d.errorf(n, "include must be `all`, `listed`, or a list of selectors, not %s%s", describe(n), suggest(n.Value, []string{"all", "listed"}))
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
		d.errorf(k, "tool name %q is not valid for every MCP client: use 1 to 64 of a-z A-Z 0-9 _ -", t.Name)
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
			d.entries(v, "params", func(k, v *yaml.Node) { t.Params = append(t.Params, d.param(k, v)) })
		},
		"result": func(k, v *yaml.Node) { t.Result = d.result(v) },
		"errors": func(k, v *yaml.Node) { t.Errors = d.errorRules(v) },
	})
	if t.Operation == "" && resolveAlias(n).Kind == yaml.MappingNode {
		d.errorf(k, "tool `%s` needs `operation:` (an operationId, or \"METHOD /path\")", t.Name)
	}
	return t
}

func (d *decoder) param(k, n *yaml.Node) *Param {
	p := &Param{Name: k.Value, Pos: d.pos(k)}
	d.fields(n, "parameter `"+p.Name+"`", map[string]func(k, v *yaml.Node){
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
				if !strings.HasPrefix(s, "context.") {
					d.errorf(v, "from must name a context value as `context.<name>`, not %q", s)
				}
				p.From = strings.TrimPrefix(s, "context.")
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
		d.errorf(k, "parameter `%s`: value, from and hidden exclude each other (choose one)", p.Name)
	}
	if sources == 1 && (p.Rename != nil || p.Description != nil || p.Default != nil || p.Enum != nil || p.Examples != nil ||
		p.Minimum != nil || p.Maximum != nil || p.Pattern != nil || p.MinLength != nil || p.MaxLength != nil || p.Required != nil) {
		d.errorf(k, "parameter `%s` is hidden from the model (value, from or hidden), so rename, description, default and constraints have no effect: remove them", p.Name)
	}
	return p
}

func (d *decoder) result(n *yaml.Node) *Result {
	r := &Result{Pos: d.pos(n)}
	d.fields(n, "result", map[string]func(k, v *yaml.Node){
		"keep": func(k, v *yaml.Node) { r.Keep = d.texts(v, "keep") },
		"drop": func(k, v *yaml.Node) { r.Drop = d.texts(v, "drop") },
		"text": func(k, v *yaml.Node) {
			if s, ok := d.str(v, "text"); ok {
				r.Text = &Text{S: s, Pos: d.pos(v)}
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
				if s, ok := d.str(v, "text"); ok {
					hasText = true
					r.Text = Text{S: s, Pos: d.pos(v)}
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
