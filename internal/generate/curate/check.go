package curate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/tailormcp/tailor/internal/jsonv"
)

var printer = message.NewPrinter(language.English)

// checkValue validates a fixed value or default against a property schema
// of a tool's input schema (root holds its $defs).
func checkValue(root map[string]any, prop any, v any) error {
	doc := map[string]any{}
	if m, ok := prop.(map[string]any); ok {
		for k, val := range m {
			doc[k] = val
		}
	}
	if defs, ok := root["$defs"]; ok {
		doc["$defs"] = defs
	}
	s, err := compile(doc)
	if err != nil {
		return fmt.Errorf("the parameter's schema does not compile: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(jsonv.Text(v)))
	if err != nil {
		return err
	}
	if err := s.Validate(inst); err != nil {
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			var leaves []string
			var walk func(e *jsonschema.ValidationError)
			walk = func(e *jsonschema.ValidationError) {
				if len(e.Causes) == 0 {
					leaves = append(leaves, e.ErrorKind.LocalizedString(printer))
				}
				for _, c := range e.Causes {
					walk(c)
				}
			}
			walk(ve)
			return fmt.Errorf("%s", strings.Join(leaves, "; "))
		}
		return err
	}
	return nil
}

// compile compiles a self-contained JSON Schema (draft 2020-12).
func compile(doc map[string]any) (*jsonschema.Schema, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	parsed, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem:///schema.json", parsed); err != nil {
		return nil, err
	}
	return c.Compile("mem:///schema.json")
}
