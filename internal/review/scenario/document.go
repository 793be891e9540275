package scenario

import (
	"regexp"
	"slices"
	"strconv"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/yamlwalk"
)

// Document is the frame that tailor's review input files share (the
// scenarios of tailor test, the tasks of tailor eval): a format version
// key, an env mapping, a list of uniquely named items, and keys of the
// file's own.
type Document struct {
	// Kind names the file in messages ("scenario file"); Item an entry of
	// its list ("scenario"), whose plural is the list's key.
	Kind, Item string
	// VersionKey holds the format version, which must be Version.
	VersionKey string
	Version    int
	// Env receives the file's env mapping.
	Env *[]EnvVar
	// Fields read the other top-level keys.
	Fields map[string]func(k, v *yaml.Node)
	// Entry reads the index-th (from 1) entry of the list and returns its
	// name, or false when it is not one.
	Entry func(n *yaml.Node, index int) (name string, ok bool)
}

// ParseDocument parses data as d with w, whose problems it collects and
// returns (a *diag.Errors, each problem at its file:line:col).
func ParseDocument(w *yamlwalk.Walker, data []byte, d Document) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return diag.YAML(w.Path, err)
	}
	list := d.Item + "s"
	if doc.Kind == 0 || len(doc.Content) == 0 {
		w.Errorf(&doc, "the %s is empty: it needs `%s: %d` and `%s:`", d.Kind, d.VersionKey, d.Version, list)
		return w.Diags.Err()
	}
	n := doc.Content[0]
	hasVersion, hasList := false, false
	fields := map[string]func(k, v *yaml.Node){
		d.VersionKey: func(k, v *yaml.Node) {
			hasVersion = true
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
				w.Errorf(v, "`%s` (the format version) must be %d, not %s", d.VersionKey, d.Version, diag.Describe(v))
			} else if i, _ := strconv.Atoi(v.Value); i != d.Version {
				w.Errorf(v, "%s format version %d is not supported: this tailor reads version %d", d.Item, i, d.Version)
			}
		},
		"env": func(k, v *yaml.Node) { *d.Env = ParseEnv(w, v, "env") },
		list: func(k, v *yaml.Node) {
			hasList = true
			names := map[string]*yaml.Node{}
			items := w.Items(v, list)
			if v.Kind == yaml.SequenceNode && len(items) == 0 {
				w.Errorf(v, "%s is empty: list at least one %s", list, d.Item)
			}
			for i, e := range items {
				name, ok := d.Entry(e, i+1)
				if !ok {
					continue
				}
				if first := names[name]; first != nil {
					w.Errorf(e, "two %s are named %q (the first at line %d): names must be unique", list, name, first.Line)
				}
				names[name] = e
			}
		},
	}
	for k, f := range d.Fields {
		fields[k] = f
	}
	if w.Fields(n, "the "+d.Kind, fields) {
		if !hasVersion {
			w.Errorf(n, "missing `%s: %d` (the %s format version) at the top of the file", d.VersionKey, d.Version, d.Item)
		}
		if !hasList {
			w.Errorf(n, "missing `%s:` (the list of %s)", list, list)
		}
	}
	return w.Diags.Err()
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ParseEnv reads a mapping of environment variables to values.
func ParseEnv(w *yamlwalk.Walker, n *yaml.Node, where string) []EnvVar {
	var out []EnvVar
	w.Entries(n, where, func(k, v *yaml.Node) {
		if !envName.MatchString(k.Value) {
			w.Errorf(k, "%q is not an environment variable name (letters, digits and _, not starting with a digit)", k.Value)
			return
		}
		if s, ok := w.Str(v, where+"."+k.Value); ok {
			out = append(out, EnvVar{Name: k.Value, Value: s})
		}
	})
	return out
}

// MappingValue returns the value of key in mapping n, or nil.
func MappingValue(n *yaml.Node, key string) *yaml.Node {
	n = yamlwalk.Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return yamlwalk.Resolve(n.Content[i+1])
		}
	}
	return nil
}

// Answers are the answers to an approval question (MCP elicitation).
var Answers = []string{"accept", "decline", "cancel"}

// ParseAnswer reads an answer to an approval question ("" when n is not
// one).
func ParseAnswer(w *yamlwalk.Walker, n *yaml.Node, what string) string {
	x, ok := w.Str(n, what)
	if !ok {
		return ""
	}
	if !slices.Contains(Answers, x) {
		w.Errorf(n, "%s %q is not one of accept, decline, cancel%s", what, x, diag.DidYouMean(x, Answers))
		return ""
	}
	return x
}
