package mcpkit

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/theory/jsonpath"

	"github.com/tailormcp/tailor/internal/jsonv"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestQuoteIDs(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		id := newQuoteID()
		if len(id) != 12 || !strings.HasPrefix(id, "q_") || seen[id] {
			t.Fatalf("bad or repeated id %q", id)
		}
		seen[id] = true
	}
}

func TestProjection(t *testing.T) {
	raw := `{"order_id":"5531","total":9007199254740993,"note":"x","items":[{"id":"a","price":1200,"status":"open"},{"id":"b","price":380,"status":"cancelled"}]}`
	exact := decode(t, raw)
	var plain any
	json.Unmarshal([]byte(raw), &plain)
	paths := func(qs ...string) []*jsonpath.Path {
		var out []*jsonpath.Path
		for _, q := range qs {
			out = append(out, jsonpath.MustParse(q))
		}
		return out
	}
	got := jsonv.Text(keep(exact, plain, paths("$.total", "$.items[?@.price > 500].id")))
	if want := `{"items":[{"id":"a"}],"total":9007199254740993}`; got != want {
		t.Errorf("keep: got %s, want %s", got, want)
	}
	got = jsonv.Text(drop(exact, plain, paths("$.note", "$.items[*].status", "$.items[1]")))
	if want := `{"items":[{"id":"a","price":1200}],"order_id":"5531","total":9007199254740993}`; got != want {
		t.Errorf("drop: got %s, want %s", got, want)
	}
}

func TestFitCutsTheLargestArray(t *testing.T) {
	var items []string
	for i := 0; i < 100; i++ {
		items = append(items, `{"id":"item-`+strings.Repeat("x", 20)+`"}`)
	}
	v := decode(t, `{"small":[1,2],"data":[`+strings.Join(items, ",")+`]}`)
	cut, note := fit(v, 1000)
	if n := len(jsonv.Text(cut)); n > 1000 {
		t.Fatalf("still %d bytes", n)
	}
	if !strings.Contains(note, "`data` shows") || !strings.Contains(note, "of 100 items") {
		t.Errorf("note: %s", note)
	}
	if len(cut.(map[string]any)["small"].([]any)) != 2 {
		t.Error("the small array was cut too")
	}
	if _, note := fit(decode(t, `{"a":1}`), 1000); note != "" {
		t.Errorf("nothing to cut, but: %s", note)
	}
}

// fitsSurely's bound: no body's value encodes again to more than 6 bytes
// a byte, whatever its strings hold.
func TestFitsSurelyBound(t *testing.T) {
	for _, body := range []string{
		"\"\xff\xfe\xfd\"", "[\"\xff\",\"\xc3\"]", "\"\u2028\u2029\"", "\"\\u0001\\b\\f\\n\"", "\"\\ud800\\udc00\\ud800\"",
		`{"a":1,"a":2}`, `{"<&>":"<&>"}`, `"\/\/"`, `[1e400, -0.0000001, 12345678901234567890]`, `{"k":[{},[],null,true,false,""]}`,
	} {
		v, ok := decodeJSON([]byte(body))
		if !ok {
			t.Fatalf("%q is not JSON", body)
		}
		if n := len(jsonv.Text(v)); n > 6*len(body) {
			t.Errorf("%q: %d bytes encoded again, more than 6 a byte", body, n)
		}
		if !fitsSurely([]byte(body), 6*len(body)) || fitsSurely([]byte(body), 6*len(body)-1) {
			t.Errorf("%q: fitsSurely's bound is not 6 bytes a byte", body)
		}
	}
}

func TestMoney(t *testing.T) {
	for in, want := range map[any]string{json.Number("1430"): "1,430", 230.0: "230", 1234567.5: "1,234,567.50", -1500.0: "-1,500", "12": "12"} {
		if got := money(in); got != want {
			t.Errorf("money(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestSerialization(t *testing.T) {
	vals := url.Values{}
	addForm(vals, "f", decode(t, `{"a":{"b":[1,2]},"c":"x y"}`), DeepObject)
	if got := vals.Encode(); got != "f%5Ba%5D%5Bb%5D%5B0%5D=1&f%5Ba%5D%5Bb%5D%5B1%5D=2&f%5Bc%5D=x+y" {
		t.Errorf("deepObject: %s", got)
	}
	for in, want := range map[string]string{"../a": "..%2Fa", "...": "...", "a b?#/": "a%20b%3F%23%2F", "ok": "ok"} {
		if got := pathEscape(in); got != want {
			t.Errorf("pathEscape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScopeValue(t *testing.T) {
	s := &Scope{data: map[string]any{"quote": map[string]any{"body": map[string]any{"amount": json.Number("230"), "ids": []any{"a"}}}}}
	if v := s.Value("{{.quote.body.amount}}"); v.V != json.Number("230") || !v.Set {
		t.Errorf("single reference lost its type: %#v", v)
	}
	if v := s.Value("{{ .quote.body.ids }}"); jsonv.Text(v.V) != `["a"]` {
		t.Errorf("list: %#v", v)
	}
	if v := s.Value("Quote {{.quote.body.amount}}"); v.V != "Quote 230" {
		t.Errorf("text: %#v", v)
	}
	if v := s.Value("{{.quote.body.missing}}"); v.Set {
		t.Errorf("missing reference is set: %#v", v)
	}
}

func TestRedaction(t *testing.T) {
	k, err := NewRuntime(API{Name: "x", EnvPrefix: "X", Schemes: []Scheme{{Name: "k", Kind: APIKey, In: "header", ParamName: "K", Env: "X_K_KEY"}}},
		Config{BaseURL: "http://127.0.0.1:1", Getenv: func(string) string { return "sekrit-value" }, Log: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := k.redact("the key sekrit-value is bad"); got != "the key [redacted] is bad" {
		t.Errorf("redact: %q", got)
	}
}

// Error rules match with Go values as generated code spells them: an
// integer literal matches the JSON number however the body writes it.
func TestBodyMatches(t *testing.T) {
	var body any
	if err := json.Unmarshal([]byte(`{"attempts": 3.0, "ratio": 0.5, "retryable": false, "detail": null, "meta": {"ids": [1, "x"]}, "error": {"kind": "limit"}}`), &body); err != nil {
		t.Fatal(err)
	}
	conds := map[string]any{"attempts": int64(3), "ratio": 0.5, "retryable": false, "detail": nil, "meta": map[string]any{"ids": []any{1, "x"}}, "$.error.kind": "limit"}
	if !bodyMatches(conds, body) {
		t.Errorf("%v does not match %v", conds, body)
	}
	for key, other := range map[string]any{"attempts": 4, "ratio": "0.5", "retryable": true, "detail": "", "meta": map[string]any{"ids": []any{1}}, "$.error.kind": "other", "absent": 1} {
		c := map[string]any{}
		for k, v := range conds {
			c[k] = v
		}
		c[key] = other
		if bodyMatches(c, body) {
			t.Errorf("%s: %v matches", key, other)
		}
	}
}
