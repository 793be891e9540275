package overlay_test

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/overlay"
)

func ptr[T any](v T) *T { return &v }

// TestParseShapes checks what Parse makes of each shape the format allows.
// Positions are checked by TestParsePositions; here they are zeroed.
func TestParseShapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		yaml string
		want overlay.Overlay
	}{
		{
			name: "minimal: include defaults to listed",
			yaml: "tailor: 1\n",
			want: overlay.Overlay{Version: 1, Include: overlay.Include{Mode: "listed"}},
		},
		{
			name: "include all, exclude selectors",
			yaml: "tailor: 1\ninclude: all\nexclude:\n  - path: /admin/**\n  - {method: delete, tag: orders}\n",
			want: overlay.Overlay{Version: 1,
				Include: overlay.Include{Mode: "all"},
				Exclude: []*overlay.Selector{{Path: "/admin/**"}, {Method: "DELETE", Tag: "orders"}},
			},
		},
		{
			name: "include listed",
			yaml: "tailor: 1\ninclude: listed\n",
			want: overlay.Overlay{Version: 1, Include: overlay.Include{Mode: "listed"}},
		},
		{
			name: "include selectors",
			yaml: "tailor: 1\ninclude:\n  - tag: orders\n  - operation: GET /orders/{order_id}\n  - {method: Post, path: /refunds/*}\n",
			want: overlay.Overlay{Version: 1, Include: overlay.Include{Mode: "selected", Selectors: []*overlay.Selector{
				{Tag: "orders"},
				{Operation: "GET /orders/{order_id}"},
				{Method: "POST", Path: "/refunds/*"},
			}}},
		},
		{
			name: "server and context, in file order",
			yaml: `tailor: 1
server:
  name: backoffice
  title: Back office
  instructions: |

    Tools for customer-service agents.

  context:
    tenant: {claim: tenant_id}
    customer_id: {header: X-Customer-Id, env: CUSTOMER_ID}
`,
			want: overlay.Overlay{Version: 1, Include: overlay.Include{Mode: "listed"}, Server: overlay.Server{
				Name:         "backoffice",
				Title:        "Back office",
				Instructions: "Tools for customer-service agents.",
				Context: []*overlay.ContextValue{
					{Name: "tenant", Claim: "tenant_id"},
					{Name: "customer_id", Header: "X-Customer-Id", Env: "CUSTOMER_ID"},
				},
			}},
		},
		{
			name: "tool with every key",
			yaml: `tailor: 1
tools:
  get_order:
    operation: getOrder
    title: Look up an order
    description: |
      Returns one order.
    annotations: {read_only: true, destructive: false, idempotent: true, open_world: false}
    params:
      order_id:
        rename: order_number
        description: The number on the receipt.
        examples: ["5531", 10012]
        enum: ["5531", "10012"]
        default: "5531"
        pattern: "^[0-9]+$"
        min_length: 1
        max_length: 12
        required: true
      limit: {minimum: 1, maximum: 2.5, default: 2, required: false}
      expand: {value: [line_items, {deep: true}]}
      X-Customer-Id: {from: context.customer_id}
      debug: {hidden: true}
      verbose: {hidden: false, description: Shown.}
  cancel: {operation: cancelLineItem, hidden: true}
`,
			want: overlay.Overlay{Version: 1, Include: overlay.Include{Mode: "listed"}, Tools: []*overlay.Tool{
				{
					Name:        "get_order",
					Operation:   "getOrder",
					Title:       ptr("Look up an order"),
					Description: ptr("Returns one order."),
					Annotations: overlay.Annotations{ReadOnly: ptr(true), Destructive: ptr(false), Idempotent: ptr(true), OpenWorld: ptr(false)},
					Params: []*overlay.Param{
						{
							Name:        "order_id",
							Rename:      ptr("order_number"),
							Description: ptr("The number on the receipt."),
							Examples:    []any{"5531", 10012.0},
							Enum:        []any{"5531", "10012"},
							Default:     &overlay.Value{V: "5531"},
							Pattern:     ptr("^[0-9]+$"),
							MinLength:   ptr(1),
							MaxLength:   ptr(12),
							Required:    ptr(true),
						},
						{Name: "limit", Minimum: ptr(1.0), Maximum: ptr(2.5), Default: &overlay.Value{V: 2.0}, Required: ptr(false)},
						{Name: "expand", Value: &overlay.Value{V: []any{"line_items", map[string]any{"deep": true}}}},
						{Name: "X-Customer-Id", From: "customer_id"},
						{Name: "debug", Hidden: true},
						{Name: "verbose", Description: ptr("Shown.")},
					},
				},
				{Name: "cancel", Operation: "cancelLineItem", Hidden: true},
			}},
		},
		{
			name: "a fixed null value is still a value",
			yaml: "tailor: 1\ntools:\n  t:\n    operation: o\n    params:\n      a: {value: null}\n",
			want: overlay.Overlay{Version: 1, Include: overlay.Include{Mode: "listed"}, Tools: []*overlay.Tool{
				{Name: "t", Operation: "o", Params: []*overlay.Param{{Name: "a", Value: &overlay.Value{}}}},
			}},
		},
		{
			name: "result and errors",
			yaml: `tailor: 1
tools:
  refund:
    operation: POST /refunds
    result:
      keep: [refund_id, "$.lines[*].amount"]
      text: "Refund {{.body.refund_id}} created."
      max_bytes: 4000
    errors:
      - when: {status: 409, body: {code: already_refunded, $.error.retry: false}}
        text: Already refunded.
      - when: {status: [4xx, "503"]}
        text: Refused.
      - text: Failed.
`,
			want: overlay.Overlay{Version: 1, Include: overlay.Include{Mode: "listed"}, Tools: []*overlay.Tool{{
				Name:      "refund",
				Operation: "POST /refunds",
				Result: &overlay.Result{
					Keep:     []overlay.Text{{S: "refund_id"}, {S: "$.lines[*].amount"}},
					Text:     &overlay.Text{S: "Refund {{.body.refund_id}} created."},
					MaxBytes: 4000,
				},
				Errors: []*overlay.ErrorRule{
					{Status: []string{"409"}, Body: map[string]any{"code": "already_refunded", "$.error.retry": false}, Text: overlay.Text{S: "Already refunded."}},
					{Status: []string{"4XX", "503"}, Text: overlay.Text{S: "Refused."}},
					{Text: overlay.Text{S: "Failed."}},
				},
			}}},
		},
		{
			name: "drop as one string",
			yaml: "tailor: 1\ntools:\n  t:\n    operation: o\n    result: {drop: internal_notes}\n",
			want: overlay.Overlay{Version: 1, Include: overlay.Include{Mode: "listed"}, Tools: []*overlay.Tool{
				{Name: "t", Operation: "o", Result: &overlay.Result{Drop: []overlay.Text{{S: "internal_notes"}}}},
			}},
		},
		{
			name: "actions",
			yaml: `tailor: 1
actions:
  - target: $.paths['/orders'].get
    description: A better summary.
    update: {summary: List orders, tags: [orders]}
  - {target: "$.paths['/internal']", remove: true}
  - {target: "$.paths['/b'].get.responses", copy: "$.paths['/a'].get.responses"}
  - {target: $.info.x-note, update: null}
`,
			want: overlay.Overlay{Version: 1, Include: overlay.Include{Mode: "listed"}, Actions: []*overlay.Action{
				{Target: "$.paths['/orders'].get", Description: "A better summary.", Update: map[string]any{"summary": "List orders", "tags": []any{"orders"}}, HasUpdate: true},
				{Target: "$.paths['/internal']", Remove: true},
				{Target: "$.paths['/b'].get.responses", Copy: "$.paths['/a'].get.responses"},
				{Target: "$.info.x-note", HasUpdate: true},
			}},
		},
		{
			name: "quote, confirm and composed tools",
			yaml: `tailor: 1
tools:
  quote_refund:
    operation: quoteRefund
    quote: {ttl: 10m}
  refund:
    confirms: quote_refund
    approval: {message: "Refund {{.quote.body.amount}}?"}
    steps:
      - name: cancel
        operation: cancelLineItem
        for_each: "{{.quote.body.ids}}"
        args: {line_item_id: "{{.item}}", note: 7}
      - {name: refund, operation: createRefund, idempotency_key: true}
  status:
    args:
      order_id: {type: string, required: true}
      limit: {type: integer}
    steps: [{name: order, operation: getOrder}]
  preview:
    operation: quoteRefund
    quote: {}
`,
			want: overlay.Overlay{Version: 1, Include: overlay.Include{Mode: "listed"}, Tools: []*overlay.Tool{
				{Name: "quote_refund", Operation: "quoteRefund", Quote: &overlay.Quote{TTLSeconds: 600}},
				{
					Name:     "refund",
					Confirms: "quote_refund",
					Approval: &overlay.Approval{Message: overlay.Text{S: "Refund {{.quote.body.amount}}?"}, WithoutElicitation: "refuse"},
					Steps: []*overlay.Step{
						{Name: "cancel", Operation: "cancelLineItem", ForEach: &overlay.Text{S: "{{.quote.body.ids}}"}, Args: []*overlay.StepArg{
							{Name: "line_item_id", Value: &overlay.Value{V: "{{.item}}"}},
							{Name: "note", Value: &overlay.Value{V: 7.0}},
						}},
						{Name: "refund", Operation: "createRefund", IdempotencyKey: true},
					},
				},
				{
					Name: "status",
					Args: []*overlay.Arg{
						{Name: "order_id", Schema: map[string]any{"type": "string"}, Required: true},
						{Name: "limit", Schema: map[string]any{"type": "integer"}},
					},
					Steps: []*overlay.Step{{Name: "order", Operation: "getOrder"}},
				},
				{Name: "preview", Operation: "quoteRefund", Quote: &overlay.Quote{TTLSeconds: 900}},
			}},
		},
		{
			name: "anchors and aliases",
			yaml: `tailor: 1
tools:
  a:
    operation: getA
    params: &shared
      X-Customer-Id: {from: context.customer_id}
  b:
    operation: getB
    params: *shared
`,
			want: overlay.Overlay{Version: 1, Include: overlay.Include{Mode: "listed"}, Tools: []*overlay.Tool{
				{Name: "a", Operation: "getA", Params: []*overlay.Param{{Name: "X-Customer-Id", From: "customer_id"}}},
				{Name: "b", Operation: "getB", Params: []*overlay.Param{{Name: "X-Customer-Id", From: "customer_id"}}},
			}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := overlay.Parse("overlay.yaml", []byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if got.Path != "overlay.yaml" || len(got.SHA256) != 64 {
				t.Errorf("Path %q, SHA256 %q", got.Path, got.SHA256)
			}
			got.Path, got.SHA256 = "", ""
			zeroPositions(reflect.ValueOf(got))
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", dump(*got), dump(tc.want))
			}
		})
	}
}

// zeroPositions clears every diag.Pos, and what only positions make
// (Text.Exact), under v.
func zeroPositions(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			zeroPositions(v.Elem())
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[diag.Pos]() {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		if v.Type() == reflect.TypeFor[overlay.Text]() {
			v.FieldByName("Exact").SetBool(false)
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				zeroPositions(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			zeroPositions(v.Index(i))
		}
	}
}

// dump prints a value with its pointers followed, for failure messages.
func dump(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// TestParsePositions: what the curate stage reports at a position comes
// from here, so the positions must be the YAML's.
func TestParsePositions(t *testing.T) {
	src := `tailor: 1
include: all
tools:
  get_order:
    operation: getOrder
    params:
      order_id: {value: 5531}
      X-Customer-Id: {from: context.customer_id}
    result:
      keep: [order_id, "$.items[*].price"]
      text: |
        Order {{.body.order_id}}:
          {{len .body.items}} items.
    errors:
      - when: {status: 404}
        text: 'It''s gone: {{.args.order_id}}'
      - text: >
          Failed
          twice.
      - text: "Tab\there {{.status}}"
`
	o, err := overlay.Parse("o.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	at := func(line, col int) diag.Pos { return diag.Pos{File: "o.yaml", Line: line, Col: col} }
	tool := o.Tools[0]
	for _, c := range []struct {
		what      string
		got, want diag.Pos
	}{
		{"include", o.Include.Pos, at(2, 10)},
		{"tool", tool.Pos, at(4, 3)},
		{"operation", tool.OperationPos, at(5, 16)},
		{"param", tool.Params[0].Pos, at(7, 7)},
		{"value", tool.Params[0].Value.Pos, at(7, 25)},
		{"from", tool.Params[1].FromPos, at(8, 29)},
		{"result", tool.Result.Pos, at(10, 7)},
		{"keep[0]", tool.Result.Keep[0].Pos, at(10, 14)},
		{"keep[1]", tool.Result.Keep[1].Pos, at(10, 24)},
		{"keep[1] start", tool.Result.Keep[1].Start, at(10, 25)},
		{"text", tool.Result.Text.Pos, at(11, 13)},
		{"text start", tool.Result.Text.Start, at(12, 9)},
		{"text at .body.order_id", tool.Result.Text.At(strings.Index(tool.Result.Text.S, ".body.order_id")), at(12, 17)},
		{"text at len", tool.Result.Text.At(strings.Index(tool.Result.Text.S, "len")), at(13, 13)},
		{"error rule", tool.Errors[0].Pos, at(15, 9)},
		{"single-quoted start", tool.Errors[0].Text.Start, at(16, 16)},
		{"folded", tool.Errors[1].Text.At(3), at(17, 15)},
		{"escaped", tool.Errors[2].Text.At(5), at(20, 15)},
	} {
		if c.got != c.want {
			t.Errorf("%s at %v, want %v", c.what, c.got, c.want)
		}
	}
	for _, c := range []struct {
		what string
		text overlay.Text
		want bool
	}{
		{"plain", tool.Result.Keep[0], true},
		{"double-quoted", tool.Result.Keep[1], true},
		{"literal block", *tool.Result.Text, true},
		{"single-quoted with ''", tool.Errors[0].Text, false},
		{"folded block over two lines", tool.Errors[1].Text, false},
		{"double-quoted with an escape", tool.Errors[2].Text, false},
	} {
		if c.text.Exact != c.want {
			t.Errorf("%s: Exact is %v, want %v", c.what, c.text.Exact, c.want)
		}
	}
}

// TestParseToolSetKeys: the top-level `lint:` and `messages:` keys parse
// side by side, each value with its place in the file.
func TestParseToolSetKeys(t *testing.T) {
	src := `tailor: 1
lint:
  budget: 8000
messages:
  not_found: "Nothing at {{.status}}."
  base_url_missing: Not set up.
`
	o, err := overlay.Parse("o.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if o.Lint.Budget != 8000 || o.Lint.BudgetPos != (diag.Pos{File: "o.yaml", Line: 3, Col: 11}) {
		t.Errorf("lint: budget %d at %v", o.Lint.Budget, o.Lint.BudgetPos)
	}
	if len(o.Messages) != 2 || o.Messages[0].ID != "not_found" || o.Messages[0].Pos.Line != 5 || o.Messages[1].ID != "base_url_missing" || o.Messages[1].Pos.Line != 6 {
		for _, m := range o.Messages {
			t.Logf("%s at %v", m.ID, m.Pos)
		}
		t.Errorf("messages: %d parsed", len(o.Messages))
	}
}

// FuzzParse: whatever the bytes, Parse does not panic, reports failure as
// *diag.Errors naming the file, and places the text of exact strings where
// it is in the file.
func FuzzParse(f *testing.F) {
	for _, file := range overlayFiles(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"",
		"tailor: 1",
		"tailor: 1\ntools: {t: {operation: o, result: {text: \"é {{.body.x}}\"}}}",
		"tailor: 1\ntools: {t: &a {operation: o, params: {p: *a}}}",
		"tailor: 1\ntools:\n  t:\n    operation: o\n    result:\n      text: |2\n          x\n         y\n",
		"tailor: 1\r\ntools:\r\n  t:\r\n    operation: o\r\n    result:\r\n      text: |-\r\n        a {{.x}}\r\n\r\n        b\r\n",
		"tailor: 1\ntools:\n  t:\n    operation: o\n    errors:\n      - text: |+\n          a\n\n      - text: >-\n          b\n           c\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := overlay.Parse("f.yaml", data)
		if err != nil {
			var de *diag.Errors
			if !errors.As(err, &de) || len(de.List) == 0 {
				t.Fatalf("error of type %T: %v", err, err)
			}
			for _, d := range de.List {
				if d.Pos.File != "f.yaml" || d.Message == "" {
					t.Fatalf("diagnostic without file or message: %#v", d)
				}
			}
			return
		}
		if o == nil {
			t.Fatal("no overlay and no error")
		}
		lines := strings.Split(string(data), "\n")
		for _, tx := range texts(o) {
			if !tx.Exact {
				continue
			}
			for i, r := range tx.S {
				if r == '\n' {
					continue
				}
				p := tx.At(i)
				if p.Line < 1 || p.Line > len(lines) {
					t.Fatalf("%q: offset %d at line %d of %d", tx.S, i, p.Line, len(lines))
				}
				rest := lines[p.Line-1]
				for c := 1; c < p.Col && rest != ""; c++ {
					_, size := utf8.DecodeRuneInString(rest)
					rest = rest[size:]
				}
				if got, _ := utf8.DecodeRuneInString(rest); got != r {
					t.Fatalf("%q: offset %d is %q, but At says %v, which holds %q", tx.S, i, r, p, got)
				}
			}
		}
	})
}

// texts returns the overlay's strings that carry positions of their text.
func texts(o *overlay.Overlay) []overlay.Text {
	var out []overlay.Text
	for _, t := range o.Tools {
		if r := t.Result; r != nil {
			out = append(out, r.Keep...)
			out = append(out, r.Drop...)
			if r.Text != nil {
				out = append(out, *r.Text)
			}
		}
		for _, e := range t.Errors {
			out = append(out, e.Text)
		}
		if t.Approval != nil {
			out = append(out, t.Approval.Message)
		}
		for _, st := range t.Steps {
			if st.ForEach != nil {
				out = append(out, *st.ForEach)
			}
		}
	}
	return out
}
