package mcpkit

import (
	"bytes"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// methodDiscover is the probe of protocol 2026-07-28 (SEP-2575).
const methodDiscover = "server/discover"

// refuseDiscover answers a server/discover over stdio with "method not
// found", before go-sdk sees it, when the client has already sent an
// initialize behind it; it reports whether it did.
//
// Why: the Vercel AI SDK's stdio client sends server/discover, waits one
// second, then falls back to initialize. go-sdk (v1.8.0) counts a discover
// as the session's initialization, so when the discover is read after
// that second (a server that starts slowly, a large spec still loading
// under tailor serve) the initialize that follows is refused as a
// duplicate and the client cannot connect. An initialize already waiting
// behind the discover says the client gave up on it: the discover is
// answered as unknown and the initialize begins the session. A discover
// read in time goes to go-sdk, so clients of protocol 2026-07-28 keep it
// (go-sdk's own client needs it for multi-round-trip requests). The fix
// upstream is one line (initialize's duplicate check reading
// NegotiatedProtocolVersion, which only initialize sets, instead of
// InitializeParams, which discover sets too); this goes when go-sdk has
// it (docs/upstream/go-sdk-initialize-after-discover.patch: the change and
// its test, for go-sdk v1.8.0). e2e's TestClientsColdStart shows the
// refusal is needed.
func (f *frameFilter) refuseDiscover(frame []byte, msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method != methodDiscover || !initializeWaiting(f.waiting) {
		return false
	}
	if req.IsCall() {
		f.log.Info("server/discover answered as unknown: the client has sent initialize after it")
		f.reply(topLevelID(frame), jsonrpc.CodeMethodNotFound, `method "server/discover" not found: this server begins a session with "initialize"`)
	}
	return true
}

// initializeWaiting reports whether one of the whole lines in waiting is
// an initialize request.
func initializeWaiting(waiting []byte) bool {
	for {
		line, rest, whole := bytes.Cut(waiting, []byte("\n"))
		if !whole {
			return false
		}
		if raw := bytes.TrimSpace(line); len(raw) > 0 && raw[0] == '{' {
			if msg, err := decodeMessage(raw); err == nil {
				if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "initialize" {
					return true
				}
			}
		}
		waiting = rest
	}
}
