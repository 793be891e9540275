package load

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestValidationErrorsKeepTheirContext: the lists kin-openapi returns are
// flattened, but a list inside one error's chain stays there, under the
// context that says where it is; the checks validate turns off are left
// out, wherever they are under that context.
func TestValidationErrorsKeepTheirContext(t *testing.T) {
	value := func(kind string) openapi3.SchemaValueError {
		return openapi3.SchemaValueError{ValueKind: kind, Cause: errors.New("got string, want integer")}
	}
	inner := openapi3.MultiError{errors.New("at '': got string, want integer")}
	located := fmt.Errorf("invalid paths: invalid path /x: invalid operation POST: invalid value: %w", inner)
	example := fmt.Errorf("invalid paths: invalid path /y: invalid operation GET: %w", &openapi3.ExampleViolatesSchema{SchemaValueError: value("example")})
	deflt := fmt.Errorf("invalid components: schema \"S\": %w", &openapi3.DefaultViolatesSchema{SchemaValueError: value("default")})
	underList := fmt.Errorf("invalid paths: %w", openapi3.MultiError{&openapi3.DefaultViolatesSchema{SchemaValueError: value("default")}})
	errs := flattenMulti(openapi3.MultiError{located, openapi3.MultiError{errors.New("a"), example}, deflt, underList})
	var kept []string
	for _, e := range errs {
		if !disabledCheck(e) {
			msg, _, _ := strings.Cut(e.Error(), "\n")
			kept = append(kept, msg)
		}
	}
	want := []string{
		"invalid paths: invalid path /x: invalid operation POST: invalid value: at '': got string, want integer",
		"a",
		"invalid paths: " + openapi3.MultiError{&openapi3.DefaultViolatesSchema{SchemaValueError: value("default")}}.Error(),
	}
	if strings.Join(kept, "\n") != strings.Join(want, "\n") {
		t.Errorf("kept:\n%s\nwant:\n%s", strings.Join(kept, "\n"), strings.Join(want, "\n"))
	}
}
