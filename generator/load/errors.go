package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tailormcp/tailor/generator/diag"
)

// explainLoadError turns a kin-openapi load failure into a positioned error.
// kin-openapi reports syntax errors without a usable position, so the root
// file is re-parsed here (only on this failure path) to find one.
func explainLoadError(path string, data []byte, err error) error {
	var rr *RemoteRefError
	if errors.As(err, &rr) {
		return diag.At(diag.Pos{File: path}, "%s", rr.Error())
	}
	if serr := syntaxError(path, data, nil); serr != nil {
		return serr
	}
	msg := err.Error()
	pos := diag.Pos{File: path}
	// Point at the first $ref the message names, when we can find it.
	if m := refInMessage.FindStringSubmatch(msg); m != nil {
		if line, col := find(data, m[1]); line > 0 {
			pos.Line, pos.Col = line, col
		}
	}
	return diag.At(pos, "cannot load spec: %s", msg)
}

var refInMessage = regexp.MustCompile(`(?:ref|reference|\$ref)[^"']*["']([^"']+)["']`)

// syntaxError reports the position of a JSON or YAML syntax error in data,
// or returns nil (when parseErr is nil) if data parses.
func syntaxError(path string, data []byte, parseErr error) error {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var v any
		err := json.Unmarshal(data, &v)
		if err == nil {
			return parseErr
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, int(se.Offset))
			return diag.At(diag.Pos{File: path, Line: line, Col: col}, "invalid JSON: %s", se.Error())
		}
		return diag.At(diag.Pos{File: path}, "invalid JSON: %v", err)
	}
	var node yaml.Node
	err := yaml.Unmarshal(data, &node)
	if err == nil {
		return parseErr
	}
	msg := err.Error()
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.Replace(msg, m[0], "", 1)
	}
	msg = strings.TrimPrefix(strings.TrimPrefix(msg, "yaml: "), ": ")
	col := 0
	if line > 0 {
		col = 1
	}
	return diag.At(diag.Pos{File: path, Line: line, Col: col}, "invalid YAML: %s", msg)
}

var yamlLine = regexp.MustCompile(`line (\d+):?\s*`)

// lineCol converts a byte offset into 1-based line and column.
func lineCol(data []byte, off int) (int, int) {
	if off > len(data) {
		off = len(data)
	}
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// find returns the position of the first occurrence of s in data.
func find(data []byte, s string) (int, int) {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 0, 0
	}
	return lineCol(data, i+1)
}
