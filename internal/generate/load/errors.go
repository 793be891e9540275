package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
)

// explainLoadError turns a kin-openapi load failure into positioned errors.
// It is the safety net behind the repair pass, which reports (at their
// $refs) the refs that cannot be followed, the files that cannot be read
// and the objects of the wrong kind before kin-openapi sees them: what is
// left here are syntax errors of the root, values kin-openapi cannot
// decode (placed in the file they are in) and what neither names a place
// for (the spec's file, with kin-openapi's message).
func explainLoadError(path string, data []byte, fetch *fetcher, err error) error {
	src := newSources(path, data, fetch)
	msg := err.Error()

	var rr *RemoteRefError
	if errors.As(err, &rr) {
		return diag.At(diag.Pos{File: path}, "remote $ref %q refused: tailor does not fetch URLs named by a spec; run with --allow-remote-refs to allow it", rr.URL)
	}
	var out *OutsideRootError
	if errors.As(err, &out) {
		return diag.At(diag.Pos{File: path}, "%s", out.message(fromWorkDir(out.Path)))
	}

	// A file that does not parse, the root or one it refers to, is reported
	// with the parser's own position.
	if f := src.unparsable(); f != nil {
		return f.syntaxErr
	}

	// "error resolving reference X: ..." says the rest concerns the file X
	// names (kin-openapi nests one prefix per hop).
	file := src.root
	for _, m := range resolving.FindAllStringSubmatch(msg, -1) {
		if f := src.target(m[1]); f != nil {
			file = f
		}
	}

	var les *yaml.LoadErrors
	if errors.As(err, &les) && len(les.Errors) > 0 {
		var l diag.List
		for _, e := range les.Errors {
			l.Errorf(file.pos(e.Mark), "", "%s", decodeMessage(e.Message))
		}
		return l.Err()
	}
	var le *yaml.LoadError
	if errors.As(err, &le) {
		return diag.At(file.pos(le.Mark), "%s", decodeMessage(le.Message))
	}
	if m := anchorCycle.FindStringSubmatch(msg); m != nil {
		if n := findAnchor(file.node, m[1]); n != nil {
			return diag.At(file.pos(yaml.Mark{Line: n.Line, Column: n.Column}), "YAML anchor &%s contains an alias to itself", m[1])
		}
	}
	msg = strings.TrimPrefix(strings.TrimPrefix(msg, "failed to unmarshal data: "), "yaml error: ")
	return diag.At(diag.Pos{File: path}, "cannot load spec: %s", src.scrub(msg))
}

var (
	resolving   = regexp.MustCompile(`error resolving reference "([^"]*)": `)
	anchorCycle = regexp.MustCompile(`anchor "([^"]*)" value contains itself`)
)

// findAnchor returns the node that defines anchor name.
func findAnchor(n *yaml.Node, name string) *yaml.Node {
	if n == nil || n.Kind == yaml.AliasNode {
		return nil
	}
	if n.Anchor == name {
		return n
	}
	for _, c := range n.Content {
		if r := findAnchor(c, name); r != nil {
			return r
		}
	}
	return nil
}

// decodeMessage rewords a YAML decoding error in the user's terms: YAML
// tags become kinds of value and Go type names lose their package.
func decodeMessage(msg string) string {
	if m := construct.FindStringSubmatch(msg); m != nil {
		what := expected(m[3])
		where := ""
		if m[4] != "" {
			where = " at #" + m[4]
		}
		return fmt.Sprintf("wrong type%s: found %s where %s is expected", where, tagKind(m[1]), what)
	}
	if m := stringField.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("wrong type: `%s` must be a string, not %s (quote the value)", m[2], tagKind(m[1]))
	}
	return strings.TrimPrefix(msg, "yaml: ")
}

var (
	construct   = regexp.MustCompile("^cannot (?:construct|unmarshal) (!!\\w+)( `[^`]*`)? into (\\S+)(?: in (/\\S*))?$")
	stringField = regexp.MustCompile(`^cannot unmarshal (!!\w+) into string field "([^"]*)"$`)
)

// expected names what a kin-openapi type holds: "openapi3.Parameters" is a
// list of parameters, "openapi3.Info" an Info object.
func expected(goType string) string {
	switch {
	case strings.HasPrefix(goType, "map["), strings.HasPrefix(goType, "*map["):
		return "a mapping"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	}
	name := goType[strings.LastIndexByte(goType, '.')+1:]
	switch name {
	case "Parameters", "Servers", "Tags", "SecurityRequirements":
		return "a list of " + strings.ToLower(name[:1]) + name[1:]
	case "SchemaRefs":
		return "a list of schemas"
	case "Types":
		return "a type name or a list of them"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "uint64", "float64":
		return "a number"
	}
	article := "a"
	if name != "" && strings.ContainsRune("AEIOU", rune(name[0])) {
		article = "an"
	}
	return article + " " + name + " object"
}

func tagKind(tag string) string {
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

// syntaxError reports where data fails to parse as JSON (when it looks like
// JSON) or YAML, or returns nil when it parses.
func syntaxError(path string, data []byte) error {
	if looksLikeJSON(data) {
		var v any
		err := json.Unmarshal(data, &v)
		if err == nil {
			return nil
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the bytes read, the offending one included.
			line, col := lineCol(data, int(se.Offset)-1)
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

func looksLikeJSON(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	return len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')
}

// lineCol converts the byte offset of a byte of data into its 1-based line
// and column.
func lineCol(data []byte, off int) (int, int) {
	off = max(0, min(off, len(data)))
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}
