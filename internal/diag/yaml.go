package diag

import (
	"errors"
	"fmt"
	"strconv"
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

// Describe names what a YAML node holds, for "must be X, not Y" messages:
// "a mapping", "a list", "the number 3", "the text \"x\"", "empty".
func Describe(n *yaml.Node) string {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil {
		return "empty"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "empty"
		case "!!str":
			return fmt.Sprintf("the text %q", n.Value)
		case "!!bool":
			return "the boolean " + n.Value
		case "!!int", "!!float":
			return "the number " + n.Value
		}
		return strconv.Quote(n.Value)
	}
	return "empty"
}
