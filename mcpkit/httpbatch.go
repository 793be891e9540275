package mcpkit

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
)

// refuseBatches answers a POST whose body is a JSON-RPC batch with 400 and
// a JSON-RPC error, before go-sdk reads it. Protocol versions before
// 2025-06-18 allow batches, and go-sdk runs a batch's calls at once: one
// POST of thousands of tools/call would become thousands of backend
// requests, past any gateway's per-request limit and the per-caller limits
// a single call meets. Over HTTP a client sends one message per request.
func (k *Runtime) refuseBatches(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		br := bufio.NewReader(r.Body)
		first, err := firstNonSpace(br)
		if err == nil && first == '[' {
			msg := k.render("http_batch_refused", "", nil, nil)
			k.log.Warn("HTTP request refused", "reason", msg)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil,
				"error": map[string]any{"code": -32600, "message": msg}})
			return
		}
		r.Body = struct {
			io.Reader
			io.Closer
		}{br, r.Body}
		next.ServeHTTP(w, r)
	})
}

// firstNonSpace reads past JSON whitespace and returns the next byte,
// leaving it unread.
func firstNonSpace(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b, br.UnreadByte()
	}
}
