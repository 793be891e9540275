package mcpkit

import (
	"bytes"
	"encoding/json"
	"mime"
	"strings"
	"unicode/utf8"
)

func isJSONType(ctype string) bool {
	mt, _, err := mime.ParseMediaType(ctype)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

func jsonLike(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && (b[0] == '{' || b[0] == '[')
}

// decodeJSON parses a JSON body keeping numbers exact, and returns it with
// its compact text (fewer tokens for the model, same content).
func decodeJSON(body []byte) (any, string, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, "", false
	}
	return v, compactJSON(body), true
}

func compactJSON(body []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, body); err != nil {
		return string(body)
	}
	return buf.String()
}

func isText(ctype string, body []byte) bool {
	mt, _, _ := mime.ParseMediaType(ctype)
	if strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+xml") || mt == "application/xml" || mt == "application/yaml" || mt == "application/x-yaml" {
		return true
	}
	return utf8.Valid(body) && !bytes.ContainsRune(body, 0)
}
