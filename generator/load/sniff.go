package load

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tailormcp/tailor/generator/diag"
)

type docKind int

const (
	openAPI3 docKind = iota
	swagger2
)

// topLevelVersion finds `openapi: 3.x` or `swagger: "2.0"` as a top-level
// YAML key without parsing the whole (possibly multi-megabyte) document.
var topLevelVersion = regexp.MustCompile(`(?m)^["']?(openapi|swagger)["']?\s*:\s*["']?([0-9][0-9A-Za-z.\-]*)`)

// sniff tells Swagger 2.0 from OpenAPI 3 by content, not by file name.
func sniff(path string, data []byte) (docKind, string, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) == 0 {
		return 0, "", diag.At(diag.Pos{File: path, Line: 1, Col: 1}, "spec is empty")
	}
	var head struct {
		OpenAPI any `json:"openapi" yaml:"openapi"`
		Swagger any `json:"swagger" yaml:"swagger"`
	}
	if trimmed[0] == '{' {
		if err := json.Unmarshal(trimmed, &head); err != nil {
			return 0, "", syntaxError(path, data, err)
		}
	} else if m := topLevelVersion.FindSubmatch(data); m != nil {
		if string(m[1]) == "swagger" {
			head.Swagger = string(m[2])
		} else {
			head.OpenAPI = string(m[2])
		}
	} else if err := yaml.Unmarshal(data, &head); err != nil {
		return 0, "", syntaxError(path, data, err)
	}
	str := func(v any) string {
		if v == nil {
			return ""
		}
		s, _ := v.(string)
		if s == "" {
			s = strings.TrimSpace(strings.Trim(jsonString(v), `"`))
		}
		return s
	}
	switch sw, oa := str(head.Swagger), str(head.OpenAPI); {
	case strings.HasPrefix(sw, "2."):
		return swagger2, sw, nil
	case strings.HasPrefix(oa, "3."):
		return openAPI3, oa, nil
	case sw != "":
		return 0, "", diag.At(diag.Pos{File: path, Line: 1, Col: 1}, "unsupported swagger version %q: tailor reads Swagger 2.0 and OpenAPI 3.0/3.1", sw)
	case oa != "":
		return 0, "", diag.At(diag.Pos{File: path, Line: 1, Col: 1}, "unsupported openapi version %q: tailor reads Swagger 2.0 and OpenAPI 3.0/3.1", oa)
	}
	return 0, "", diag.At(diag.Pos{File: path, Line: 1, Col: 1}, "not an OpenAPI description: no top-level `openapi` or `swagger` field")
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
