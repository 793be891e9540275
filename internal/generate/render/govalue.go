package render

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// goValue prints a value of mcpkit's types as a Go composite literal, for
// go/format to lay out: the set fields of each struct in declaration order,
// one per line at the top level; a slice of structs one element per line;
// everything else on one line. Fields a Go value cannot be printed for
// (functions, and what the caller prints itself, such as a schema's
// constant) go through custom, given the field's path ("InputSchema",
// "Steps[1].Request"); it returns false to print the value as it is.
type goValue struct {
	custom func(path string, v reflect.Value) (string, bool)
}

func (p *goValue) print(v any) string {
	var b strings.Builder
	p.value(&b, "", reflect.ValueOf(v), true, true)
	return b.String()
}

// value prints v; typed says whether the literal needs its type (not in a
// slice or map whose type gives it), top whether its fields go one per
// line.
func (p *goValue) value(b *strings.Builder, path string, v reflect.Value, typed, top bool) {
	switch v.Kind() {
	case reflect.Pointer:
		b.WriteString("&")
		p.value(b, path, v.Elem(), true, top)
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		p.value(b, path, v.Elem(), true, false)
	case reflect.Struct:
		if typed {
			b.WriteString(typeName(v.Type()))
		}
		b.WriteString("{")
		n := 0
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			fpath := join(path, f.Name)
			s, ok := p.customized(fpath, v.Field(i))
			if !ok && v.Field(i).IsZero() {
				continue
			}
			if top {
				b.WriteString("\n")
			} else if n > 0 {
				b.WriteString(", ")
			}
			n++
			b.WriteString(f.Name + ": ")
			if ok {
				b.WriteString(s)
			} else {
				p.value(b, fpath, v.Field(i), true, false)
			}
			if top {
				b.WriteString(",")
			}
		}
		if top && n > 0 {
			b.WriteString("\n")
		}
		b.WriteString("}")
	case reflect.Slice:
		if typed {
			b.WriteString(typeName(v.Type()))
		}
		b.WriteString("{")
		lines := v.Type().Elem().Kind() == reflect.Struct && v.Len() > 0
		for i := 0; i < v.Len(); i++ {
			if lines {
				b.WriteString("\n")
			} else if i > 0 {
				b.WriteString(", ")
			}
			p.value(b, path+"["+strconv.Itoa(i)+"]", v.Index(i), false, false)
			if lines {
				b.WriteString(",")
			}
		}
		if lines {
			b.WriteString("\n")
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
			p.value(b, path+"["+k.String()+"]", v.MapIndex(k), false, false)
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
