package mcpkit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits of one stdio frame (a line of JSON-RPC).
const (
	// maxFrameBytes is the largest frame read, as go-sdk bounds an HTTP
	// request body.
	maxFrameBytes = mcp.DefaultMaxRequestBodyBytes
	// maxFrameDepth bounds the nesting of arrays and objects in a frame.
	maxFrameDepth = 256
)

// stdioTransport is go-sdk's newline-delimited stdio transport behind a
// filter: go-sdk ends the session on the first frame it cannot decode, and
// with it every pending quote. The filter answers such a frame itself
// (-32700 for text that is not JSON, -32600 for JSON that is not a
// JSON-RPC message go-sdk accepts: wrong version, too deep, too large, a
// batch the protocol no longer allows) and passes only frames go-sdk's
// decoder accepts, so the session goes on.
func stdioTransport(in io.Reader, out io.Writer, k *Runtime) mcp.Transport {
	k.stdioSession = randomToken(6)
	w := &frameWriter{w: out}
	pr, pw := io.Pipe()
	f := &frameFilter{reply: w.reply, forward: pw, log: k.log, kit: k}
	go func() {
		pw.CloseWithError(f.run(in))
	}()
	// The filter bounds frames; go-sdk's own bound must not be hit first.
	return &mcp.IOTransport{Reader: pr, Writer: w, MaxLineLength: 2 * maxFrameBytes}
}

// frameWriter serializes go-sdk's messages and the filter's replies on
// stdout: each Write is one whole line.
type frameWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *frameWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

func (w *frameWriter) Close() error {
	if c, ok := w.w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// reply writes a JSON-RPC error response.
func (w *frameWriter) reply(id json.RawMessage, code int64, message string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		return
	}
	w.Write(append(b, '\n'))
}

// frameFilter checks each line read from stdin.
type frameFilter struct {
	reply   func(id json.RawMessage, code int64, message string)
	forward io.Writer
	log     *slog.Logger
	// kit renders the replies (built-in messages, overridable); nil: the
	// defaults.
	kit *Runtime
	// version is the protocol version the client asked for in
	// initialize; batches are not part of 2025-06-18 and later.
	version string
}

// run filters in until it ends; it returns the read error (nil at EOF).
func (f *frameFilter) run(in io.Reader) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readFrame(r, maxFrameBytes)
		if tooLong {
			f.refuse(nil, jsonrpc.CodeInvalidRequest, "frame_too_large", M{"limit": byteSize(maxFrameBytes)})
		} else if frame := bytes.TrimSpace(line); len(frame) > 0 {
			if f.check(frame) {
				if _, werr := f.forward.Write(append(frame, '\n')); werr != nil {
					return werr
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readFrame reads one line, without its newline. A line longer than max is
// read to its end and dropped (tooLong).
func readFrame(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

// check reports whether frame may go to go-sdk, answering it otherwise.
func (f *frameFilter) check(frame []byte) bool {
	if !json.Valid(frame) {
		f.refuse(nil, jsonrpc.CodeParseError, "frame_not_json", nil)
		return false
	}
	if d := jsonDepth(frame); d > maxFrameDepth {
		f.refuse(topLevelID(frame), jsonrpc.CodeInvalidRequest, "frame_too_deep", M{"depth": d, "limit": maxFrameDepth})
		return false
	}
	if frame[0] != '[' {
		msg, err := jsonrpc.DecodeMessage(frame)
		if err != nil {
			f.refuse(topLevelID(frame), jsonrpc.CodeInvalidRequest, "frame_invalid", M{"problem": err.Error()})
			return false
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "initialize" {
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(req.Params, &p)
			f.version = p.ProtocolVersion
			if !slices.Contains(mcp.SupportedProtocolVersions(), f.version) {
				f.version = mcp.SupportedProtocolVersions()[0]
			}
		}
		return true
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(frame, &batch); err != nil || len(batch) == 0 {
		f.refuse(nil, jsonrpc.CodeInvalidRequest, "frame_empty_batch", nil)
		return false
	}
	if f.version >= "2025-06-18" {
		f.refuse(nil, jsonrpc.CodeInvalidRequest, "frame_batch_refused", M{"version": f.version})
		return false
	}
	for _, m := range batch {
		if _, err := jsonrpc.DecodeMessage(m); err != nil {
			f.refuse(topLevelID(m), jsonrpc.CodeInvalidRequest, "frame_invalid", M{"problem": err.Error()})
			return false
		}
	}
	return true
}

func (f *frameFilter) refuse(id json.RawMessage, code int64, messageID string, fields M) {
	message := f.kit.render(messageID, "", nil, fields)
	f.log.Warn("stdio message refused", "code", code, "reason", message)
	f.reply(id, code, message)
}

// topLevelID returns a message's id when it is a string or a number, for
// the error response; nil otherwise.
func topLevelID(frame []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(frame, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return m.ID
	}
	return nil
}
