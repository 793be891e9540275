package mcpkit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// validator checks arguments against a tool's input schema. It uses
// santhosh-tekuri/jsonschema because its errors carry the instance location
// ("/items/0/price"), which is what the model needs to correct a call;
// go-sdk's validator reports schema locations instead.
type validator struct {
	schema *jsonschema.Schema
	// args lists the tool's argument names, for "unknown argument" errors.
	args string
	// declared holds the same names (see dropClientArgs).
	declared map[string]bool
}

func compileSchema(name, schema string) (*validator, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// Tool schemas are self-contained; nothing may be fetched.
	c.UseLoader(noLoader{})
	url := "mem:///" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	v := &validator{schema: s}
	if m, ok := doc.(map[string]any); ok {
		if props, ok := m["properties"].(map[string]any); ok {
			names := make([]string, 0, len(props))
			v.declared = make(map[string]bool, len(props))
			for n := range props {
				names = append(names, n)
				v.declared[n] = true
			}
			sort.Strings(names)
			v.args = strings.Join(names, ", ")
		}
	}
	return v, nil
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("tool schemas cannot refer to %s", url)
}

// validate returns nil, or a sentence per problem, each naming the argument
// path ("items[0].price") and what was expected, and the top-level
// arguments the problems are about (for the audit log), sorted.
func (v *validator) validate(args any) (problems, names []string) {
	err := v.schema.Validate(args)
	if err == nil {
		return nil, nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []string{err.Error()}, nil
	}
	seen := map[string]bool{}
	about := map[string]bool{}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			if len(e.InstanceLocation) == 0 {
				for _, n := range k.Missing {
					about[n] = true
				}
			}
		case *kind.AdditionalProperties:
			if len(e.InstanceLocation) == 0 {
				for _, n := range k.Properties {
					about[n] = true
				}
			}
		}
		if len(e.InstanceLocation) > 0 {
			about[e.InstanceLocation[0]] = true
		}
		msg := e.ErrorKind.LocalizedString(printer)
		if _, extra := e.ErrorKind.(*kind.AdditionalProperties); extra && len(e.InstanceLocation) == 0 && v.args != "" {
			msg += " (the arguments are: " + v.args + ")"
		}
		line := msg
		if where := argPath(e.InstanceLocation); where != "" {
			line = "`" + where + "`: " + msg
		}
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	walk(ve)
	sort.Strings(out)
	if len(out) > 8 {
		out = append(out[:8], fmt.Sprintf("and %d more problems", len(out)-8))
	}
	for n := range about {
		names = append(names, n)
	}
	sort.Strings(names)
	return out, names
}

var printer = message.NewPrinter(language.English)

// argPath renders an instance location as a readable argument path:
// [items 0 price] → items[0].price.
func argPath(segs []string) string {
	var b strings.Builder
	for i, seg := range segs {
		if isIndex(seg) && i > 0 {
			b.WriteString("[" + seg + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
