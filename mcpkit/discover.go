package mcpkit

import (
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// methodDiscover is the probe of protocol 2026-07-28 (SEP-2575).
const methodDiscover = "server/discover"

// refuseDiscover answers a server/discover over stdio with "method not
// found", before go-sdk sees it, and reports whether it did.
//
// Why: the Vercel AI SDK's stdio client sends server/discover, waits one
// second, then falls back to initialize. go-sdk (v1.8.0) counts a discover
// as the session's initialization, so when the discover is answered after
// that second (a large spec still loading under tailor serve) the
// initialize that follows is refused as a duplicate and the client cannot
// connect. Refused, the discover makes every such client initialize at
// once, which go-sdk accepts whatever came before. Over stdio a session is
// one client's anyway; nothing is lost but the probe. The fix upstream is
// one line (initialize's duplicate check reading NegotiatedProtocolVersion,
// which only initialize sets, instead of InitializeParams, which discover
// sets too); this goes when go-sdk has it. e2e's TestClientsColdStart
// shows the refusal is needed.
func (f *frameFilter) refuseDiscover(frame []byte, msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method != methodDiscover {
		return false
	}
	if req.IsCall() {
		f.log.Info("server/discover answered as unknown: stdio sessions begin with initialize")
		f.reply(topLevelID(frame), jsonrpc.CodeMethodNotFound, `method "server/discover" not found: this server begins a session with "initialize"`)
	}
	return true
}
