package mcpkit

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/template"
)

// TemplateFuncs are the functions overlay templates may call, besides
// text/template's builtins (len, index, printf, eq, ...). The generator
// parses every template with the same set, so a template that generates
// runs.
func TemplateFuncs() template.FuncMap {
	return template.FuncMap{
		"money": money,
		"join":  join,
		"pluck": pluck,
		"json":  jsonText,
	}
}

// money formats an amount with thousands separators: 1430 → "1,430",
// 12.5 → "12.50".
func money(v any) string {
	f, ok := toFloat(v)
	if !ok {
		return fmt.Sprint(v)
	}
	neg := f < 0
	f = math.Abs(f)
	whole := int64(f)
	frac := f - float64(whole)
	s := strconv.FormatInt(whole, 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := b.String()
	if frac > 0.0000001 {
		out += strings.TrimPrefix(strconv.FormatFloat(frac, 'f', 2, 64), "0")
	}
	if neg {
		out = "-" + out
	}
	return out
}

// join joins a list's elements with sep: join .body.tags ", ".
func join(list any, sep string) string {
	l, _ := list.([]any)
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = scalar(e)
	}
	return strings.Join(parts, sep)
}

// pluck takes one field of every object in a list: pluck .body.items "name".
func pluck(list any, field string) []any {
	l, _ := list.([]any)
	out := make([]any, 0, len(l))
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m[field])
		}
	}
	return out
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

// ParseTemplate parses an overlay template with tailor's functions. Missing
// keys are errors at run time rather than "<no value>" in front of the model.
func ParseTemplate(name, text string) (*template.Template, error) {
	return template.New(name).Funcs(TemplateFuncs()).Option("missingkey=error").Parse(text)
}
