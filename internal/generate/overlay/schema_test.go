package overlay_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/yamlwalk"
	"github.com/tailormcp/tailor/mcpkit"
	"github.com/tailormcp/tailor/overlays"
)

// repoRoot is the root of the tailor module, from this package's directory.
const repoRoot = "../../.."

// schemaID is the overlay schema's $id, which an overlay outside this
// repository names on its first line.
const schemaID = "https://raw.githubusercontent.com/tailormcp/tailor/main/overlays/overlay.schema.json"

// schemaPath is the published schema file.
var schemaPath = filepath.Join(repoRoot, "overlays", "overlay.schema.json")

// errorCase reports whether file is an overlay that is wrong on purpose:
// one of the CLI's overlay-* cases (testdata/cases/overlay-<case>/).
func errorCase(file string) bool {
	return strings.HasPrefix(filepath.Base(filepath.Dir(file)), "overlay-")
}

// overlayFiles returns every overlay in the repository: the files named
// overlay*.yaml (or .yml) under testdata, and the YAML files under
// examples that have a top-level `tailor:` key.
func overlayFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	find := func(dir string, keep func(path string) bool) {
		root := filepath.Join(repoRoot, dir)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if path == root && os.IsNotExist(err) {
					return filepath.SkipDir
				}
				return err
			}
			if !d.IsDir() && keep(path) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	isYAML := func(path string) bool {
		ext := filepath.Ext(path)
		return ext == ".yaml" || ext == ".yml"
	}
	find("testdata", func(path string) bool {
		return isYAML(path) && strings.HasPrefix(filepath.Base(path), "overlay")
	})
	topLevelTailor := regexp.MustCompile(`(?m)^tailor:`)
	find("examples", func(path string) bool {
		if !isYAML(path) {
			return false
		}
		data, err := os.ReadFile(path)
		return err == nil && topLevelTailor.Match(data)
	})
	if len(files) == 0 {
		t.Fatal("found no overlays in the repository")
	}
	return files
}

// compileSchema compiles overlays.Schema (the embedded overlay.schema.json).
func compileSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(overlays.Schema))
	if err != nil {
		t.Fatalf("overlay.schema.json is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(schemaID, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(schemaID)
	if err != nil {
		t.Fatalf("overlay.schema.json does not compile: %v", err)
	}
	return s
}

// validate checks YAML against the schema as an editor would, after
// decoding it into JSON values.
func validate(s *jsonschema.Schema, data []byte) error {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return err
	}
	return s.Validate(yamlwalk.JSONable(v))
}

func TestSchemaCompiles(t *testing.T) {
	compileSchema(t)

	var root map[string]any
	if err := json.Unmarshal(overlays.Schema, &root); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id":     schemaID,
		"title":   "tailor overlay",
	} {
		if root[k] != want {
			t.Errorf("%s is %v, want %q", k, root[k], want)
		}
	}
	if d, _ := root["description"].(string); len(d) < 200 {
		t.Errorf("the schema's description is too short to introduce the format: %q", d)
	}
}

// TestSchemaDescribesEveryProperty: the schema is the reference a team
// writes an overlay from, so every property says what it does.
func TestSchemaDescribesEveryProperty(t *testing.T) {
	var root map[string]any
	if err := json.Unmarshal(overlays.Schema, &root); err != nil {
		t.Fatal(err)
	}
	defs, _ := root["$defs"].(map[string]any)
	described := func(s map[string]any) bool {
		if d, ok := s["description"].(string); ok && len(d) >= 20 {
			return true
		}
		if ref, ok := s["$ref"].(string); ok {
			def, _ := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
			d, _ := def["description"].(string)
			return len(d) >= 20
		}
		return false
	}
	count := 0
	var walk func(ptr string, v any)
	walk = func(ptr string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if props, ok := x["properties"].(map[string]any); ok {
				for name, p := range props {
					ps, _ := p.(map[string]any)
					// A property schema inside a combinator (anyOf, if/then)
					// only constrains one that is described where declared.
					if !inCombinator(ptr) {
						count++
						if !described(ps) {
							t.Errorf("%s/properties/%s has no description", ptr, name)
						}
					}
				}
			}
			for k, e := range x {
				walk(ptr+"/"+k, e)
			}
		case []any:
			for i, e := range x {
				walk(ptr+"/"+strconv.Itoa(i), e)
			}
		}
	}
	walk("#", root)
	if count < 40 {
		t.Errorf("found only %d properties: is the schema complete?", count)
	}
	for name, d := range defs {
		if !described(d.(map[string]any)) {
			t.Errorf("$defs/%s has no description", name)
		}
	}
}

func inCombinator(ptr string) bool {
	for _, part := range strings.Split(ptr, "/") {
		switch part {
		case "allOf", "anyOf", "oneOf", "not", "if", "then", "else":
			return true
		}
	}
	return false
}

// TestOverlaysFollowSchema: every overlay in the repository names the
// schema on its first line, so that editors check it, and the good ones
// validate. The bad-overlay cases validate exactly when Parse accepts them
// (their mistakes are then ones only the spec can reveal).
func TestOverlaysFollowSchema(t *testing.T) {
	s := compileSchema(t)
	schemaFile, err := os.Stat(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	modeline := regexp.MustCompile(`^# yaml-language-server: \$schema=(\S+)$`)
	for _, file := range overlayFiles(t) {
		t.Run(filepath.ToSlash(strings.TrimPrefix(file, repoRoot+string(filepath.Separator))), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			m := modeline.FindStringSubmatch(strings.TrimSuffix(first, "\r"))
			if m == nil {
				rel, _ := filepath.Rel(filepath.Dir(file), schemaPath)
				t.Errorf("the first line is %q, want # yaml-language-server: $schema=%s", first, filepath.ToSlash(rel))
			} else if ref := m[1]; ref != schemaID {
				st, err := os.Stat(filepath.Join(filepath.Dir(file), filepath.FromSlash(ref)))
				if err != nil || !os.SameFile(st, schemaFile) {
					t.Errorf("$schema=%s does not lead to overlays/overlay.schema.json", ref)
				}
			}

			verr := validate(s, data)
			_, perr := overlay.Parse(filepath.Base(file), data)
			if !errorCase(file) {
				if verr != nil {
					t.Errorf("does not validate against the schema: %v", verr)
				}
				if perr != nil {
					t.Errorf("Parse: %v", perr)
				}
				return
			}
			if (verr == nil) != (perr == nil) {
				t.Errorf("the schema and Parse disagree:\nschema: %v\nParse: %v", verr, perr)
			}
		})
	}
}

// TestSchemaAgreesWithParse: for overlays whose only problem is their
// shape, the schema says what Parse says, so that an editor's squiggles and
// tailor's errors agree.
func TestSchemaAgreesWithParse(t *testing.T) {
	s := compileSchema(t)
	for _, tc := range []struct {
		name  string
		yaml  string
		valid bool
	}{
		// Accepted.
		{"minimal", "tailor: 1", true},
		{"include listed", "tailor: 1\ninclude: listed", true},
		{"include all", "tailor: 1\ninclude: all", true},
		{"include selectors", "tailor: 1\ninclude: [{tag: orders}, {method: get, path: /orders/**}, {operation: GET /x}]", true},
		{"include no selectors", "tailor: 1\ninclude: []", true},
		{"exclude", "tailor: 1\ninclude: all\nexclude: [{path: /admin/**}]", true},
		{"server", "tailor: 1\nserver: {name: back-office_1, title: Back office, instructions: Use it.}", true},
		{"context", "tailor: 1\nserver: {context: {customer_id: {header: X-Customer-Id, claim: sub, env: CUSTOMER_ID}}}", true},
		{"context with an empty source besides a set one", "tailor: 1\nserver: {context: {c: {header: '', env: C}}}", true},
		{"tools", "tailor: 1\ntools: {get_order: {operation: getOrder}, x: {operation: GET /x, hidden: true}}", true},
		{"tool with everything", `tailor: 1
tools:
  get_order:
    operation: getOrder
    hidden: false
    title: Look up an order
    description: Returns one order.
    annotations: {read_only: true, destructive: false, idempotent: true, open_world: false}
    params:
      order_id: {rename: order.number, description: The number., examples: ["5531"], enum: ["1", "2"], default: "1",
                 pattern: "^[0-9]+$", min_length: 0, max_length: 10, required: false}
      limit: {minimum: 1, maximum: 2.5, default: 2}
      expand: {value: [items]}
      also_fixed: {value: null, hidden: false}
      customer: {from: context.customer_id}
      debug: {hidden: true}
      shown: {hidden: false, description: Shown.}
    result: {keep: [order_id, "$.items[*].id"], text: "Order {{.body.order_id}}", max_bytes: 256}
    errors:
      - when: {status: 404}
        text: No such order.
      - when: {status: ["409", 4xx, 5XX], body: {code: gone, $.error.kind: x}}
        text: Gone.
      - when: {status: []}
        text: Failed.
      - text: Failed.`, true},
		{"keep as one string", "tailor: 1\ntools: {t: {operation: x, result: {keep: order_id}}}", true},
		{"drop with an empty keep", "tailor: 1\ntools: {t: {operation: x, result: {keep: [], drop: [a]}}}", true},
		{"actions", `tailor: 1
actions:
  - target: $.paths['/a'].get
    description: Better summary.
    update: {summary: A}
  - {target: $.x, update: null}
  - {target: $.x, remove: true}
  - {target: $.x, copy: $.y}
  - {target: $.x, remove: false, update: 1}
  - {target: $.x, copy: '', update: 1}`, true},
		{"quote and confirm tools", `tailor: 1
tools:
  quote_refund:
    operation: quoteRefund
    quote: {ttl: 1h30m}
  refund:
    confirms: quote_refund
    approval: {message: "Refund {{.quote.body.amount}}?", without_elicitation: proceed}
    steps:
      - name: cancel
        operation: cancelLineItem
        for_each: "{{.quote.body.ids}}"
        args: {line_item_id: "{{.item}}", note: null}
      - {name: refund_2, operation: POST /refunds, idempotency_key: true}
    result: {text: Done.}`, true},
		{"composed tool with args", `tailor: 1
tools:
  status:
    args:
      order_id: {type: string, required: true}
      limit: {type: integer, maximum: 20}
    params: {}
    steps: [{name: order, operation: getOrder}]`, true},
		{"quote with the default ttl", "tailor: 1\ntools: {q: {operation: o, quote: {}}}", true},
		{"messages", "tailor: 1\nmessages: {not_found: \"Nothing at {{.status}}.\", quote_ready: Ready.}\ntools: {t: {operation: o, messages: {refused: \"No: {{.detail}}\"}}}", true},
		{"messages not a mapping", "tailor: 1\nmessages: [not_found]", false},
		{"a message not text", "tailor: 1\nmessages: {not_found: 404}", false},
		{"a tool's message empty", "tailor: 1\ntools: {t: {operation: o, messages: {not_found: null}}}", false},

		// Rejected.
		{"quote ttl not a duration", "tailor: 1\ntools: {q: {operation: o, quote: {ttl: soon}}}", false},
		{"quote ttl a number", "tailor: 1\ntools: {q: {operation: o, quote: {ttl: 600}}}", false},
		{"quote without operation", "tailor: 1\ntools: {q: {quote: {}, steps: [{name: s, operation: o}]}}", false},
		{"operation and steps", "tailor: 1\ntools: {t: {operation: o, steps: [{name: s, operation: o}]}}", false},
		{"empty steps and no operation", "tailor: 1\ntools: {t: {steps: []}}", false},
		{"steps and params", "tailor: 1\ntools: {t: {params: {a: {hidden: true}}, steps: [{name: s, operation: o}]}}", false},
		{"confirms without steps", "tailor: 1\ntools: {t: {operation: o, confirms: q}}", false},
		{"confirms with args", "tailor: 1\ntools: {t: {confirms: q, args: {a: {type: string}}, steps: [{name: s, operation: o}]}}", false},
		{"approval without confirms", "tailor: 1\ntools: {t: {steps: [{name: s, operation: o}], approval: {message: m}}}", true},
		{"approval without message", "tailor: 1\ntools: {t: {confirms: q, steps: [{name: s, operation: o}], approval: {}}}", true},
		{"approval on one operation", "tailor: 1\ntools: {t: {operation: o, approval: {message: m}}}", true},
		{"reads before an approval", "tailor: 1\ntools: {t: {operation: o, reads: [{name: r, operation: g}], approval: {message: m}}}", true},
		{"reads before a held quote", "tailor: 1\ntools: {t: {operation: o, reads: [{name: r, operation: g}], quote: {hold: true}}}", true},
		{"reads without approval or hold", "tailor: 1\ntools: {t: {operation: o, reads: [{name: r, operation: g}]}}", false},
		{"reads on a composed tool", "tailor: 1\ntools: {t: {steps: [{name: s, operation: o}], reads: [{name: r, operation: g}], approval: {message: m}}}", false},
		{"approval false", "tailor: 1\ntools: {t: {operation: o, approval: false}}", true},
		{"approval true", "tailor: 1\ntools: {t: {operation: o, approval: true}}", true},
		{"approval a word", "tailor: 1\ntools: {t: {operation: o, approval: always}}", false},
		{"approval that asks no one", "tailor: 1\ntools: {t: {confirms: q, steps: [{name: s, operation: o}], approval: {message: m, without_elicitation: ask}}}", false},
		{"arg not a schema", "tailor: 1\ntools: {t: {args: {a: string}, steps: [{name: s, operation: o}]}}", false},
		{"arg required as text", "tailor: 1\ntools: {t: {args: {a: {required: 'yes'}}, steps: [{name: s, operation: o}]}}", false},
		{"arg name with a space", "tailor: 1\ntools: {t: {args: {a b: {}}, steps: [{name: s, operation: o}]}}", false},
		{"steps a mapping", "tailor: 1\ntools: {t: {steps: {s: {operation: o}}}}", false},
		{"step without name", "tailor: 1\ntools: {t: {steps: [{operation: o}]}}", false},
		{"step without operation", "tailor: 1\ntools: {t: {steps: [{name: s}]}}", false},
		{"step name with a dash", "tailor: 1\ntools: {t: {steps: [{name: my-step, operation: o}]}}", false},
		{"step args a list", "tailor: 1\ntools: {t: {steps: [{name: s, operation: o, args: [a]}]}}", false},
		{"idempotency_key as text", "tailor: 1\ntools: {t: {steps: [{name: s, operation: o, idempotency_key: 'yes'}]}}", false},
		{"empty", "", false},
		{"a list", "- tailor: 1", false},
		{"missing version", "include: all", false},
		{"version 2", "tailor: 2", false},
		{"version as text", `tailor: "1"`, false},
		{"version as a fraction", "tailor: 1.5", false},
		{"unknown top-level key", "tailor: 1\ntool: {}", false},
		{"include some", "tailor: 1\ninclude: some", false},
		{"include a mapping", "tailor: 1\ninclude: {tag: orders}", false},
		{"include a number", "tailor: 1\ninclude: 1", false},
		{"empty selector", "tailor: 1\ninclude: [{}]", false},
		{"selector of empty strings", "tailor: 1\ninclude: [{tag: ''}]", false},
		{"unknown selector key", "tailor: 1\nexclude: [{tags: a}]", false},
		{"exclude a string", "tailor: 1\nexclude: /admin", false},
		{"server a string", "tailor: 1\nserver: shop", false},
		{"server name with a space", "tailor: 1\nserver: {name: my shop}", false},
		{"server name a number", "tailor: 1\nserver: {name: 7}", false},
		{"unknown server key", "tailor: 1\nserver: {instruction: x}", false},
		{"context without source", "tailor: 1\nserver: {context: {c: {}}}", false},
		{"context of empty sources", "tailor: 1\nserver: {context: {c: {env: ''}}}", false},
		{"context name with a space", "tailor: 1\nserver: {context: {my c: {env: C}}}", false},
		{"unknown context key", "tailor: 1\nserver: {context: {c: {environment: C}}}", false},
		{"tools a list", "tailor: 1\ntools: [{operation: x}]", false},
		{"tool empty", "tailor: 1\ntools: {t: }", false},
		{"tool without operation", "tailor: 1\ntools: {t: {title: T}}", false},
		{"tool with an empty operation", "tailor: 1\ntools: {t: {operation: ''}}", false},
		{"tool name with a space", "tailor: 1\ntools: {get order: {operation: x}}", false},
		{"tool name too long", "tailor: 1\ntools: {" + strings.Repeat("a", 65) + ": {operation: x}}", false},
		{"unknown tool key", "tailor: 1\ntools: {t: {operation: x, descripton: d}}", false},
		{"hidden as text", "tailor: 1\ntools: {t: {operation: x, hidden: yes please}}", false},
		{"title a number", "tailor: 1\ntools: {t: {operation: x, title: 5}}", false},
		{"unknown annotation", "tailor: 1\ntools: {t: {operation: x, annotations: {readonly: true}}}", false},
		{"annotation as text", "tailor: 1\ntools: {t: {operation: x, annotations: {read_only: 'true'}}}", false},
		{"params a list", "tailor: 1\ntools: {t: {operation: x, params: [a]}}", false},
		{"param empty", "tailor: 1\ntools: {t: {operation: x, params: {a: }}}", false},
		{"unknown param key", "tailor: 1\ntools: {t: {operation: x, params: {a: {valeu: 1}}}}", false},
		{"minimum as text", "tailor: 1\ntools: {t: {operation: x, params: {a: {minimum: '5'}}}}", false},
		{"negative min_length", "tailor: 1\ntools: {t: {operation: x, params: {a: {min_length: -1}}}}", false},
		{"fractional max_length", "tailor: 1\ntools: {t: {operation: x, params: {a: {max_length: 1.5}}}}", false},
		{"enum not a list", "tailor: 1\ntools: {t: {operation: x, params: {a: {enum: open}}}}", false},
		{"examples not a list", "tailor: 1\ntools: {t: {operation: x, params: {a: {examples: open}}}}", false},
		{"rename with a space", "tailor: 1\ntools: {t: {operation: x, params: {a: {rename: a b}}}}", false},
		{"from without context.", "tailor: 1\ntools: {t: {operation: x, params: {a: {from: customer_id}}}}", false},
		{"from context. alone", "tailor: 1\ntools: {t: {operation: x, params: {a: {from: context.}}}}", false},
		{"value and from", "tailor: 1\ntools: {t: {operation: x, params: {a: {value: 1, from: context.c}}}}", false},
		{"value and hidden", "tailor: 1\ntools: {t: {operation: x, params: {a: {value: 1, hidden: true}}}}", false},
		{"from and hidden", "tailor: 1\ntools: {t: {operation: x, params: {a: {from: context.c, hidden: true}}}}", false},
		{"value and description", "tailor: 1\ntools: {t: {operation: x, params: {a: {value: 1, description: d}}}}", false},
		{"from and default", "tailor: 1\ntools: {t: {operation: x, params: {a: {from: context.c, default: 1}}}}", false},
		{"hidden and rename", "tailor: 1\ntools: {t: {operation: x, params: {a: {hidden: true, rename: b}}}}", false},
		{"hidden and required", "tailor: 1\ntools: {t: {operation: x, params: {a: {hidden: true, required: false}}}}", false},
		{"result a string", "tailor: 1\ntools: {t: {operation: x, result: order_id}}", false},
		{"unknown result key", "tailor: 1\ntools: {t: {operation: x, result: {keeps: [a]}}}", false},
		{"keep and drop", "tailor: 1\ntools: {t: {operation: x, result: {keep: [a], drop: [b]}}}", false},
		{"keep string and drop", "tailor: 1\ntools: {t: {operation: x, result: {keep: a, drop: b}}}", false},
		{"keep a mapping", "tailor: 1\ntools: {t: {operation: x, result: {keep: {a: 1}}}}", false},
		{"keep of numbers", "tailor: 1\ntools: {t: {operation: x, result: {keep: [1]}}}", false},
		{"max_bytes too small", "tailor: 1\ntools: {t: {operation: x, result: {max_bytes: 100}}}", false},
		{"max_bytes as text", "tailor: 1\ntools: {t: {operation: x, result: {max_bytes: 4k}}}", false},
		{"errors a mapping", "tailor: 1\ntools: {t: {operation: x, errors: {404: x}}}", false},
		{"error rule without text", "tailor: 1\ntools: {t: {operation: x, errors: [{when: {status: 404}}]}}", false},
		{"error rule a string", "tailor: 1\ntools: {t: {operation: x, errors: [Not found.]}}", false},
		{"unknown error rule key", "tailor: 1\ntools: {t: {operation: x, errors: [{text: x, message: y}]}}", false},
		{"unknown when key", "tailor: 1\ntools: {t: {operation: x, errors: [{text: x, when: {code: 404}}]}}", false},
		{"status 4O4", "tailor: 1\ntools: {t: {operation: x, errors: [{text: x, when: {status: 4O4}}]}}", false},
		{"status 600", "tailor: 1\ntools: {t: {operation: x, errors: [{text: x, when: {status: 600}}]}}", false},
		{"status 4XXX", "tailor: 1\ntools: {t: {operation: x, errors: [{text: x, when: {status: 4XXX}}]}}", false},
		{"status empty", "tailor: 1\ntools: {t: {operation: x, errors: [{text: x, when: {status: }}]}}", false},
		{"status in a list", "tailor: 1\ntools: {t: {operation: x, errors: [{text: x, when: {status: [404, 4O9]}}]}}", false},
		{"status true", "tailor: 1\ntools: {t: {operation: x, errors: [{text: x, when: {status: true}}]}}", false},
		{"when.body a string", "tailor: 1\ntools: {t: {operation: x, errors: [{text: x, when: {body: gone}}]}}", false},
		{"text a number", "tailor: 1\ntools: {t: {operation: x, errors: [{text: 404}]}}", false},
		{"actions a mapping", "tailor: 1\nactions: {target: $.x, remove: true}", false},
		{"action without target", "tailor: 1\nactions: [{update: {}}]", false},
		{"action with an empty target", "tailor: 1\nactions: [{target: '', update: {}}]", false},
		{"action that does nothing", "tailor: 1\nactions: [{target: $.x}]", false},
		{"action that removes nothing", "tailor: 1\nactions: [{target: $.x, remove: false}]", false},
		{"action with an empty copy", "tailor: 1\nactions: [{target: $.x, copy: ''}]", false},
		{"remove and update", "tailor: 1\nactions: [{target: $.x, remove: true, update: {}}]", false},
		{"remove and copy", "tailor: 1\nactions: [{target: $.x, remove: true, copy: $.y}]", false},
		{"unknown action key", "tailor: 1\nactions: [{target: $.x, remove: true, overlay: 1}]", false},
		{"remove as text", "tailor: 1\nactions: [{target: $.x, remove: 'yes'}]", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, perr := overlay.Parse("overlay.yaml", []byte(tc.yaml))
			verr := validate(s, []byte(tc.yaml))
			if (perr == nil) != tc.valid {
				t.Errorf("Parse: %v, want valid=%v", perr, tc.valid)
			}
			if (verr == nil) != tc.valid {
				t.Errorf("schema: %v, want valid=%v", verr, tc.valid)
			}
		})
	}
}

// TestSchemaKnowsEveryKey puts an unknown key in each mapping of the format
// and compares the keys Parse lists in its error with the properties the
// schema declares there: a key added to one and not the other fails here.
func TestSchemaKnowsEveryKey(t *testing.T) {
	var root map[string]any
	if err := json.Unmarshal(overlays.Schema, &root); err != nil {
		t.Fatal(err)
	}
	const x = "zzzzzzzzzzzz: 1"
	locations := []struct {
		ptr  string // the schema's object there
		yaml string
	}{
		{"#", "tailor: 1\n" + x},
		{"#/$defs/server", "tailor: 1\nserver: {" + x + "}"},
		{"#/$defs/contextValue", "tailor: 1\nserver: {context: {c: {env: C, " + x + "}}}"},
		{"#/$defs/selector", "tailor: 1\ninclude: [{tag: a, " + x + "}]"},
		{"#/$defs/tool", "tailor: 1\ntools: {t: {operation: o, " + x + "}}"},
		{"#/$defs/annotations", "tailor: 1\ntools: {t: {operation: o, annotations: {" + x + "}}}"},
		{"#/$defs/param", "tailor: 1\ntools: {t: {operation: o, params: {p: {" + x + "}}}}"},
		{"#/$defs/result", "tailor: 1\ntools: {t: {operation: o, result: {" + x + "}}}"},
		{"#/$defs/errorRule", "tailor: 1\ntools: {t: {operation: o, errors: [{text: t, " + x + "}]}}"},
		{"#/$defs/errorRule/properties/when", "tailor: 1\ntools: {t: {operation: o, errors: [{text: t, when: {" + x + "}}]}}"},
		{"#/$defs/action", "tailor: 1\nactions: [{target: $.x, remove: true, " + x + "}]"},
		{"#/$defs/tool/properties/quote", "tailor: 1\ntools: {t: {operation: o, quote: {" + x + "}}}"},
		{"#/$defs/approval", "tailor: 1\ntools: {t: {confirms: q, steps: [{name: s, operation: o}], approval: {message: m, " + x + "}}}"},
		{"#/$defs/step", "tailor: 1\ntools: {t: {steps: [{name: s, operation: o, " + x + "}]}}"},
		{"#/$defs/tool/properties/lint", "tailor: 1\ntools: {t: {operation: o, lint: {" + x + "}}}"},
		{"#/properties/lint", "tailor: 1\nlint: {" + x + "}"},
		{"#/properties/toolsets/additionalProperties", "tailor: 1\ntoolsets: {ts: {" + x + "}}"},
		{"#/$defs/tool/properties/lint/properties/disable/items", "tailor: 1\ntools: {t: {operation: o, lint: {disable: [{rule: r, reason: r, " + x + "}]}}}"},
	}
	listed := regexp.MustCompile("unknown key `zzzzzzzzzzzz` in [^\n]*; expected one of: ([^\n]*)")
	covered := map[string]bool{}
	for _, loc := range locations {
		covered[loc.ptr] = true
		_, err := overlay.Parse("overlay.yaml", []byte(loc.yaml))
		if err == nil {
			t.Errorf("%s: Parse accepts an unknown key", loc.ptr)
			continue
		}
		m := listed.FindStringSubmatch(err.Error())
		if m == nil {
			t.Errorf("%s: Parse's error does not list the known keys:\n%v", loc.ptr, err)
			continue
		}
		parseKeys := strings.Split(m[1], ", ")
		obj := lookup(t, root, loc.ptr)
		if obj["additionalProperties"] != false {
			t.Errorf("%s: the schema allows unknown keys where Parse does not", loc.ptr)
		}
		props, _ := obj["properties"].(map[string]any)
		var schemaKeys []string
		for k := range props {
			schemaKeys = append(schemaKeys, k)
		}
		sort.Strings(schemaKeys)
		if !slices.Equal(parseKeys, schemaKeys) {
			t.Errorf("%s: Parse knows %v, the schema %v", loc.ptr, parseKeys, schemaKeys)
		}
	}
	// Every closed object of the schema is a place checked above.
	var walk func(ptr string, v any)
	walk = func(ptr string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if m["additionalProperties"] == false && !covered[ptr] {
			t.Errorf("%s: a closed object that no location above checks; add one", ptr)
		}
		for k, e := range m {
			if k == "properties" || k == "$defs" {
				for name, s := range e.(map[string]any) {
					walk(ptr+"/"+k+"/"+name, s)
				}
			} else if k == "additionalProperties" || k == "items" {
				walk(ptr+"/"+k, e)
			}
		}
	}
	walk("#", root)
}

// lookup follows a JSON pointer of the form #/a/b in the schema.
func lookup(t *testing.T, root map[string]any, ptr string) map[string]any {
	t.Helper()
	cur := root
	for _, part := range strings.Split(strings.TrimPrefix(ptr, "#"), "/")[1:] {
		next, ok := cur[part].(map[string]any)
		if !ok {
			t.Fatalf("the schema has no %s", ptr)
		}
		cur = next
	}
	return cur
}

// TestSchemaListsEveryMessage: editors complete and check message ids from
// the schema's list, which must be mcpkit's catalog.
func TestSchemaListsEveryMessage(t *testing.T) {
	var root map[string]any
	if err := json.Unmarshal(overlays.Schema, &root); err != nil {
		t.Fatal(err)
	}
	enum, _ := lookup(t, root, "#/$defs/messages/propertyNames")["enum"].([]any)
	var inSchema, inCatalog []string
	for _, e := range enum {
		inSchema = append(inSchema, e.(string))
	}
	for _, m := range mcpkit.Catalog() {
		inCatalog = append(inCatalog, m.ID)
	}
	sort.Strings(inSchema)
	if !slices.Equal(inSchema, inCatalog) {
		t.Errorf("the schema lists the message ids\n%v\nmcpkit's catalog has\n%v", inSchema, inCatalog)
	}
}
