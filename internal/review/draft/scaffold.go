// Package scaffold drafts an overlay from a spec's raw tool set, for
// `tailor init`: every operation listed as a tool, grouped by tag, with its
// current description, what `tailor lint` finds about it, and the
// identity-like and money-like parameters called out with the overlay
// lines that would fix them, commented out. The draft parses and generates
// as it is (the same tools as the raw set), so a team starts from a
// working file and curates it step by step.
package draft

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/review/lint"
)

// SchemaURL is the overlay JSON Schema editors are pointed at.
const SchemaURL = "https://raw.githubusercontent.com/tailormcp/tailor/main/overlays/overlay.schema.json"

// Options name the files in the draft's comments.
type Options struct {
	// SpecPath and OverlayPath are the paths the draft's comments use in
	// the commands they suggest.
	SpecPath    string
	OverlayPath string
}

// Overlay drafts an overlay for raw, the spec's raw tool set.
func Overlay(raw *ir.API, opts Options) []byte {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	spec, out := opts.SpecPath, opts.OverlayPath
	if out == "" {
		out = "overlay.yaml"
	}

	findings := map[string][]lint.Finding{}
	res := lint.Run(raw, raw, nil, lint.Options{})
	for _, f := range res.Findings {
		findings[f.Tool] = append(findings[f.Tool], f)
	}
	quote := ""
	for _, t := range raw.Tools {
		if lint.QuoteOperation(t.Call) {
			quote = describe(t.Call)
			break
		}
	}
	ids := map[string]int{}
	for _, t := range raw.Tools {
		if t.Call.OperationID != "" {
			ids[t.Call.OperationID]++
		}
	}

	w("# yaml-language-server: $schema=%s\n", SchemaURL)
	w("#\n")
	title := raw.Title
	if raw.Version != "" {
		title += " " + raw.Version
	}
	w("# A first draft of a tailor overlay for %s (%s), written by `tailor init`.\n", spec, strings.TrimSpace(title))
	w("# Every operation is listed as a tool, grouped by tag, with its current description: as it is,\n")
	w("# this file generates the raw tool set (%d tools, about %s tokens of tools/list, an\n", len(raw.Tools), thousands(res.Tokens))
	w("# o200k_base estimate). Curate from here:\n")
	w("#   - delete the tools the agent does not need (or give them `hidden: true`);\n")
	w("#   - rewrite each description: what the tool does, when to use it, when not, what it returns;\n")
	w("#   - take identities from the caller's context (server.context, `from: context.<name>`);\n")
	w("#   - let the backend compute amounts (a quote tool and a confirm tool) instead of the model.\n")
	w("# `# lint:` lines say what `tailor lint` finds today. Check your changes with:\n")
	w("#   tailor lint --spec %s --overlay %s\n", spec, out)
	w("#   tailor diff --spec %s --overlay %s\n", spec, out)
	w("tailor: 1\n\n")

	// Identity-like parameters become context value suggestions.
	contexts := map[string]string{}
	for _, t := range raw.Tools {
		for _, a := range modelArgs(t) {
			if lint.IdentityLike(a) {
				name, src := contextFor(a)
				contexts[name] = src
			}
		}
	}
	w("# server:\n")
	w("#   name: %s\n", raw.Name)
	w("#   instructions: One or two sentences on what these tools are for and for whom.\n")
	if len(contexts) > 0 {
		w("#   context:   # values taken from the caller (request header, token claim, environment), never from the model\n")
		names := make([]string, 0, len(contexts))
		for n := range contexts {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			w("#     %s: %s\n", n, contexts[n])
		}
	}
	w("\ninclude: listed   # only the tools below; `all` also keeps every other operation as a raw tool\n\n")
	if len(raw.Tools) == 0 {
		w("tools: {}   # the spec has no operations\n")
		return b.Bytes()
	}
	w("tools:\n")

	for _, g := range groups(raw) {
		w("\n  # ── %s %s\n", g.tag, strings.Repeat("─", max(3, 60-len(g.tag))))
		for _, t := range g.tools {
			w("\n  # %s\n", describe(t.Call))
			for _, f := range findings[t.Name] {
				w("  # lint: %s (%s): %s\n", f.Rule, f.Severity, oneLine(strings.TrimPrefix(f.Message, "tool `"+t.Name+"`: ")))
			}
			w("  %s:\n", t.Name)
			ref := t.Call.OperationID
			if ref == "" || ids[ref] > 1 {
				ref = t.Call.Method + " " + t.Call.Path
			}
			w("    operation: %s\n", scalar(ref))
			w("%s", indent(field("description", t.Description), "    "))
			var notes []string
			for _, a := range modelArgs(t) {
				switch {
				case lint.IdentityLike(a):
					name, _ := contextFor(a)
					notes = append(notes, fmt.Sprintf("%s: {from: context.%s}   # identity-like: the caller's, not the model's choice", key(a), name))
				case lint.MoneyLike(a) && !t.Annotations.ReadOnly:
					why := "money-like: make sure the model is not the one computing it"
					if quote != "" && !lint.QuoteOperation(t.Call) {
						why = "money-like: " + quote + " can quote it; a quote tool and a confirm tool keep the model out of the arithmetic"
					}
					notes = append(notes, fmt.Sprintf("%s: {description: \"...\"}   # %s", key(a), why))
				}
			}
			if len(notes) > 0 {
				w("    # params:\n")
				for _, n := range notes {
					w("    #   %s\n", n)
				}
			}
		}
	}
	return b.Bytes()
}

type group struct {
	tag   string
	tools []*ir.Tool
}

// groups orders tools by their first tag, tags in order of first use.
func groups(api *ir.API) []*group {
	var out []*group
	byTag := map[string]*group{}
	for _, t := range api.Tools {
		tag := "untagged"
		if len(t.Call.Tags) > 0 && strings.TrimSpace(t.Call.Tags[0]) != "" {
			tag = oneLine(t.Call.Tags[0])
		}
		g := byTag[tag]
		if g == nil {
			g = &group{tag: tag}
			byTag[tag] = g
			out = append(out, g)
		}
		g.tools = append(g.tools, t)
	}
	return out
}

// modelArgs are the arguments the model fills, by raw name.
func modelArgs(t *ir.Tool) []string {
	var out []string
	for _, p := range t.Call.Params {
		if p.Arg != "" {
			out = append(out, p.Arg)
		}
	}
	if b := t.Call.Body; b != nil {
		for _, f := range b.Fields {
			if f.Arg != "" {
				out = append(out, f.Arg)
			}
		}
	}
	return out
}

// contextFor suggests a context value for an identity-like argument:
// X-Customer-Id → customer_id: {header: X-Customer-Id, env: CUSTOMER_ID}.
func contextFor(arg string) (name, sources string) {
	var w []string
	for _, x := range strings.FieldsFunc(snake(arg), func(r rune) bool { return r == '_' }) {
		w = append(w, x)
	}
	if len(w) > 0 && w[0] == "x" {
		w = w[1:]
	}
	name = strings.Join(w, "_")
	header := "X"
	for _, x := range w {
		header += "-" + strings.ToUpper(x[:1]) + x[1:]
	}
	return name, fmt.Sprintf("{header: %s, claim: %s, env: %s}", header, name, strings.ToUpper(name))
}

func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			if i > 0 && s[i-1] >= 'a' && s[i-1] <= 'z' {
				b.WriteByte('_')
			}
			b.WriteRune(r + 'a' - 'A')
		case r == '-' || r == '.' || r == ' ':
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func describe(c *ir.Call) string {
	s := c.Method + " " + c.Path
	if c.OperationID != "" {
		s += " (" + c.OperationID + ")"
	}
	return oneLine(s)
}

var trailingSpace = regexp.MustCompile(`[ \t]\n`)

// field renders `name: value` as YAML, a literal block for multi-line text.
func field(name, value string) string {
	v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
	// A literal block, unless a line ends in a space an editor would
	// strip without anyone seeing it: then quoted, with \n.
	switch {
	case trailingSpace.MatchString(value):
		v.Style = yaml.DoubleQuotedStyle
	case strings.Contains(value, "\n"):
		v.Style = yaml.LiteralStyle
	}
	doc := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}, v}}
	// As yaml.v3 wrote it: indented by two, long lines not folded.
	out, err := yaml.Dump(doc, yaml.WithV3Defaults(), yaml.WithIndent(2), yaml.WithLineWidth(-1))
	if err != nil {
		panic(err)
	}
	return string(out)
}

// scalar renders a string as a YAML scalar on one line.
func scalar(s string) string {
	out := field("x", s)
	return strings.TrimSuffix(strings.TrimPrefix(out, "x: "), "\n")
}

// key renders a mapping key (a parameter name such as X-Customer-Id).
func key(s string) string { return scalar(s) }

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l == "" {
			continue
		}
		if l == "\n" {
			b.WriteString(l)
			continue
		}
		b.WriteString(prefix + l)
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
