package schema

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// CheckStrict lists the ways a tool's input schema breaks the rules of
// OpenAI's strict mode (structured outputs' supported subset, and what the
// OpenAI Agents SDK checks before it sends a tool as strict); nil when it
// keeps them all. The rules, as documented:
//
//   - the root is an object, not an anyOf;
//   - every object has additionalProperties false and lists every one of
//     its properties in required;
//   - every schema is an object with a type, an anyOf or a $ref (enum and
//     const beside a type), and uses only the supported keywords, each on
//     its own type: pattern and format on strings (formats from a fixed
//     list), bounds and multipleOf on numbers, minItems and maxItems on
//     arrays;
//   - a $ref or an anyOf has only annotations (description, title) beside
//     it, and a $ref points into the root's $defs;
//   - at most 10 levels of nesting, 5,000 properties, 1,000 enum values,
//     and 120,000 characters of property names, definition names and enum
//     and const values.
func CheckStrict(raw []byte) []string {
	root, err := Decode(raw)
	if err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	c := &strictChecker{root: root, seen: map[string]bool{}}
	defs, _ := root["$defs"].(map[string]any)
	c.defs = defs
	if _, ok := root["anyOf"]; ok {
		c.fail("", "the root is an anyOf")
	}
	if root["type"] != "object" {
		c.fail("", "the root is not an object")
	}
	c.node(root, "", 0)
	for _, name := range sortedKeys(defs) {
		c.chars += len(name)
		c.node(defs[name], "/$defs/"+name, 0)
	}
	if c.props > 5000 {
		c.fail("", fmt.Sprintf("%d properties (at most 5000)", c.props))
	}
	if c.enums > 1000 {
		c.fail("", fmt.Sprintf("%d enum values (at most 1000)", c.enums))
	}
	if c.chars > 120000 {
		c.fail("", fmt.Sprintf("%d characters of names and values (at most 120000)", c.chars))
	}
	sort.Strings(c.problems)
	return c.problems
}

type strictChecker struct {
	root                map[string]any
	defs                map[string]any
	problems            []string
	seen                map[string]bool
	props, enums, chars int
}

func (c *strictChecker) fail(where, what string) {
	msg := what
	if where != "" {
		msg = where + ": " + what
	}
	if !c.seen[msg] {
		c.seen[msg] = true
		c.problems = append(c.problems, msg)
	}
}

// allowed are the keywords of the strict subset, by the type they belong to
// ("" for every type).
var allowed = map[string]string{
	"type": "", "description": "", "title": "", "enum": "", "const": "", "anyOf": "", "$ref": "", "$defs": "",
	"properties": "object", "required": "object", "additionalProperties": "object",
	"items": "array", "minItems": "array", "maxItems": "array",
	"pattern": "string", "format": "string",
	"minimum": "number", "maximum": "number", "exclusiveMinimum": "number", "exclusiveMaximum": "number", "multipleOf": "number",
}

var refSiblings = []string{"$ref", "description", "title", "$defs"}

func (c *strictChecker) node(s any, where string, depth int) {
	m, ok := s.(map[string]any)
	if !ok {
		c.fail(where, "a boolean schema")
		return
	}
	if depth > 10 {
		c.fail(where, "more than 10 levels of nesting")
		return
	}
	for k := range m {
		if _, ok := allowed[k]; !ok {
			c.fail(where, fmt.Sprintf("keyword %s is not supported", k))
		}
	}
	if ref, ok := m["$ref"].(string); ok {
		for k := range m {
			if !slices.Contains(refSiblings, k) {
				c.fail(where, fmt.Sprintf("keyword %s beside $ref", k))
			}
		}
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if _, found := c.defs[name]; !ok || !found {
			c.fail(where, fmt.Sprintf("$ref %s does not point into $defs", ref))
		}
		return
	}
	if br, ok := m["anyOf"]; ok {
		for k := range m {
			if k != "anyOf" && k != "description" && k != "title" {
				c.fail(where, fmt.Sprintf("keyword %s beside anyOf", k))
			}
		}
		l, _ := br.([]any)
		if len(l) == 0 {
			c.fail(where, "an empty anyOf")
		}
		for i, b := range l {
			c.node(b, fmt.Sprintf("%s/anyOf/%d", where, i), depth)
		}
		return
	}
	var types []string
	switch t := m["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			s, _ := x.(string)
			types = append(types, s)
		}
	default:
		c.fail(where, "no type")
		return
	}
	for _, t := range types {
		switch t {
		case "object", "array", "string", "number", "integer", "boolean", "null":
		default:
			c.fail(where, fmt.Sprintf("unknown type %q", t))
		}
	}
	has := func(t string) bool {
		return slices.Contains(types, t) || (t == "number" && slices.Contains(types, "integer"))
	}
	for k := range m {
		if t := allowed[k]; t != "" && !has(t) {
			c.fail(where, fmt.Sprintf("keyword %s on a schema of type %s", k, strings.Join(types, ", ")))
		}
	}
	if f, ok := m["format"].(string); ok && !strictFormats[f] {
		c.fail(where, fmt.Sprintf("format %q is not supported", f))
	}
	if e, ok := m["enum"].([]any); ok {
		c.enums += len(e)
		for _, v := range e {
			if s, ok := v.(string); ok {
				c.chars += len(s)
			}
		}
	}
	if s, ok := m["const"].(string); ok {
		c.chars += len(s)
	}
	if has("object") {
		if len(types) > 1 && !(len(types) == 2 && has("null")) {
			c.fail(where, "an object that may also be another type")
		}
		if ap, ok := m["additionalProperties"].(bool); !ok || ap {
			c.fail(where, "an object without additionalProperties false")
		}
		props, ok := m["properties"].(map[string]any)
		if !ok {
			c.fail(where, "an object without properties")
		}
		req := map[string]bool{}
		for _, r := range anyList(m["required"]) {
			s, _ := r.(string)
			req[s] = true
		}
		for _, name := range sortedKeys(props) {
			c.props++
			c.chars += len(name)
			if !req[name] {
				c.fail(where, fmt.Sprintf("property %s is not required", name))
			}
			c.node(props[name], where+"/properties/"+name, depth+1)
		}
	}
	if has("array") {
		it, ok := m["items"]
		if !ok {
			c.fail(where, "an array without items")
		} else {
			c.node(it, where+"/items", depth+1)
		}
	}
}
