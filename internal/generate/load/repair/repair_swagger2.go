package repair

// Swagger 2.0's rules for one operation's parameters, which the repair
// pass (repair.go) holds each operation to. The converter to OpenAPI 3
// refuses the whole spec for one operation with two body parameters, or a
// body beside form fields; it sends form fields as JSON when the
// operation consumes no form type; of a parameter declared twice, the
// later declaration is the one the tool gets. An operation whose request
// is ambiguous is skipped; the rest is mended, each with a warning.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/go-openapi/jsonpointer"
	"github.com/tailormcp/tailor/internal/generate/load/specfile"
	yaml "go.yaml.in/yaml/v4"
)

// param2 is a parameter as an operation lists it.
type param2 struct {
	entry    *yaml.Node // the list's entry: the parameter or a $ref to it
	id       string     // what it overrides a path-level parameter by: its $ref, or in and name
	in, name string
	file     bool // type: file
}

// params2 reads a parameter list written in f.
func (r *repairer) params2(f *specfile.File, list *yaml.Node) []param2 {
	list = specfile.Deref(list)
	if list == nil || list.Kind != yaml.SequenceNode {
		return nil
	}
	var out []param2
	for _, e := range list.Content {
		p := param2{entry: e}
		n, pf := specfile.Deref(e), f
		for depth := 0; n != nil && depth < 32; depth++ {
			_, ref := specfile.RefOf(n)
			if ref == nil {
				break
			}
			if depth == 0 {
				p.id = ref.Value
			}
			t, holder, _, err := r.Resolve(pf, ref.Value)
			if err != nil {
				n = nil
				break
			}
			pf, n = t, specfile.Deref(*holder)
		}
		if n == nil || n.Kind != yaml.MappingNode {
			continue
		}
		p.in, p.name = scalarOf(specfile.MapValue(n, "in")), scalarOf(specfile.MapValue(n, "name"))
		p.file = scalarOf(specfile.MapValue(n, "type")) == "file"
		if p.id == "" {
			p.id = p.in + " " + p.name
		}
		out = append(out, p)
	}
	return out
}

func scalarOf(n *yaml.Node) string {
	if n = specfile.Deref(n); n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// swagger2Params holds the Swagger 2.0 operation op, of the path item
// c.item, to the rules for its parameters. It fails (the operation is
// skipped) for two bodies or a body beside form fields.
func (r *repairer) swagger2Params(c ctx, op *yaml.Node) *failure {
	own := r.dropRedeclared(c, op)
	params := own
	overridden := map[string]bool{}
	for _, p := range own {
		overridden[p.id] = true
	}
	if c.item != nil {
		for _, p := range r.params2(c.f, specfile.MapValue(c.item, "parameters")) {
			if !overridden[p.id] {
				params = append(params, p)
			}
		}
	}
	var body, form *param2
	file := false
	for i := range params {
		p := &params[i]
		switch p.in {
		case "body":
			if body != nil {
				return &failure{pos: r.pos(c.f, p.entry), why: fmt.Sprintf("body parameter %q is one of two (the other, %q, is at line %d), and Swagger 2.0 allows one", p.name, body.name, body.entry.Line)}
			}
			body = p
		case "formData":
			if form == nil {
				form = p
			}
			file = file || p.file
		}
	}
	if body != nil && form != nil {
		return &failure{pos: r.pos(c.f, form.entry), why: fmt.Sprintf("form parameter %q is beside body parameter %q (line %d), and Swagger 2.0 sends either a body or form fields", form.name, body.name, body.entry.Line)}
	}
	if form != nil {
		r.formConsumes(c, op, form, file)
	}
	return nil
}

// dropRedeclared drops the earlier of two parameters of op with the same
// name and location (Swagger 2.0 allows one), and returns the ones left.
func (r *repairer) dropRedeclared(c ctx, op *yaml.Node) []param2 {
	list := specfile.Deref(specfile.MapValue(op, "parameters"))
	own := r.params2(c.f, list)
	last := map[string]int{}
	for i, p := range own {
		last[p.in+" "+p.name] = i
	}
	kept := own[:0]
	for i, p := range own {
		if j := last[p.in+" "+p.name]; j != i {
			r.repaired(r.pos(c.f, p.entry), "dropped this one (the later one is used)", "parameter %q in %s of %s is declared again at line %d, and Swagger 2.0 allows it once", p.name, p.in, c.op, own[j].entry.Line)
			list.Content = slices.DeleteFunc(list.Content, func(e *yaml.Node) bool { return e == p.entry })
			c.f.Changed = true
			continue
		}
		kept = append(kept, p)
	}
	return kept
}

var formTypes = []string{"application/x-www-form-urlencoded", "multipart/form-data"}

// formConsumes makes an operation with form parameters consume a form
// type when neither it nor the spec says one: Swagger 2.0 sends form
// fields only so, and the converter would otherwise send them as JSON.
func (r *repairer) formConsumes(c ctx, op *yaml.Node, form *param2, file bool) {
	consumes := specfile.Deref(specfile.MapValue(op, "consumes"))
	if consumes == nil || consumes.Kind != yaml.SequenceNode { // as the converter reads it
		consumes = specfile.Deref(specfile.MapValue(specfile.Deref(r.root.Doc.Content[0]), "consumes"))
	}
	var types []string
	if consumes != nil && consumes.Kind == yaml.SequenceNode {
		for _, t := range consumes.Content {
			mt, _, _ := strings.Cut(strings.ToLower(scalarOf(t)), ";")
			if slices.Contains(formTypes, strings.TrimSpace(mt)) {
				return
			}
			types = append(types, scalarOf(t))
		}
	}
	want := formTypes[0]
	if file {
		want = formTypes[1] // a file is sent only in multipart
	}
	says := "no media type"
	if len(types) > 0 {
		says = strings.Join(types, ", ")
	}
	r.repaired(r.pos(c.f, form.entry), "read it as consuming "+want, "form parameter %q needs %s to consume %s, and it consumes %s", form.name, c.op, strings.Join(formTypes, " or "), says)
	setKey(op, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "consumes"},
		&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: want}}})
	c.f.Changed = true
}

// BreaksParamRules reports whether an operation of doc2 breaks a rule the
// repair pass holds it to (swagger2Params): a spec the converter reads
// without complaint may still, and is then repaired before it is used.
func BreaksParamRules(doc2 *openapi2.T) bool {
	// A $ref into another file is not followed: such a spec goes through
	// the repair pass anyway (hasExternalRefs).
	resolve := func(p *openapi2.Parameter) *openapi2.Parameter {
		if p == nil {
			return nil
		}
		if name, ok := strings.CutPrefix(p.Ref, "#/parameters/"); ok {
			return doc2.Parameters[jsonpointer.Unescape(name)]
		} else if p.Ref != "" {
			return nil
		}
		return p
	}
	id := func(p *openapi2.Parameter) string {
		if p.Ref != "" {
			return p.Ref
		}
		return p.In + " " + p.Name
	}
	for _, item := range doc2.Paths {
		if item == nil {
			continue
		}
		for _, op := range item.Operations() {
			if op == nil {
				continue
			}
			params := slices.DeleteFunc(slices.Clone(op.Parameters), func(p *openapi2.Parameter) bool { return p == nil })
			overridden, declared := map[string]bool{}, map[string]bool{}
			for _, p := range params {
				overridden[id(p)] = true
				if q := resolve(p); q != nil {
					if declared[q.In+" "+q.Name] {
						return true
					}
					declared[q.In+" "+q.Name] = true
				}
			}
			for _, p := range item.Parameters {
				if p != nil && !overridden[id(p)] {
					params = append(params, p)
				}
			}
			bodies, forms := 0, 0
			for _, p := range params {
				if q := resolve(p); q != nil && q.In == "body" {
					bodies++
				} else if q != nil && q.In == "formData" {
					forms++
				}
			}
			consumes := op.Consumes
			if consumes == nil {
				consumes = doc2.Consumes
			}
			formType := slices.ContainsFunc(consumes, func(t string) bool {
				mt, _, _ := strings.Cut(strings.ToLower(t), ";")
				return slices.Contains(formTypes, strings.TrimSpace(mt))
			})
			if bodies > 1 || bodies > 0 && forms > 0 || forms > 0 && !formType {
				return true
			}
		}
	}
	return false
}
