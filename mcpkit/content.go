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

// decodeJSON parses a JSON body keeping numbers exact: one value and
// nothing after it.
func decodeJSON(body []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	// `{"a":1} <html>` is not JSON.
	if len(bytes.TrimSpace(body[dec.InputOffset():])) > 0 {
		return nil, false
	}
	return v, true
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
