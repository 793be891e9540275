package load

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/load/specfile"
)

// explainLoadError turns a kin-openapi load failure into positioned errors.
// kin-openapi names the $ref or the parse problem but rarely where it is, so
// the files are re-read here, only on this failure path, to find the place:
// the $ref that failed, the syntax error, or the value of the wrong type.
// An object written as anything else is not looked for here: the repair
// pass, which runs first on any spec kin-openapi refuses, reports each at
// its value (TestNonObjectsAreTheRepairPasss).
func explainLoadError(path string, data []byte, fetch *specfile.Reader, err error) error {
	src := newSources(path, data, fetch)
	msg := err.Error()

	var rr *specfile.RemoteRefError
	if errors.As(err, &rr) {
		at, ref := src.findRef(func(_ *source, v string) bool { return strings.HasPrefix(v, rr.URL) })
		if ref == "" {
			ref = rr.URL
		}
		return diag.At(at, "remote $ref %q refused: tailor does not fetch URLs named by a spec; run with --allow-remote-refs to allow it", ref)
	}
	var out *specfile.OutsideRootError
	if errors.As(err, &out) {
		at, ref := src.findRef(func(f *source, v string) bool { return f.resolve(v) == out.Path })
		return diag.At(at, "%s", out.Message(ref))
	}

	// A file that does not parse, the root or one it refers to, is reported
	// with the parser's own position.
	if f := src.unparsable(); f != nil {
		return f.syntaxErr
	}

	// "error resolving reference X: ..." says the rest concerns the file X
	// names (kin-openapi nests one prefix per hop).
	file := src.root
	for _, m := range resolving.FindAllStringSubmatch(msg, -1) {
		if f := src.target(m[1]); f != nil {
			file = f
		}
	}

	var pe *fs.PathError
	if errors.As(err, &pe) && resolving.MatchString(msg) {
		want := filepath.Clean(pe.Path)
		at, ref := src.findRef(func(f *source, v string) bool { return f.resolve(v) == want })
		if ref == "" {
			ref = resolving.FindStringSubmatch(msg)[1]
		}
		return diag.At(at, "cannot resolve $ref %q: cannot read %s: %v", ref, src.show(want), pe.Err)
	}
	if m := badFragment.FindStringSubmatch(msg); m != nil {
		at, ref := src.findRef(refNamed(m[2])...)
		if ref == "" {
			return diag.At(at, "cannot resolve $ref %q: %q not found", m[2], m[1])
		}
		in := at.File
		if f := src.target(ref); f != nil {
			in = f.show
		}
		return diag.At(at, "cannot resolve $ref %q: %q not found in %s", ref, m[1], in)
	}
	if m := badData.FindStringSubmatch(msg); m != nil {
		at, ref := src.findRef(refNamed(m[1])...)
		if ref == "" {
			ref = m[1]
		}
		return diag.At(at, "cannot resolve $ref %q: what it points at is not a valid %s", ref, strings.TrimPrefix(m[2], "ref to "))
	}

	var les *yaml.LoadErrors
	if errors.As(err, &les) && len(les.Errors) > 0 {
		var l diag.List
		for _, e := range les.Errors {
			l.Errorf(file.pos(e.Mark), "", "%s", decodeMessage(e.Message))
		}
		return l.Err()
	}
	var le *yaml.LoadError
	if errors.As(err, &le) {
		return diag.At(file.pos(le.Mark), "%s", decodeMessage(le.Message))
	}

	if m := anchorCycle.FindStringSubmatch(msg); m != nil {
		if n := findAnchor(file.node, m[1]); n != nil {
			return diag.At(file.pos(yaml.Mark{Line: n.Line, Column: n.Column}), "YAML anchor &%s contains an alias to itself", m[1])
		}
	}
	if m := atLine.FindStringSubmatchIndex(msg); m != nil {
		line, _ := strconv.Atoi(msg[m[2]:m[3]])
		return diag.At(file.pos(yaml.Mark{Line: line, Column: firstColumn(file.data, line)}), "%s", msg[m[1]:])
	}

	at := diag.Pos{File: path}
	if m := resolving.FindStringSubmatch(msg); m != nil {
		at, _ = src.findRef(refNamed(m[1])...)
	} else if m := quoted.FindStringSubmatch(msg); m != nil {
		if p, ref := src.findRef(refNamed(m[1])...); ref != "" {
			at = p
		}
	}
	msg = strings.TrimPrefix(strings.TrimPrefix(msg, "failed to unmarshal data: "), "yaml error: ")
	return diag.At(at, "cannot load spec: %s", src.scrub(msg))
}

var (
	resolving   = regexp.MustCompile(`error resolving reference "([^"]*)": `)
	badFragment = regexp.MustCompile(`failed to resolve "([^"]*)" in fragment in URI: "([^"]*)"`)
	badData     = regexp.MustCompile(`bad data in "([^"]*)" \(expecting ([^)]*)\)`)
	quoted      = regexp.MustCompile(`"(#[^"]*)"`)
	anchorCycle = regexp.MustCompile(`anchor "([^"]*)" value contains itself`)
	atLine      = regexp.MustCompile(`(?:^|: )line (\d+): `)
)

// findAnchor returns the node that defines anchor name.
func findAnchor(n *yaml.Node, name string) *yaml.Node {
	if n == nil || n.Kind == yaml.AliasNode {
		return nil
	}
	if n.Anchor == name {
		return n
	}
	for _, c := range n.Content {
		if r := findAnchor(c, name); r != nil {
			return r
		}
	}
	return nil
}

// firstColumn is the column of the first non-blank character of a line.
func firstColumn(data []byte, line int) int {
	lines := bytes.Split(data, []byte{'\n'})
	if line < 1 || line > len(lines) {
		return 0
	}
	l := lines[line-1]
	return len(l) - len(bytes.TrimLeft(l, " \t")) + 1
}

// refNamed matches the $ref kin-openapi names in a message: as written, by
// its fragment (kin-openapi names the fragment only once it has opened the
// file), or by what Swagger 2.0 called it before conversion.
func refNamed(ref string) []func(*source, string) bool {
	frag := ref
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		frag = ref[i:]
	}
	v2 := frag
	for v3, old := range map[string]string{"#/components/schemas/": "#/definitions/", "#/components/parameters/": "#/parameters/", "#/components/responses/": "#/responses/"} {
		if strings.HasPrefix(frag, v3) {
			v2 = old + strings.TrimPrefix(frag, v3)
		}
	}
	return []func(*source, string) bool{
		func(_ *source, v string) bool { return v == ref },
		func(_ *source, v string) bool { return frag != "" && strings.HasSuffix(v, frag) },
		func(_ *source, v string) bool { return strings.HasSuffix(v, v2) },
	}
}

// decodeMessage rewords a YAML decoding error in the user's terms: YAML
// tags become kinds of value and Go type names lose their package.
func decodeMessage(msg string) string {
	if m := construct.FindStringSubmatch(msg); m != nil {
		what := expected(m[3])
		where := ""
		if m[4] != "" {
			where = " at #" + m[4]
		}
		return fmt.Sprintf("wrong type%s: found %s where %s is expected", where, specfile.TagKind(m[1]), what)
	}
	if m := stringField.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("wrong type: `%s` must be a string, not %s (quote the value)", m[2], specfile.TagKind(m[1]))
	}
	return strings.TrimPrefix(msg, "yaml: ")
}

var (
	construct   = regexp.MustCompile("^cannot (?:construct|unmarshal) (!!\\w+)( `[^`]*`)? into (\\S+)(?: in (/\\S*))?$")
	stringField = regexp.MustCompile(`^cannot unmarshal (!!\w+) into string field "([^"]*)"$`)
)

// expected names what a kin-openapi type holds: "openapi3.Parameters" is a
// list of parameters, "openapi3.Info" an Info object.
func expected(goType string) string {
	switch {
	case strings.HasPrefix(goType, "map["), strings.HasPrefix(goType, "*map["):
		return "a mapping"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	}
	name := goType[strings.LastIndexByte(goType, '.')+1:]
	switch name {
	case "Parameters", "Servers", "Tags", "SecurityRequirements":
		return "a list of " + strings.ToLower(name[:1]) + name[1:]
	case "SchemaRefs":
		return "a list of schemas"
	case "Types":
		return "a type name or a list of them"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "uint64", "float64":
		return "a number"
	}
	article := "a"
	if name != "" && strings.ContainsRune("AEIOU", rune(name[0])) {
		article = "an"
	}
	return article + " " + name + " object"
}
