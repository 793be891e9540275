// Package jsonv holds helpers for JSON values as encoding/json decodes
// them into `any` (map[string]any, []any, json.Number or float64, string,
// bool, nil), used by the generator's stages and by mcpkit alike.
package jsonv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// DeepCopy copies v's objects and arrays, so that the copy can be changed
// without changing v.
func DeepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = DeepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = DeepCopy(e)
		}
		return l
	}
	return v
}

// Float is v as a float64 when it is a number (json.Number, or a Go
// number as a template or a decoder leaves it).
func Float(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float32:
		return float64(x), true
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// Text is v as compact JSON, as a person reads it in a message (<, > and
// & as they are); a value JSON cannot hold is printed with fmt.
func Text(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimRight(buf.String(), "\n")
}

// Depth is the deepest nesting of arrays and objects in a JSON text,
// counted without decoding it (strings are skipped).
func Depth(b []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, ch := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case ch == '\\':
				escaped = true
			case ch == '"':
				inString = false
			}
		case ch == '"':
			inString = true
		case ch == '{' || ch == '[':
			depth++
			deepest = max(deepest, depth)
		case ch == '}' || ch == ']':
			depth--
		}
	}
	return deepest
}
