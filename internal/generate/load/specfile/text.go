package specfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
)

// DisplayPath names file, an absolute path, for messages about the spec
// the user named spec: spec itself as given; a file below the spec's
// directory joined to that directory as given ("specs/common.yaml"); any
// other file relative to the working directory when that does not climb
// out of it, else absolute.
func DisplayPath(file, spec string) string {
	if file == "" {
		return spec
	}
	// kin-openapi names files as URLs ("paths/a@%7Bid%7D.yaml").
	if strings.Contains(file, "%") {
		if u, err := url.PathUnescape(file); err == nil {
			if _, err := os.Stat(file); err != nil {
				file = u
			}
		}
	}
	file = filepath.FromSlash(file)
	abs, err := filepath.Abs(spec)
	if err != nil {
		return file
	}
	if abs == file {
		return spec
	}
	if rel, err := filepath.Rel(filepath.Dir(abs), file); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.Join(filepath.Dir(spec), rel)
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, file); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return file
}

// SyntaxError reports where data fails to parse as JSON (when it looks like
// JSON) or YAML, or returns nil when it parses.
func SyntaxError(path string, data []byte) error {
	if LooksLikeJSON(data) {
		var v any
		err := json.Unmarshal(data, &v)
		if err == nil {
			return nil
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the bytes read, the offending one included.
			line, col := LineCol(data, int(se.Offset)-1)
			return diag.At(diag.Pos{File: path, Line: line, Col: col}, "invalid JSON: %s", se.Error())
		}
		return diag.At(diag.Pos{File: path}, "invalid JSON: %v", err)
	}
	var node yaml.Node
	if err := yaml.Unmarshal(data, &node); err != nil {
		return diag.YAML(path, err)
	}
	return nil
}

// LooksLikeJSON reports whether data starts, past white space and a byte
// order mark, with an object or a list.
func LooksLikeJSON(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	return len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')
}

// LineCol converts the byte offset of a byte of data into its 1-based line
// and column.
func LineCol(data []byte, off int) (int, int) {
	off = max(0, min(off, len(data)))
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// KindOf says what a YAML node holds, for messages: "a list", "a number (3)".
func KindOf(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "null"
		}
		return fmt.Sprintf("%s (%s)", TagKind(n.ShortTag()), n.Value)
	}
	return "empty"
}

// TagKind names what a YAML tag stands for, for messages: "!!int" is
// "a number".
func TagKind(tag string) string {
	switch tag {
	case "!!map":
		return "a mapping"
	case "!!seq":
		return "a list"
	case "!!str":
		return "a string"
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "null"
	}
	return tag
}
