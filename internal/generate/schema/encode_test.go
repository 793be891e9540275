package schema_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/generate/schema"
)

// encodingJSON is what schema.Marshal has always written: encoding/json's
// Encoder without HTML escaping, its newline trimmed.
func encodingJSON(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encoding/json refuses %#v: %v", v, err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// tricky are strings every branch of the escaping meets: quote, backslash,
// each control character, DEL, HTML characters (not escaped), multi-byte
// UTF-8, U+2028/U+2029, and invalid UTF-8 (cut sequences, surrogates,
// overlong forms).
func tricky() []string {
	s := []string{"", "plain", `a"b\c`, "<b>&amp;</b>", "tab\there\r\nnew", "\x7f", "é—日本語🎉",
		"line\u2028sep\u2029para", "\xff", "a\xc3", "\xe2\x80", "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80", "ok\xffok\u2028"}
	for c := range 0x20 {
		s = append(s, string(rune(c)), "x"+string(rune(c))+"y")
	}
	return s
}

// TestMarshalIsEncodingJSON wants Marshal's bytes to be encoding/json's
// for every kind of value a converted schema holds, and for values it
// may meet (structs, other maps, json.Number, a compact RawMessage).
func TestMarshalIsEncodingJSON(t *testing.T) {
	values := []any{
		nil, true, false, "", 0.0, math.Copysign(0, -1), 1.0, -1.5, 3.0e20, 1e21, 1.5e21, 1e-6, 9.99e-7, 1e-7, 1.23e-10, -2.5e-300,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 123456789.125, 0.1, 1e100,
		0, -7, int64(math.MinInt64), uint64(math.MaxUint64), int32(5), uint8(3),
		[]any{}, []any(nil), map[string]any{}, map[string]any(nil), []string{"a", "<"}, []string(nil),
		map[string]any{"b": 1.0, "a": []any{"x", nil, true, map[string]any{"z": "", "$defs": map[string]any{}}}, "": "empty", "é": 2.0, "B": false},
		map[string]string{"k": "v<"}, json.Number("12.50"), json.RawMessage(`{"a":[1,2]}`),
		struct {
			A string `json:"a"`
			B []any  `json:"b,omitempty"`
		}{A: "<x>"},
		[]any{[]any{[]any{}}, map[string]any{"type": []any{"string", "null"}, "enum": []any{"a\nb", 1.0, nil}}},
	}
	for _, s := range tricky() {
		values = append(values, s, map[string]any{s: s}, []any{s})
	}
	for _, v := range values {
		if got, want := schema.Marshal(v), encodingJSON(t, v); !bytes.Equal(got, want) {
			t.Errorf("Marshal(%#v)\n got %s\nwant %s", v, got, want)
		}
	}
}

// TestMarshalSortsKeysAsEncodingJSON wants keys in encoding/json's order
// (bytewise), which upper case, digits, $ and multi-byte keys test.
func TestMarshalSortsKeysAsEncodingJSON(t *testing.T) {
	m := map[string]any{}
	for _, k := range strings.Fields("z a Z A 0 9 $ref $defs _x x_ é e ü aa a- a. a_ A1 a1 10 2") {
		m[k] = k
	}
	if got, want := schema.Marshal(m), encodingJSON(t, m); !bytes.Equal(got, want) {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// TestMarshalRefusesWhatEncodingJSONRefuses wants a value that is not JSON
// (NaN, an infinity, a function) to panic, as it did.
func TestMarshalRefusesWhatEncodingJSONRefuses(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), map[string]any{"a": []any{math.Inf(-1)}}, func() {}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Marshal(%#v) did not panic", v)
				}
			}()
			schema.Marshal(v)
		}()
	}
}

// FuzzMarshalString compares strings and keys, where the escaping is.
func FuzzMarshalString(f *testing.F) {
	for _, s := range tricky() {
		f.Add(s, 1.0)
	}
	f.Add("", 1e-7)
	f.Add("k", 1e21)
	f.Fuzz(func(t *testing.T, s string, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		v := map[string]any{s: []any{s, x, map[string]any{"d": s}}, "n": x}
		if got, want := schema.Marshal(v), encodingJSON(t, v); !bytes.Equal(got, want) {
			t.Errorf("Marshal(%#v)\n got %s\nwant %s", v, got, want)
		}
	})
}
