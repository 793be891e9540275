package mcpkit

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
)

// RequestIDHeader carries a tool call's request id to the backend, so its
// logs and the server's (every line of the call, and its audit record)
// can be joined. The id is the server's own, fresh per tools/call: never
// an argument the model fills, and never one a client sends, since a
// client could otherwise make its calls look like another's in the logs.
// An API that declares a header parameter of this name gets that
// parameter instead: it is part of the API's contract, and the overlay
// decides where its value comes from.
const RequestIDHeader = "X-Request-Id"

// newRequestID is 16 random hex digits.
func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// logger is the call's logger: the server's, with the request id.
func (c *Call) logger() *slog.Logger {
	c.logOnce.Do(func() {
		c.log = c.kit.log
		if c.requestID != "" {
			c.log = c.log.With("request_id", c.requestID)
		}
	})
	return c.log
}
