package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// The benchmark speaks JSON-RPC itself instead of using an MCP client
// library: the client's own cost is then small, the same for both servers,
// and the clock stops the moment the last byte of an answer is read.

const protocolVersion = "2025-06-18"

const initializeParams = `{"protocolVersion":"` + protocolVersion + `","capabilities":{},"clientInfo":{"name":"tailorbench","version":"1"}}`

// rpcMessage is the part of a JSON-RPC message the benchmark reads.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// callResult is the part of a tools/call result the benchmark checks.
type callResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// checkCall returns an error unless raw is a successful tools/call result
// whose text carries the backend's marker.
func checkCall(raw json.RawMessage) error {
	var r callResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("tools/call result: %v", err)
	}
	var text strings.Builder
	for _, c := range r.Content {
		text.WriteString(c.Text)
	}
	if r.IsError || !strings.Contains(text.String(), backendMarker) {
		return fmt.Errorf("tools/call did not return the backend's answer (isError=%v): %.300s", r.IsError, text.String())
	}
	return nil
}

// stdioServer is a server process spoken to over its stdin and stdout.
type stdioServer struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	start  time.Time
	nextID int
	cancel context.CancelFunc
	stderr *os.File
}

// startStdio spawns argv in dir with env added, its stderr going to the
// file errPath. The process is killed when timeout passes or Close is
// called, whichever comes first.
func startStdio(ctx context.Context, argv []string, dir string, env []string, errPath string, timeout time.Duration) (*stdioServer, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = procAttr()
	cmd.WaitDelay = 2 * time.Second
	errf, err := os.Create(errPath)
	if err != nil {
		cancel()
		return nil, err
	}
	cmd.Stderr = errf
	in, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		errf.Close()
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		errf.Close()
		return nil, err
	}
	s := &stdioServer{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), cancel: cancel, stderr: errf}
	s.start = time.Now()
	if err := cmd.Start(); err != nil {
		cancel()
		errf.Close()
		return nil, err
	}
	return s, nil
}

// request sends a request and returns its result, the time the last byte
// of the answer arrived, and the answer's size in bytes.
func (s *stdioServer) request(method, params string) (json.RawMessage, time.Time, int, error) {
	s.nextID++
	id := s.nextID
	msg := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `"`
	if params != "" {
		msg += `,"params":` + params
	}
	if _, err := io.WriteString(s.in, msg+"}\n"); err != nil {
		return nil, time.Time{}, 0, fmt.Errorf("%s: write: %v", method, err)
	}
	want := strconv.Itoa(id)
	for {
		line, err := s.out.ReadBytes('\n')
		at := time.Now()
		if err != nil {
			return nil, at, 0, fmt.Errorf("%s: read: %v", method, err)
		}
		var m rpcMessage
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, at, 0, fmt.Errorf("%s: not JSON-RPC on stdout: %.200q", method, line)
		}
		if string(bytes.TrimSpace(m.ID)) != want || m.Method != "" {
			continue // a notification or a request from the server
		}
		if m.Error != nil {
			return nil, at, len(line), fmt.Errorf("%s: error %d: %s", method, m.Error.Code, m.Error.Message)
		}
		return m.Result, at, len(line), nil
	}
}

func (s *stdioServer) notify(method string) error {
	_, err := io.WriteString(s.in, `{"jsonrpc":"2.0","method":"`+method+`"}`+"\n")
	return err
}

// initialize performs the MCP handshake.
func (s *stdioServer) initialize() (time.Time, error) {
	_, at, _, err := s.request("initialize", initializeParams)
	if err != nil {
		return at, err
	}
	return at, s.notify("notifications/initialized")
}

// listTools reads every page of tools/list and returns the tools (as the
// raw JSON objects the server sent), when the last page arrived, and the
// results as sent (pages joined by newlines).
func (s *stdioServer) listTools() ([]json.RawMessage, time.Time, []byte, error) {
	var tools []json.RawMessage
	var at time.Time
	var raw []byte
	params := ""
	for page := 0; page < 100; page++ {
		res, t, _, err := s.request("tools/list", params)
		if err != nil {
			return nil, t, nil, err
		}
		at = t
		if len(raw) > 0 {
			raw = append(raw, '\n')
		}
		raw = append(raw, res...)
		var r struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &r); err != nil {
			return nil, at, nil, fmt.Errorf("tools/list: %v", err)
		}
		tools = append(tools, r.Tools...)
		if r.NextCursor == "" {
			return tools, at, raw, nil
		}
		c, _ := json.Marshal(r.NextCursor)
		params = `{"cursor":` + string(c) + `}`
	}
	return nil, at, nil, errors.New("tools/list: more than 100 pages")
}

// Close ends the session (closing stdin, which both servers take as the
// end) and waits for the process, killing it if it lingers.
func (s *stdioServer) Close() {
	s.in.Close()
	done := make(chan struct{})
	go func() {
		s.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		s.cancel()
		<-done
	}
	s.cancel()
	s.stderr.Close()
}

// httpSession is one MCP session over streamable HTTP.
type httpSession struct {
	client *http.Client
	url    string
	id     string // Mcp-Session-Id
}

// post sends one JSON-RPC message and, for a request, returns its result.
// Answers may come as application/json or as an SSE stream.
func (h *httpSession) post(ctx context.Context, id int64, method, params string) (json.RawMessage, http.Header, error) {
	msg := `{"jsonrpc":"2.0"`
	if id != 0 {
		msg += `,"id":` + strconv.FormatInt(id, 10)
	}
	msg += `,"method":"` + method + `"`
	if params != "" {
		msg += `,"params":` + params
	}
	msg += "}"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, strings.NewReader(msg))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", protocolVersion)
	if h.id != "" {
		req.Header.Set("Mcp-Session-Id", h.id)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, resp.Header, fmt.Errorf("%s: HTTP %s: %s", method, resp.Status, bytes.TrimSpace(b))
	}
	if id == 0 {
		io.Copy(io.Discard, resp.Body)
		return nil, resp.Header, nil
	}
	want := strconv.FormatInt(id, 10)
	found := func(data []byte) (json.RawMessage, bool, error) {
		var m rpcMessage
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, false, fmt.Errorf("%s: bad JSON-RPC: %.200q", method, data)
		}
		if string(bytes.TrimSpace(m.ID)) != want || m.Method != "" {
			return nil, false, nil
		}
		if m.Error != nil {
			return nil, true, fmt.Errorf("%s: error %d: %s", method, m.Error.Code, m.Error.Message)
		}
		return m.Result, true, nil
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, resp.Header, err
		}
		res, ok, err := found(b)
		if err == nil && !ok {
			err = fmt.Errorf("%s: the answer is not the response to the request", method)
		}
		return res, resp.Header, err
	}
	// SSE: events are separated by blank lines; data lines are joined.
	r := bufio.NewReader(resp.Body)
	var data []byte
	for {
		line, err := r.ReadBytes('\n')
		trimmed := bytes.TrimRight(line, "\r\n")
		switch {
		case len(trimmed) == 0 && len(data) > 0:
			res, ok, ferr := found(data)
			data = data[:0]
			if ferr != nil || ok {
				// Read the rest so the connection is reused.
				io.Copy(io.Discard, r)
				return res, resp.Header, ferr
			}
		case bytes.HasPrefix(trimmed, []byte("data:")):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(trimmed, []byte("data:")), []byte(" "))...)
		}
		if err != nil {
			if len(data) > 0 {
				res, ok, ferr := found(data)
				if ferr != nil || ok {
					return res, resp.Header, ferr
				}
			}
			return nil, resp.Header, fmt.Errorf("%s: the stream ended without the response (%v)", method, err)
		}
	}
}

// openHTTPSession initializes a session at url.
func openHTTPSession(ctx context.Context, client *http.Client, url string) (*httpSession, error) {
	h := &httpSession{client: client, url: url}
	_, hdr, err := h.post(ctx, 1, "initialize", initializeParams)
	if err != nil {
		return nil, err
	}
	h.id = hdr.Get("Mcp-Session-Id")
	if _, _, err := h.post(ctx, 0, "notifications/initialized", ""); err != nil {
		return nil, err
	}
	return h, nil
}
