package mcpkit

import (
	"encoding/json"

	segjson "github.com/segmentio/encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// wireMessage is a JSON-RPC message as go-sdk's decoder reads it: every
// member it reads, with the same types, so that a frame it would refuse
// does not decode here either.
type wireMessage struct {
	VersionTag string          `json:"jsonrpc"`
	ID         any             `json:"id,omitempty"`
	Method     json.RawMessage `json:"method"`
	Params     json.RawMessage `json:"params,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      *jsonrpc.Error  `json:"error,omitempty"`
}

// wireFlags are the decoding flags of go-sdk's decoder: member names match
// exactly ("Method" is not "method").
const wireFlags = segjson.DontMatchCaseInsensitiveStructFields

// decodeMessage decodes a frame's message as jsonrpc.DecodeMessage does,
// with the JSON library go-sdk decodes with and its flags, but parsing the
// frame where it is: go-sdk reads it through a stream decoder with a fresh
// 32 KiB buffer per value, twice per message (the message, then its
// method), and those buffers were a third of what a tool call allocated.
// Requests (what a client sends) are decoded here; anything else, and any
// frame that does not decode, goes to go-sdk's own decoder, which then
// gives the error its own words.
func decodeMessage(frame []byte) (jsonrpc.Message, error) {
	var w wireMessage
	if rest, err := segjson.Parse(frame, &w, wireFlags); err != nil || len(rest) > 0 || w.VersionTag != "2.0" || len(w.Method) == 0 {
		return jsonrpc.DecodeMessage(frame)
	}
	id, err := jsonrpc.MakeID(w.ID)
	if err != nil {
		return jsonrpc.DecodeMessage(frame)
	}
	var method string
	if rest, err := segjson.Parse(w.Method, &method, wireFlags); err != nil || len(rest) > 0 {
		return jsonrpc.DecodeMessage(frame)
	}
	return &jsonrpc.Request{ID: id, Method: method, Params: w.Params}, nil
}
