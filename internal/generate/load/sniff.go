package load

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/load/specfile"
)

type docKind int

const (
	openAPI3 docKind = iota
	swagger2
)

// topLevelVersion finds `openapi: 3.x` or `swagger: "2.0"` as a top-level
// YAML key without parsing the whole (possibly multi-megabyte) document.
// Group 1 is the key, 2 the opening quote (if any), 3 the version.
var topLevelVersion = regexp.MustCompile(`(?m)^["']?(openapi|swagger)["']?[ \t]*:[ \t]*(["']?)([0-9][0-9A-Za-z.\-]*)`)

// unquotedNumber is a version YAML reads as a number, not a string.
var unquotedNumber = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// sniff tells Swagger 2.0 from OpenAPI 3 by content, not by file name, and
// rejects what is neither with the reason and the place.
func sniff(path string, data []byte) (docKind, string, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) == 0 {
		return 0, "", diag.At(diag.Pos{File: path, Line: 1, Col: 1}, "spec is empty: expected an OpenAPI 3.0/3.1 or Swagger 2.0 description")
	}
	at := func(key string) diag.Pos { return valuePos(path, data, key) }

	var key, version string
	switch {
	case specfile.LooksLikeJSON(data):
		var raws map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &raws); err != nil {
			if serr := specfile.SyntaxError(path, data); serr != nil {
				return 0, "", serr
			}
			return 0, "", notOpenAPI(path, data, "the document is not a JSON object")
		}
		for _, k := range []string{"swagger", "openapi"} {
			raw, ok := raws[k]
			if !ok {
				continue
			}
			key = k
			if err := json.Unmarshal(raw, &version); err != nil {
				return 0, "", diag.At(at(k), "the `%s` field must be a string such as %s, not %s", k, example(k), raw)
			}
			break
		}
	default:
		if m := topLevelVersion.FindSubmatchIndex(data); m != nil {
			key, version = string(data[m[2]:m[3]]), string(data[m[6]:m[7]])
			if m[4] == m[5] && unquotedNumber.MatchString(version) && !followedByMore(data[m[7]:]) {
				line, col := specfile.LineCol(data, m[6])
				return 0, "", diag.At(diag.Pos{File: path, Line: line, Col: col},
					"YAML reads %s: %s as a number, and the version must be a string: write %s: \"%s\"", key, version, key, version)
			}
			break
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return 0, "", diag.YAML(path, err)
		}
		root := &doc
		if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
			root = root.Content[0]
		}
		if root.Kind != yaml.MappingNode {
			return 0, "", notOpenAPI(path, data, "the document is "+specfile.KindOf(root)+", not a mapping")
		}
		for _, k := range []string{"swagger", "openapi"} {
			v := specfile.MapValue(root, k)
			if v == nil {
				continue
			}
			key = k
			if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
				return 0, "", diag.At(diag.Pos{File: path, Line: v.Line, Col: v.Column}, "the `%s` field must be a string such as %s, not %s", k, example(k), specfile.KindOf(v))
			}
			version = v.Value
			break
		}
	}

	switch {
	case key == "":
		return 0, "", notOpenAPI(path, data, "no top-level `openapi` or `swagger` field")
	case key == "swagger" && strings.HasPrefix(version, "2."):
		return swagger2, version, nil
	case key == "openapi" && strings.HasPrefix(version, "3."):
		return openAPI3, version, nil
	}
	return 0, "", diag.At(at(key), "unsupported %s version %q: tailor reads Swagger 2.0 and OpenAPI 3.0/3.1", key, version)
}

// followedByMore reports whether a version the regexp stopped reading at
// goes on (`openapi: 3.0 beta`): then YAML reads a string after all.
func followedByMore(rest []byte) bool {
	line, _, _ := bytes.Cut(rest, []byte{'\n'})
	line = bytes.TrimRight(line, " \t\r")
	return len(line) > 0 && !bytes.HasPrefix(bytes.TrimLeft(line, " \t"), []byte{'#'})
}

func example(key string) string {
	if key == "swagger" {
		return `"2.0"`
	}
	return `"3.1.0"`
}

// notOpenAPI reports a document that is not an OpenAPI description, naming
// Swagger 1.x when that is what it is.
func notOpenAPI(path string, data []byte, why string) error {
	if swagger1.Match(data) {
		return diag.At(valuePos(path, data, "swaggerVersion"), "unsupported Swagger 1.x description (swaggerVersion): tailor reads Swagger 2.0 and OpenAPI 3.0/3.1; convert it first")
	}
	return diag.At(diag.Pos{File: path, Line: 1, Col: 1}, "not an OpenAPI description: %s", why)
}

var swagger1 = regexp.MustCompile(`(?m)(^|[{,]\s*)["']?swaggerVersion["']?\s*:`)

// valuePos is the position of a top-level key's value, found by parsing the
// document (JSON is YAML too); only error paths need it. It is line 1,
// column 1 when the key cannot be found.
func valuePos(path string, data []byte, key string) diag.Pos {
	pos := diag.Pos{File: path, Line: 1, Col: 1}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return pos
	}
	if v := specfile.MapValue(doc.Content[0], key); v != nil {
		pos.Line, pos.Col = v.Line, v.Column
	}
	return pos
}
