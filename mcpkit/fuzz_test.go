package mcpkit

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/jsonv"
)

// fuzzTool has an argument in every slot a model fills: path, query,
// header, cookie and JSON body fields (nested, a list).
var fuzzTool = &Tool{
	Name: "update_item",
	InputSchema: `{"type":"object","additionalProperties":false,"required":["item_id"],"properties":{
		"item_id":{"type":"string","maxLength":64},
		"tags":{"type":"array","items":{"type":"string"}},
		"X-Trace":{"type":"string"},
		"session":{"type":"string"},
		"count":{"type":"integer","minimum":0},
		"note":{"type":["string","null"]},
		"meta":{"type":"object"}}}`,
	Security: [][]string{{"key"}},
}

func fuzzRequest(c *Call) *Request {
	r := c.Request(http.MethodPatch, "/items/{item_id}/notes")
	r.Path("item_id", c.Arg("item_id"), Simple)
	r.Query("tags", c.Arg("tags"), FormStyle)
	r.Header("X-Trace", c.Arg("X-Trace"), Simple)
	r.Cookie("session", c.Arg("session"), FormStyle)
	r.Body(JSON, "application/json", false)
	r.Field("count", c.Arg("count"))
	r.Field("note", c.Arg("note"))
	r.Field("meta", c.Arg("meta"))
	return r
}

// FuzzArguments drives what a model can send through decoding, validation
// and request building, and checks the promises that hold for any input:
// no panic; a refusal is a message, never empty; an accepted call's
// request goes to the configured host, keeps the path's shape (the value
// stays in its one segment), carries no header a value injected, and
// sends a body that is JSON. Run with -fuzz=FuzzArguments; the seeds run
// with the other tests.
func FuzzArguments(f *testing.F) {
	for _, seed := range []string{
		`{"item_id":"a1"}`,
		`{"item_id":"../../admin?x=1#y","tags":["a","b,c"],"X-Trace":"t","session":"s;x=1","count":3,"note":null,"meta":{"k":[1,{"z":2}]}}`,
		`{"item_id":"a","X-Trace":"x\r\nX-Injected: 1"}`,
		`{"item_id":"%2e%2e","session":"a\u0000b"}`,
		`{"item_id":"a","count":-1}`,
		`{"item_id":"a","count":12345678901234567890123}`,
		`{"item_id":"..","tags":[]}`,
		`{"item_id":"a","extra":1}`,
		`[1,2]`, `null`, `"x"`, ``, `{`, `{"item_id":"a"} trailing`,
		strings.Repeat(`{"meta":`, 100) + `{}` + strings.Repeat(`}`, 100),
		`{"item_id":"` + strings.Repeat("é", 40) + `"}`,
	} {
		f.Add([]byte(seed))
	}
	k, err := NewRuntime(API{Name: "fuzz", EnvPrefix: "FUZZ", Schemes: []Scheme{{Name: "key", Kind: APIKey, In: "query", ParamName: "api_key", Env: "FUZZ_KEY"}}},
		Config{BaseURL: "https://api.example.test/v1", Getenv: func(string) string { return "fuzz-secret-key" }, Log: &bytes.Buffer{}, MaxArgumentBytes: 64 << 10})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: fuzzTool.Name, Arguments: json.RawMessage(raw)}}
		c, bad := k.newCall(context.Background(), req, fuzzTool)
		if c == nil {
			t.Fatal("no call returned: the refusal could not be audited")
		}
		if bad != nil {
			if !bad.IsError || strings.TrimSpace(textOf(bad)) == "" {
				t.Fatalf("a refusal without a message: %+v", bad)
			}
			return
		}
		r := fuzzRequest(c)
		if r.err != nil {
			if msg := c.say("request_not_built", M{"problem": r.err.Error()}); msg == "" {
				t.Fatal("empty message")
			}
			return
		}
		hr, err := c.build(r)
		if err != nil {
			return // refused while building: nothing is sent
		}
		if hr.URL.Scheme != "https" || hr.URL.Host != "api.example.test" {
			t.Fatalf("the request left the backend: %s", hr.URL)
		}
		segs := strings.Split(strings.TrimPrefix(hr.URL.EscapedPath(), "/"), "/")
		if len(segs) != 4 || segs[0] != "v1" || segs[1] != "items" || segs[3] != "notes" || segs[2] == "" || segs[2] == "." || segs[2] == ".." {
			t.Fatalf("the path lost its shape: %s", hr.URL.EscapedPath())
		}
		for name, vals := range hr.Header {
			for _, v := range vals {
				if strings.ContainsAny(v, "\r\n\x00") {
					t.Fatalf("header %s carries a line break: %q", name, v)
				}
			}
		}
		for name := range hr.Header {
			switch http.CanonicalHeaderKey(name) {
			case "X-Trace", "Cookie", "Content-Type", "Accept", "User-Agent", RequestIDHeader:
			default:
				t.Fatalf("an unexpected header %s", name)
			}
		}
		if got := hr.URL.Query().Get("api_key"); got != "fuzz-secret-key" {
			t.Fatalf("the credential is %q", got)
		}
		if r.hasBody() && !json.Valid(r.body) {
			t.Fatalf("the body is not JSON: %s", r.body)
		}
	})
}

// FuzzFitsSurely: whatever JSON a backend answers, its value encoded again
// is at most 6 bytes a byte of the body, the bound by which shapeJSON
// skips measuring small results (fitsSurely).
func FuzzFitsSurely(f *testing.F) {
	for _, seed := range []string{"\"\xff\xfe\"", "\"\u2028\"", `"\u0001\ud800"`, `{"a":1,"a":2}`, `[1e400,{"<":">"}]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		v, ok := decodeJSON(body)
		if !ok {
			return
		}
		if n := len(jsonv.Text(v)); n > 6*len(body) {
			t.Fatalf("%q encodes again to %d bytes", body, n)
		}
	})
}
