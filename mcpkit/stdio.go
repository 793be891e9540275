package mcpkit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tailormcp/tailor/internal/jsonv"
)

// Limits of one stdio frame (a line of JSON-RPC).
const (
	// maxFrameBytes is the largest frame read, as go-sdk bounds an HTTP
	// request body.
	maxFrameBytes = mcp.DefaultMaxRequestBodyBytes
	// maxFrameDepth bounds the nesting of arrays and objects in a frame.
	maxFrameDepth = 256
)

// stdioTransport serves go-sdk over newline-delimited stdio through a
// connection of its own (stdioConn) rather than go-sdk's IOTransport:
// go-sdk ends the session on the first frame it cannot decode, and with it
// every pending quote, so each frame is checked here first (see
// frameFilter), and the message decoded by that check is the one go-sdk
// gets. Behind an IOTransport the frame was decoded twice more (as a batch,
// then as a message) and crossed one more goroutine on its way in.
func stdioTransport(in io.Reader, out io.Writer, k *Runtime) mcp.Transport {
	k.stdioSession = randomToken(6)
	k.afterReply = &afterReply{}
	w := &frameWriter{w: out}
	return &stdioStreams{
		in: bufio.NewReaderSize(in, 64<<10), w: w,
		filter: &frameFilter{reply: w.reply, log: k.log, kit: k}, after: k.afterReply,
	}
}

type stdioStreams struct {
	in     *bufio.Reader
	w      *frameWriter
	filter *frameFilter
	after  *afterReply
}

func (t *stdioStreams) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{in: t.in, w: t.w, filter: t.filter, after: t.after,
		want: make(chan struct{}), incoming: make(chan frameRead), closed: make(chan struct{})}
	go c.readLoop()
	return c, nil
}

// stdioConn is an mcp.Connection over stdin and stdout. One goroutine
// reads stdin, a frame when go-sdk asks for the next message; go-sdk reads
// messages from one goroutine, and writes from any.
//
// Why a frame is read only when asked, and after a yield: the stdin read
// blocks its thread, and a goroutine made runnable just before, on the same
// processor, waits behind it until another thread is woken to take it over
// (tens of microseconds on a small VM). go-sdk asks for the next message
// right after starting the handler of the last one, so the reader lets
// that handler run first; when the next frame comes, go-sdk is already
// waiting for it.
type stdioConn struct {
	in     *bufio.Reader
	w      *frameWriter
	filter *frameFilter
	// after runs, once a message is written, what waited for it (the
	// audit records of calls whose results are out).
	after *afterReply
	// want asks the reader for the next frame; incoming is its answer.
	want     chan struct{}
	incoming chan frameRead
	closed   chan struct{}
	close    sync.Once
	// asked: a frame was asked for and not yet received (Read returned
	// early, on its context). queue holds the rest of a batch. Both
	// belong to go-sdk's one reading goroutine.
	asked bool
	queue []jsonrpc.Message
	// batches are the requests of batches still being answered (a
	// batch's responses go out together, as one array).
	mu      sync.Mutex
	batches map[jsonrpc.ID]*batchReply
}

// frameRead is one accepted frame's messages, or the read error.
type frameRead struct {
	frame
	err error
}

func (c *stdioConn) readLoop() {
	for {
		select {
		case <-c.want:
		case <-c.closed:
			return
		}
		if c.in.Buffered() == 0 {
			runtime.Gosched() // see stdioConn
		}
		fr, err := c.filter.next(c.in)
		select {
		case c.incoming <- frameRead{fr, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.queue) > 0 {
		m := c.queue[0]
		c.queue = c.queue[1:]
		return m, nil
	}
	if !c.asked {
		select {
		case c.want <- struct{}{}:
			c.asked = true
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		}
	}
	select {
	case r := <-c.incoming:
		c.asked = false
		if r.err != nil {
			return nil, r.err
		}
		if r.batch {
			c.addBatch(r.msgs)
		}
		c.queue = r.msgs[1:]
		return r.msgs[0], nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	}
}

// batchReply collects the responses to one batch's requests.
type batchReply struct {
	unresolved int
	responses  []*jsonrpc.Response
	at         map[jsonrpc.ID]int
}

// addBatch records a batch's requests, whose responses are written
// together once the last is ready (JSON-RPC 2.0, section 6).
func (c *stdioConn) addBatch(msgs []jsonrpc.Message) {
	b := &batchReply{at: map[jsonrpc.ID]int{}}
	for _, m := range msgs {
		if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
			b.at[req.ID] = len(b.responses)
			b.responses = append(b.responses, nil)
		}
	}
	if len(b.responses) == 0 {
		return // notifications only: nothing is answered
	}
	b.unresolved = len(b.responses)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.batches == nil {
		c.batches = map[jsonrpc.ID]*batchReply{}
	}
	for id := range b.at {
		c.batches[id] = b
	}
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	defer c.after.run()
	if err := ctx.Err(); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if done, inBatch := c.resolve(resp); inBatch {
			if done == nil {
				return nil
			}
			raws := make([]json.RawMessage, len(done))
			for i, r := range done {
				b, err := jsonrpc.EncodeMessage(r)
				if err != nil {
					return fmt.Errorf("encoding a batch's response: %w", err)
				}
				raws[i] = b
			}
			data, err := json.Marshal(raws)
			if err != nil {
				return err
			}
			_, err = c.w.Write(append(data, '\n'))
			return err
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	_, err = c.w.Write(append(data, '\n'))
	return err
}

// resolve files a response to a batched request: inBatch says whether it
// was one, done holds the batch's responses once the last has come.
func (c *stdioConn) resolve(resp *jsonrpc.Response) (done []*jsonrpc.Response, inBatch bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.batches[resp.ID]
	if !ok {
		return nil, false
	}
	delete(c.batches, resp.ID)
	b.responses[b.at[resp.ID]] = resp
	if b.unresolved--; b.unresolved > 0 {
		return nil, true
	}
	return b.responses, true
}

func (c *stdioConn) Close() error {
	var err error
	c.close.Do(func() {
		close(c.closed)
		err = c.w.Close()
		c.after.close()
	})
	return err
}

func (c *stdioConn) SessionID() string { return "" }

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
	reply func(id json.RawMessage, code int64, message string)
	log   *slog.Logger
	// kit renders the replies (built-in messages, overridable); nil: the
	// defaults.
	kit *Runtime
	// version is the protocol version the client asked for in
	// initialize; batches are not part of 2025-06-18 and later.
	version string
	// waiting is what the client has sent beyond the frame being
	// checked, already read from stdin (refuseDiscover looks at it).
	waiting []byte
}

// frame is an accepted frame: its text and its messages, decoded once.
type frame struct {
	raw   []byte
	msgs  []jsonrpc.Message
	batch bool
}

// next reads lines until one is a frame go-sdk may have, answering the
// others; the error is the read's (io.EOF at the end).
func (f *frameFilter) next(r *bufio.Reader) (frame, error) {
	for {
		line, tooLong, err := readFrame(r, maxFrameBytes)
		if tooLong {
			f.refuse(nil, jsonrpc.CodeInvalidRequest, "frame_too_large", M{"limit": byteSize(maxFrameBytes)})
		} else if raw := bytes.TrimSpace(line); len(raw) > 0 {
			f.waiting, _ = r.Peek(r.Buffered())
			if msgs, ok := f.check(raw); ok {
				return frame{raw: raw, msgs: msgs, batch: raw[0] == '['}, nil
			}
		}
		if err != nil {
			return frame{}, err
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

// check decodes frame into the messages go-sdk gets, answering the frame
// instead (ok false) when it is not acceptable.
func (f *frameFilter) check(frame []byte) (msgs []jsonrpc.Message, ok bool) {
	if !json.Valid(frame) {
		f.refuse(nil, jsonrpc.CodeParseError, "frame_not_json", nil)
		return nil, false
	}
	if d := jsonv.Depth(frame); d > maxFrameDepth {
		f.refuse(topLevelID(frame), jsonrpc.CodeInvalidRequest, "frame_too_deep", M{"depth": d, "limit": maxFrameDepth})
		return nil, false
	}
	if frame[0] != '[' {
		msg, err := decodeMessage(frame)
		if err != nil {
			f.refuse(topLevelID(frame), jsonrpc.CodeInvalidRequest, "frame_invalid", M{"problem": err.Error()})
			return nil, false
		}
		if f.refuseDiscover(frame, msg) {
			return nil, false
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
		return []jsonrpc.Message{msg}, true
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(frame, &batch); err != nil || len(batch) == 0 {
		f.refuse(nil, jsonrpc.CodeInvalidRequest, "frame_empty_batch", nil)
		return nil, false
	}
	if f.version >= "2025-06-18" {
		f.refuse(nil, jsonrpc.CodeInvalidRequest, "frame_batch_refused", M{"version": f.version})
		return nil, false
	}
	ids := map[jsonrpc.ID]bool{}
	for _, m := range batch {
		msg, err := decodeMessage(m)
		if err != nil {
			f.refuse(topLevelID(m), jsonrpc.CodeInvalidRequest, "frame_invalid", M{"problem": err.Error()})
			return nil, false
		}
		// Each request's answer is filed under its id (stdioConn.addBatch).
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if ids[req.ID] {
				f.refuse(nil, jsonrpc.CodeInvalidRequest, "frame_invalid", M{"problem": fmt.Sprintf("the id %v is used twice in the batch", req.ID.Raw())})
				return nil, false
			}
			ids[req.ID] = true
		}
		msgs = append(msgs, msg)
	}
	return msgs, true
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
