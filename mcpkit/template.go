package mcpkit

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/template"

	"github.com/tailormcp/tailor/internal/jsonv"
)

// TemplateFuncs are the functions overlay templates may call, besides
// text/template's builtins (len, index, printf, ...). The generator parses
// every template with the same set, so a template that generates runs.
//
// Numbers in templates are the API's numbers exactly as it sent them
// (json.Number), so that ids and amounts print unchanged; the comparison
// functions (eq, ne, lt, le, gt, ge) replace text/template's own and
// compare numbers by value, whatever their type (`gt .body.credit 0`),
// and truthy makes a zero number false (see ParseTemplate).
func TemplateFuncs() template.FuncMap {
	return template.FuncMap{
		"money":  money,
		"join":   join,
		"pluck":  pluck,
		"json":   jsonv.Text,
		"eq":     eqFunc,
		"ne":     neFunc,
		"lt":     ltFunc,
		"le":     leFunc,
		"gt":     gtFunc,
		"ge":     geFunc,
		"truthy": truthy,
	}
}

// money formats an amount with thousands separators: 1430 → "1,430",
// 12.5 → "12.50".
func money(v any) string {
	f, ok := templateFloat(v)
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

// ParseTemplate parses an overlay template with tailor's functions. Missing
// keys are errors at run time rather than "<no value>" in front of the model.
//
// Every condition goes through truthy, so that a number is true when it is
// not zero: the pipeline of each if and with ends in `| truthy`, and each
// operand of and, or and not becomes `(truthy ...)`. text/template would otherwise
// take the API's numbers (json.Number, a string) as true even for 0.
func ParseTemplate(name, text string) (*template.Template, error) {
	t, err := template.New(name).Funcs(TemplateFuncs()).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, err
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			rewriteConditions(tt.Tree.Root)
		}
	}
	return t, nil
}

// executeTemplate runs t on data; its error, if any, is the template's
// own (callers log it and say so: a template's failure is never silent).
func executeTemplate(t *template.Template, w io.Writer, data any) error {
	return t.Execute(w, data)
}

// templateError shortens a template execution error for a message:
// `template: t:1:15: executing "t" at <.body.x>: map has no entry for key
// "x"` → `at <.body.x>: map has no entry for key "x"`.
func templateError(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, `" at <`); i >= 0 && strings.HasPrefix(msg, "template: ") {
		return msg[i+2:]
	}
	return strings.TrimPrefix(msg, "template: ")
}

// templateFloat is a number a template function is given: a JSON number,
// or text that reads as one.
func templateFloat(v any) (float64, bool) {
	if s, ok := v.(string); ok {
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	}
	return jsonv.Float(v)
}
