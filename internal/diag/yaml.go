package diag

import (
	"errors"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// YAML positions a YAML parse error of the file at path (a spec, a file
// its $refs read, an overlay), mentioning the construct the parser was in
// when it started elsewhere (an unclosed bracket or quote).
func YAML(path string, err error) error {
	var le *yaml.LoadError
	if !errors.As(err, &le) {
		var les *yaml.LoadErrors
		if errors.As(err, &les) && len(les.Errors) > 0 {
			le = les.Errors[0]
		}
	}
	if le == nil {
		return At(Pos{File: path}, "invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	msg := le.Message
	if le.ContextMsg != "" && le.ContextMark.Line > 0 && le.ContextMark != le.Mark {
		msg += fmt.Sprintf(" (%s that starts at %d:%d)", le.ContextMsg, le.ContextMark.Line, le.ContextMark.Column)
	}
	return At(Pos{File: path, Line: le.Mark.Line, Col: le.Mark.Column}, "invalid YAML: %s", msg)
}
