package mcpkit

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// wireFrames are frames whose decoding must agree with go-sdk's: the
// common ones and those a hostile client sends.
var wireFrames = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get","arguments":{"id":"x"}}}`,
	`{"jsonrpc":"2.0","id":"a-b","method":"tools/list"}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":-3,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
	`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
	`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":""}`,
	`{"jsonrpc":"2.0","id":1,"method":null}`,
	`{"jsonrpc":"2.0","id":1,"method":5}`,
	`{"jsonrpc":"2.0","id":1,"method":["a"]}`,
	`{"jsonrpc":"2.0","id":1,"method":"to\u006fls/call","params":{}}`,
	`{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{}}`,
	`{"JSONRPC":"2.0","id":1,"method":"tools/call"}`,
	`{"jsonrpc":"2.0","ID":1,"method":"tools/call"}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"a"}`,
	`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
	`{"jsonrpc":2.0,"id":1,"method":"ping"}`,
	`{"id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":[1,2]}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","error":5}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","error":{"code":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","error":{"code":1,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","extra":{"deep":[1,2,{"x":null}]}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"no"}}`,
	`{"jsonrpc":"2.0","result":{}}`,
	`{"jsonrpc":"2.0","id":1}`,
	`  {"jsonrpc":"2.0","id":1,"method":"ping"}  `,
	`{"jsonrpc":"2.0","id":1,"method":"p\ud800ing"}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}",
	`[]`,
	`"text"`,
	`null`,
	`{}`,
}

// TestDecodeMessageAgreesWithGoSDK: the stdio connection's decoding gives
// go-sdk exactly the message (or the error) its own decoder would.
func TestDecodeMessageAgreesWithGoSDK(t *testing.T) {
	for _, f := range wireFrames {
		checkDecodeAgrees(t, []byte(f))
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, s := range wireFrames {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) { checkDecodeAgrees(t, frame) })
}

func checkDecodeAgrees(t *testing.T, frame []byte) {
	t.Helper()
	got, gotErr := decodeMessage(frame)
	want, wantErr := jsonrpc.DecodeMessage(frame)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%s: error %v, go-sdk's %v", frame, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: decoded %#v, go-sdk %#v", frame, got, want)
	}
	if req, ok := got.(*jsonrpc.Request); ok && req.ID.Raw() != nil {
		if w := want.(*jsonrpc.Request); fmt.Sprintf("%T", req.ID.Raw()) != fmt.Sprintf("%T", w.ID.Raw()) {
			t.Fatalf("%s: id %T, go-sdk's %T", frame, req.ID.Raw(), w.ID.Raw())
		}
	}
}
