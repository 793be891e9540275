package locate

import (
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
)

// Warnings name what they are about by its OpenAPI 3 pointer: kin-openapi
// converts a Swagger 2.0 spec to OpenAPI 3 before anything reads it. Much
// of a 2.0 spec is written elsewhere than its 3 form says: a body
// parameter became the operation's requestBody, formData parameters the
// properties of a form's schema, the other parameters' type keywords their
// schema, a response's schema sits under content. Swagger2Layout is what
// it takes to point back, taken from the 2.0 document as decoded: for each
// path item and operation, where its parameters were written. It follows
// the converter's own rules (openapi2conv): parameters other than body
// and formData keep their order, path-level body and formData parameters
// apply to each operation unless it redeclares them.
type Swagger2Layout struct {
	paths map[string]*paramLayout // by path
	ops   map[string]*paramLayout // by path + " " + lower-case method
	// in is where each parameter of the document's parameters section
	// goes, and formName a formData one's name.
	in       map[string]string
	formName map[string]string
	// definitions are the names the document defines under definitions.
	definitions map[string]bool
}

// paramLayout is one parameters list of a path item or an operation.
type paramLayout struct {
	// kept[k] is the index of the OpenAPI 3 parameters[k].
	kept []int
	// body is the body parameter's index (-1: none); form the formData
	// parameters' indices by name.
	body int
	form map[string]int
}

// NewSwagger2Layout reads where doc, a Swagger 2.0 spec as decoded, wrote
// the parameters of each path item and operation.
func NewSwagger2Layout(doc *openapi2.T) *Swagger2Layout {
	lay := &Swagger2Layout{paths: map[string]*paramLayout{}, ops: map[string]*paramLayout{},
		in: map[string]string{}, formName: map[string]string{}, definitions: map[string]bool{}}
	for name, p := range doc.Parameters {
		if p != nil {
			lay.in[name], lay.formName[name] = p.In, p.Name
		}
	}
	for name := range doc.Definitions {
		lay.definitions[name] = true
	}
	for path, item := range doc.Paths {
		if item == nil {
			continue
		}
		lay.paths[path] = lay.params(item.Parameters)
		for method, op := range item.Operations() {
			if op != nil {
				lay.ops[path+" "+strings.ToLower(method)] = lay.params(op.Parameters)
			}
		}
	}
	return lay
}

func (lay *Swagger2Layout) params(ps openapi2.Parameters) *paramLayout {
	pl := &paramLayout{body: -1, form: map[string]int{}}
	for i, p := range ps {
		in, name := "", ""
		switch {
		case p == nil:
		case p.Ref != "":
			if global, ok := strings.CutPrefix(p.Ref, "#/parameters/"); ok {
				in, name = lay.in[global], lay.formName[global]
			}
		default:
			in, name = p.In, p.Name
		}
		switch in {
		case "body":
			if pl.body < 0 {
				pl.body = i
			}
		case "formData":
			if _, ok := pl.form[name]; !ok {
				pl.form[name] = i
			}
		default:
			pl.kept = append(pl.kept, i)
		}
	}
	return pl
}

// rewrite turns the tokens of an OpenAPI 3 pointer into those of the place
// the Swagger 2.0 spec writes it, or the nearest one it has. lay may be
// nil (a spec that needed repair): the sections are renamed only.
func (lay *Swagger2Layout) rewrite(toks []string) []string {
	if len(toks) < 2 {
		return toks
	}
	switch toks[0] {
	case "components":
		return lay.component(toks[1], toks[2:])
	case "paths":
		if lay == nil || len(toks) < 3 {
			return toks
		}
		path := toks[1]
		at := []string{"paths", path}
		if toks[2] == "parameters" {
			return lay.parameter(lay.paths[path], at, toks[3:])
		}
		op, ok := lay.ops[path+" "+toks[2]]
		if !ok || len(toks) < 4 {
			return toks
		}
		opAt := []string{"paths", path, toks[2]}
		switch toks[3] {
		case "parameters":
			return lay.parameter(op, opAt, toks[4:])
		case "requestBody":
			return lay.requestBody(op, lay.paths[path], opAt, at, toks[4:])
		case "responses":
			if len(toks) > 4 {
				return slices.Concat(opAt, []string{"responses", toks[4]}, response(toks[5:]))
			}
		}
	}
	return toks
}

// component rewrites a pointer into the components section named section.
func (lay *Swagger2Layout) component(section string, rest []string) []string {
	switch section {
	case "schemas":
		if lay != nil && len(rest) > 0 && !lay.definitions[rest[0]] && lay.in[rest[0]] == "formData" {
			// A formData parameter of the parameters section became the
			// schema of its value.
			return slices.Concat([]string{"parameters"}, rest)
		}
		return slices.Concat([]string{"definitions"}, rest)
	case "parameters":
		if len(rest) > 1 && rest[1] == "schema" {
			return slices.Concat([]string{"parameters", rest[0]}, rest[2:])
		}
		return slices.Concat([]string{"parameters"}, rest)
	case "requestBodies":
		if len(rest) == 0 {
			return []string{"parameters"}
		}
		return slices.Concat([]string{"parameters", rest[0]}, bodySchema(rest[1:]))
	case "responses":
		if len(rest) == 0 {
			return []string{"responses"}
		}
		return slices.Concat([]string{"responses", rest[0]}, response(rest[1:]))
	case "securitySchemes":
		return slices.Concat([]string{"securityDefinitions"}, rest)
	}
	return slices.Concat([]string{"components", section}, rest)
}

// parameter rewrites rest, below an OpenAPI 3 parameters list at
// holder: the k-th parameter kept is the list's kept[k], and a parameter's
// schema keywords are the parameter's own.
func (lay *Swagger2Layout) parameter(pl *paramLayout, holder, rest []string) []string {
	if pl == nil || len(rest) == 0 {
		return slices.Concat(holder, []string{"parameters"}, rest)
	}
	k, err := strconv.Atoi(rest[0])
	if err != nil || k < 0 || k >= len(pl.kept) {
		return slices.Concat(holder, []string{"parameters"})
	}
	at := slices.Concat(holder, []string{"parameters", strconv.Itoa(pl.kept[k])})
	if len(rest) > 1 && rest[1] == "schema" {
		return slices.Concat(at, rest[2:])
	}
	return slices.Concat(at, rest[1:])
}

// requestBody rewrites rest, below an operation's requestBody: the body
// parameter's schema, or a formData parameter for a property of the form,
// the operation's own or else its path item's.
func (lay *Swagger2Layout) requestBody(op, item *paramLayout, opAt, itemAt, rest []string) []string {
	schema, inSchema := schemaOf(rest)
	for _, side := range []struct {
		pl *paramLayout
		at []string
	}{{op, opAt}, {item, itemAt}} {
		if side.pl == nil {
			continue
		}
		if side.pl.body >= 0 {
			at := slices.Concat(side.at, []string{"parameters", strconv.Itoa(side.pl.body)})
			if inSchema {
				return slices.Concat(at, []string{"schema"}, schema)
			}
			return at
		}
		if len(side.pl.form) > 0 {
			if inSchema && len(schema) > 1 && schema[0] == "properties" {
				if i, ok := side.pl.form[schema[1]]; ok {
					return slices.Concat(side.at, []string{"parameters", strconv.Itoa(i)}, schema[2:])
				}
			}
			return slices.Concat(side.at, []string{"parameters"})
		}
	}
	return slices.Concat(opAt, []string{"parameters"})
}

// schemaOf is what follows content/<media type>/schema in rest, and
// whether rest goes there.
func schemaOf(rest []string) ([]string, bool) {
	if len(rest) >= 3 && rest[0] == "content" && rest[2] == "schema" {
		return rest[3:], true
	}
	return nil, false
}

// bodySchema rewrites what follows a request body for the body parameter
// it was.
func bodySchema(rest []string) []string {
	if schema, ok := schemaOf(rest); ok {
		return slices.Concat([]string{"schema"}, schema)
	}
	return nil
}

// response rewrites what follows a response: its schema is not under
// content, and its headers' type keywords are the headers' own.
func response(rest []string) []string {
	if schema, ok := schemaOf(rest); ok {
		return slices.Concat([]string{"schema"}, schema)
	}
	if len(rest) >= 3 && rest[0] == "headers" && rest[2] == "schema" {
		return slices.Concat(rest[:2], rest[3:])
	}
	if len(rest) > 0 && rest[0] == "content" {
		return nil
	}
	return rest
}
