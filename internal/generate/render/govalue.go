package render

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// goValue prints a value of mcpkit's types as a Go composite literal: the
// set fields of each struct in declaration order, one per line at the top
// level; a slice of structs one element per line; everything else on one
// line. Fields a Go value cannot be printed for (functions, and what the
// caller prints itself, such as a schema's constant) go through custom,
// given the field's path ("InputSchema", "Steps[1].Request"); it returns
// false to print the value as it is.
//
// The literal comes out as gofmt prints it (indented, the top level's
// one-line fields aligned in runs as go/printer aligns them), so that
// render need not format it; a value whose layout gofmt would decide
// otherwise (a one-line field too long for go/printer to align, a list of
// lines inside a one-line value) leaves canonical false, and render
// formats its part.
type goValue struct {
	custom func(path string, v reflect.Value) (string, bool)
	// canonical is cleared when the literal may not be in gofmt's form.
	canonical bool
}

// alignMax is the longest one-line field value printed as gofmt would
// align it: go/printer aligns a key: value pair only when it is shorter
// than 1e6 bytes; well below that, render need not know the exact bound.
const alignMax = 500_000

func (p *goValue) print(v any) string {
	var b strings.Builder
	p.canonical = true
	p.value(&b, "", reflect.ValueOf(v), true, true, 0)
	return b.String()
}

// value prints v; typed says whether the literal needs its type (not in a
// slice or map whose type gives it), top whether its fields go one per
// line. depth is the indentation of the line v starts on, or -1 inside a
// value printed on one line.
func (p *goValue) value(b *strings.Builder, path string, v reflect.Value, typed, top bool, depth int) {
	switch v.Kind() {
	case reflect.Pointer:
		b.WriteString("&")
		p.value(b, path, v.Elem(), true, top, depth)
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		p.value(b, path, v.Elem(), true, false, -1)
	case reflect.Struct:
		if typed {
			b.WriteString(typeName(v.Type()))
		}
		if top {
			p.fields(b, path, v, depth)
			return
		}
		b.WriteString("{")
		n := 0
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			s, ok := p.customized(join(path, f.Name), v.Field(i))
			if !ok && v.Field(i).IsZero() {
				continue
			}
			if n > 0 {
				b.WriteString(", ")
			}
			n++
			b.WriteString(f.Name + ": ")
			if ok {
				b.WriteString(s)
			} else {
				p.value(b, join(path, f.Name), v.Field(i), true, false, -1)
			}
		}
		b.WriteString("}")
	case reflect.Slice:
		if typed {
			b.WriteString(typeName(v.Type()))
		}
		b.WriteString("{")
		lines := v.Type().Elem().Kind() == reflect.Struct && v.Len() > 0
		if lines && depth < 0 {
			p.canonical = false // gofmt lays out lines inside a one-line value its own way
		}
		for i := 0; i < v.Len(); i++ {
			if lines {
				newline(b, depth+1)
			} else if i > 0 {
				b.WriteString(", ")
			}
			p.value(b, path+"["+strconv.Itoa(i)+"]", v.Index(i), false, false, -1)
			if lines {
				b.WriteString(",")
			}
		}
		if lines {
			newline(b, depth)
		}
		b.WriteString("}")
	case reflect.Map:
		b.WriteString(typeName(v.Type()) + "{")
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(goString(k.String()) + ": ")
			p.value(b, path+"["+k.String()+"]", v.MapIndex(k), false, false, -1)
		}
		b.WriteString("}")
	case reflect.String:
		b.WriteString(goString(v.String()))
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Float64:
		b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	default:
		panic(fmt.Sprintf("tailor: render cannot print a %s (%s)", v.Type(), path))
	}
}

// fields prints a struct's set fields one per line, as gofmt lays them
// out: a run of fields whose values fit on one line share a column for
// their values (the widest key's, plus one space); a value of several
// lines stands alone, after one space.
func (p *goValue) fields(b *strings.Builder, path string, v reflect.Value, depth int) {
	if depth < 0 {
		p.canonical = false
		depth = 0
	}
	type field struct{ name, value string }
	var fields []field
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		s, ok := p.customized(join(path, f.Name), v.Field(i))
		if !ok {
			if v.Field(i).IsZero() {
				continue
			}
			var fb strings.Builder
			p.value(&fb, join(path, f.Name), v.Field(i), true, false, depth+1)
			s = fb.String()
		}
		if len(s) > alignMax {
			p.canonical = false
		}
		fields = append(fields, field{f.Name, s})
	}
	oneLine := func(i int) bool { return !strings.Contains(fields[i].value, "\n") }
	b.WriteString("{")
	for i := 0; i < len(fields); {
		// The run of one-line fields from i: its values line up.
		end, width := i, 0
		for end < len(fields) && oneLine(end) {
			width = max(width, len(fields[end].name))
			end++
		}
		if end == i { // several lines: alone, not aligned
			end, width = i+1, len(fields[i].name)
		}
		for ; i < end; i++ {
			newline(b, depth+1)
			b.WriteString(fields[i].name)
			b.WriteString(":")
			b.WriteString(strings.Repeat(" ", width-len(fields[i].name)+1))
			b.WriteString(fields[i].value)
			b.WriteString(",")
		}
	}
	if len(fields) > 0 {
		newline(b, depth)
	}
	b.WriteString("}")
}

// newline starts a line indented depth tabs.
func newline(b *strings.Builder, depth int) {
	b.WriteByte('\n')
	for range depth {
		b.WriteByte('\t')
	}
}

func (p *goValue) customized(path string, v reflect.Value) (string, bool) {
	if p.custom == nil {
		return "", false
	}
	return p.custom(path, v)
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// typeName is how generated code names t: mcpkit's types qualified, any
// for the empty interface.
func typeName(t reflect.Type) string {
	return strings.ReplaceAll(t.String(), "interface {}", "any")
}
