package load

import (
	"encoding/json"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
)

// levels decodes the objects of a Swagger 2.0 JSON text into kin-openapi's
// types one level at a time (unmarshalSwagger2Split); one per goroutine.
type levels struct {
	x      *jsonIndex
	buf    []byte // the text of the level being decoded
	params *paramMemo
}

// field is a member of a kin-openapi type decoded on its own when its
// value is of kind ('{' or '['): set decodes node c into v.
type field[T any] struct {
	name string
	kind byte
	set  func(l *levels, v *T, c int32) error
}

// part is a member decoded on its own: fields[field] at node.
type part struct {
	field int
	node  int32
}

// splitMembers lists the members of object n that are decoded on their
// own, in order, or says the object is to be decoded whole.
func splitMembers[T any](x *jsonIndex, n int32, fields []field[T]) (parts []part, whole bool) {
	var seen uint64
	x.children(n, func(c int32) bool {
		for i, f := range fields {
			if x.keyIs(c, f.name) {
				if seen&(1<<i) != 0 {
					whole = true
					return false
				}
				seen |= 1 << i
				if x.nodes[c].kind == f.kind {
					parts = append(parts, part{i, c})
				}
				return true
			}
			if x.keyFolds(c, f.name) {
				whole = true
				return false
			}
		}
		return true
	})
	return parts, whole
}

// decodeRest has v (a kin-openapi type) decode object n without the
// members in parts.
func (l *levels) decodeRest(v json.Unmarshaler, n int32, parts []part) error {
	if len(parts) == 0 {
		return v.UnmarshalJSON(l.x.raw(n))
	}
	l.buf = append(l.buf[:0], '{')
	next := 0
	l.x.children(n, func(c int32) bool {
		if next < len(parts) && parts[next].node == c {
			next++
			return true
		}
		if len(l.buf) > 1 {
			l.buf = append(l.buf, ',')
		}
		node := l.x.nodes[c]
		l.buf = append(l.buf, l.x.data[node.keyAt:node.keyEnd]...)
		l.buf = append(l.buf, ':')
		l.buf = append(l.buf, l.x.data[node.at:node.end]...)
		return true
	})
	l.buf = append(l.buf, '}')
	return v.UnmarshalJSON(l.buf)
}

// object decodes object n into a new T: its own level by T's
// UnmarshalJSON, the members named in fields on their own.
func object[T any, PT interface {
	*T
	json.Unmarshaler
}](l *levels, n int32, fields []field[T]) (*T, error) {
	v := PT(new(T))
	parts, whole := splitMembers(l.x, n, fields)
	if whole {
		return v, v.UnmarshalJSON(l.x.raw(n))
	}
	if err := l.decodeRest(v, n, parts); err != nil {
		return nil, err
	}
	for _, p := range parts {
		if err := fields[p.field].set(l, v, p.node); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// single decodes node c into a *V as encoding/json would in a field of
// that type: an object one level at a time by decode, anything else (null
// is nil) by encoding/json.
func single[V any](l *levels, c int32, decode func(*levels, int32) (*V, error)) (*V, error) {
	if l.x.nodes[c].kind == '{' {
		return decode(l, c)
	}
	var v *V
	err := json.Unmarshal(l.x.raw(c), &v)
	return v, err
}

// list decodes array n into a []*V, as encoding/json would.
func list[V any](l *levels, n int32, decode func(*levels, int32) (*V, error)) ([]*V, error) {
	out := make([]*V, 0, l.x.nodes[n].n)
	var err error
	l.x.children(n, func(c int32) bool {
		var v *V
		v, err = single(l, c, decode)
		out = append(out, v)
		return err == nil
	})
	return out, err
}

// dict decodes object n into a map[string]*V, as encoding/json would (of a
// key written twice, the last wins).
func dict[V any](l *levels, n int32, decode func(*levels, int32) (*V, error)) (map[string]*V, error) {
	out := make(map[string]*V, l.x.nodes[n].n)
	var err error
	l.x.children(n, func(c int32) bool {
		var v *V
		v, err = single(l, c, decode)
		out[l.x.key(c)] = v
		return err == nil
	})
	return out, err
}

// The members of each kin-openapi type that hold objects of its types, as
// its UnmarshalJSON names them (and drops them from its extensions).
var (
	docFields       []field[openapi2.T]
	pathItemFields  []field[openapi2.PathItem]
	operationFields []field[openapi2.Operation]
	parameterFields []field[openapi2.Parameter]
	responseFields  []field[openapi2.Response]
	schemaFields    []field[openapi2.Schema]
)

func init() {
	docFields = []field[openapi2.T]{
		{"paths", '{', nil}, // decoded as jobs (unmarshalSwagger2Split)
		{"definitions", '{', nil},
		{"parameters", '{', func(l *levels, v *openapi2.T, c int32) (err error) {
			v.Parameters, err = dict(l, c, (*levels).parameter)
			return err
		}},
		{"responses", '{', func(l *levels, v *openapi2.T, c int32) (err error) {
			v.Responses, err = dict(l, c, (*levels).response)
			return err
		}},
	}
	operation := func(name string, at func(*openapi2.PathItem) **openapi2.Operation) field[openapi2.PathItem] {
		return field[openapi2.PathItem]{name, '{', func(l *levels, v *openapi2.PathItem, c int32) (err error) {
			*at(v), err = l.operation(c)
			return err
		}}
	}
	pathItemFields = []field[openapi2.PathItem]{
		operation("delete", func(p *openapi2.PathItem) **openapi2.Operation { return &p.Delete }),
		operation("get", func(p *openapi2.PathItem) **openapi2.Operation { return &p.Get }),
		operation("head", func(p *openapi2.PathItem) **openapi2.Operation { return &p.Head }),
		operation("options", func(p *openapi2.PathItem) **openapi2.Operation { return &p.Options }),
		operation("patch", func(p *openapi2.PathItem) **openapi2.Operation { return &p.Patch }),
		operation("post", func(p *openapi2.PathItem) **openapi2.Operation { return &p.Post }),
		operation("put", func(p *openapi2.PathItem) **openapi2.Operation { return &p.Put }),
	}
	pathItemFields = append(pathItemFields, field[openapi2.PathItem]{"parameters", '[', func(l *levels, v *openapi2.PathItem, c int32) (err error) {
		v.Parameters, err = list(l, c, (*levels).parameter)
		return err
	}})
	operationFields = []field[openapi2.Operation]{
		{"parameters", '[', func(l *levels, v *openapi2.Operation, c int32) (err error) {
			v.Parameters, err = list(l, c, (*levels).parameter)
			return err
		}},
		{"responses", '{', func(l *levels, v *openapi2.Operation, c int32) (err error) {
			v.Responses, err = l.responses(c)
			return err
		}},
	}
	parameterFields = []field[openapi2.Parameter]{
		schemaRefField("schema", func(p *openapi2.Parameter) **openapi2.SchemaRef { return &p.Schema }),
		schemaRefField("items", func(p *openapi2.Parameter) **openapi2.SchemaRef { return &p.Items }),
	}
	responseFields = []field[openapi2.Response]{
		schemaRefField("schema", func(r *openapi2.Response) **openapi2.SchemaRef { return &r.Schema }),
	}
	schemaFields = []field[openapi2.Schema]{
		{"allOf", '[', func(l *levels, v *openapi2.Schema, c int32) (err error) {
			v.AllOf, err = list(l, c, (*levels).schemaRef)
			return err
		}},
		schemaRefField("not", func(s *openapi2.Schema) **openapi2.SchemaRef { return &s.Not }),
		schemaRefField("items", func(s *openapi2.Schema) **openapi2.SchemaRef { return &s.Items }),
		{"properties", '{', func(l *levels, v *openapi2.Schema, c int32) (err error) {
			v.Properties, err = dict(l, c, (*levels).schemaRef)
			return err
		}},
	}
}

// schemaRefField is a member of T that holds a schema, at at.
func schemaRefField[T any](name string, at func(*T) **openapi2.SchemaRef) field[T] {
	return field[T]{name, '{', func(l *levels, v *T, c int32) (err error) {
		*at(v), err = l.schemaRef(c)
		return err
	}}
}

func (l *levels) pathItem(n int32) (*openapi2.PathItem, error) {
	return object(l, n, pathItemFields)
}

func (l *levels) operation(n int32) (*openapi2.Operation, error) {
	return object(l, n, operationFields)
}

// parameter decodes a parameter, or copies one decoded from the same text:
// generated specs repeat their parameters in every operation (kubernetes:
// 4,512 parameters of 165 texts, 2 MB of its 3.3 MB), and a copy costs a
// fraction of a decode.
func (l *levels) parameter(n int32) (*openapi2.Parameter, error) {
	raw := l.x.raw(n)
	if p := l.params.get(raw); p != nil {
		return cloneParameter(p), nil
	}
	p, err := object(l, n, parameterFields)
	if err == nil && p.Schema == nil && p.Items == nil {
		l.params.put(raw, cloneParameter(p))
	}
	return p, err
}

func (l *levels) response(n int32) (*openapi2.Response, error) {
	return object(l, n, responseFields)
}

func (l *levels) schema(n int32) (*openapi2.Schema, error) {
	return object(l, n, schemaFields)
}

// responses is Responses.UnmarshalJSON one level at a time: extensions are
// the members named x-, every other member is a response.
func (l *levels) responses(n int32) (*openapi2.Responses, error) {
	rs := openapi2.NewResponsesWithCapacity(int(l.x.nodes[n].n))
	var err error
	l.x.children(n, func(c int32) bool {
		key := l.x.key(c)
		if strings.HasPrefix(key, "x-") {
			var ext any
			if err = json.Unmarshal(l.x.raw(c), &ext); err != nil {
				return false
			}
			if rs.Extensions == nil {
				rs.Extensions = map[string]any{}
			}
			rs.Extensions[key] = ext
			return true
		}
		var r *openapi2.Response
		r, err = single(l, c, (*levels).response)
		rs.Set(key, r)
		return err == nil
	})
	return rs, err
}

// schemaRef is SchemaRef.UnmarshalJSON one level at a time: a $ref (a
// member encoding/json would read as one) is left to it, anything else is
// the schema.
func (l *levels) schemaRef(n int32) (*openapi2.SchemaRef, error) {
	ref := false
	l.x.children(n, func(c int32) bool {
		ref = l.x.keyFolds(c, "$ref")
		return !ref
	})
	if ref {
		r := &openapi2.SchemaRef{}
		return r, r.UnmarshalJSON(l.x.raw(n))
	}
	s, err := l.schema(n)
	return &openapi2.SchemaRef{Value: s}, err
}
