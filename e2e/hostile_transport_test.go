package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
	"github.com/tailormcp/tailor/internal/testkit"
)

// rawStdio is a client that writes JSON-RPC lines itself, to send what
// go-sdk's client never would.
type rawStdio struct {
	t      *testing.T
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
}

func startRaw(t *testing.T, sv server, env []string) *rawStdio {
	t.Helper()
	bin, pre := sv.command(t)
	cmd := exec.Command(bin, pre...)
	cmd.Env = append(os.Environ(), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r := &rawStdio{t: t, in: in, out: bufio.NewReaderSize(out, 1<<20), stderr: &bytes.Buffer{}}
	cmd.Stderr = r.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return r
}

func (r *rawStdio) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

// message reads the next message the server writes; a server request
// for approval is answered with accept on the way.
func (r *rawStdio) message() map[string]any {
	r.t.Helper()
	for {
		type result struct {
			line []byte
			err  error
		}
		done := make(chan result, 1)
		go func() {
			l, err := r.out.ReadBytes('\n')
			done <- result{l, err}
		}()
		var res result
		select {
		case res = <-done:
		case <-time.After(20 * time.Second):
			r.t.Fatalf("no answer from the server\nstderr:\n%s", r.stderr)
		}
		if res.err != nil {
			r.t.Fatalf("the server stopped answering: %v\nstderr:\n%s", res.err, r.stderr)
		}
		var m map[string]any
		if err := json.Unmarshal(res.line, &m); err != nil {
			r.t.Fatalf("stdout carries something other than JSON-RPC: %q", res.line)
		}
		if m["method"] == "elicitation/create" {
			id, _ := json.Marshal(m["id"])
			r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept"}}`, id))
			continue
		}
		if m["method"] != nil && m["id"] == nil {
			continue // a notification
		}
		return m
	}
}

// call sends a request and returns its response.
func (r *rawStdio) call(id int, method, params string) map[string]any {
	r.t.Helper()
	r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	m := r.message()
	if m["id"] != float64(id) {
		r.t.Fatalf("answer to %d expected, got %v", id, m)
	}
	return m
}

// toolText is the text of a tools/call response.
func toolText(m map[string]any) string {
	res, _ := m["result"].(map[string]any)
	var parts []string
	content, _ := res["content"].([]any)
	for _, c := range content {
		if tc, ok := c.(map[string]any); ok {
			parts = append(parts, fmt.Sprint(tc["text"]))
		}
	}
	return strings.Join(parts, "\n")
}

// TestHostileStdioFrames: garbage, nesting 1000 deep and a wrong JSON-RPC
// version each get an error answer, and the session goes on: a quote made
// before them is carried out after.
func TestHostileStdioFrames(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			r := startRaw(t, sv, []string{"BACKOFFICE_BASE_URL=" + rig.url, "BACKOFFICE_CUSTOMER_ID=" + backend.Wang})
			r.call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}`)
			r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			m := r.call(2, "tools/call", `{"name":"quote_refund","arguments":{"order_id":"5531","line_item_ids":["li_2"]}}`)
			q := regexp.MustCompile(`q_[a-z0-9]{10}`).FindString(toolText(m))
			if q == "" {
				t.Fatalf("no quote: %v", m)
			}

			deep := strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
			for _, c := range []struct {
				line string
				id   any
				code float64
			}{
				{`this is not JSON {`, nil, -32700},
				{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_order","arguments":{"order_id":` + deep + `}}}`, float64(3), -32600},
				{`{"jsonrpc":"1.0","id":4,"method":"tools/list"}`, float64(4), -32600},
				{deep, nil, -32600},
			} {
				r.send(c.line)
				m := r.message()
				e, _ := m["error"].(map[string]any)
				if m["id"] != c.id || e == nil || e["code"] != c.code {
					t.Errorf("for %.40q: got %v, want error %v with id %v", c.line, m, c.code, c.id)
				}
			}

			m = r.call(5, "tools/call", fmt.Sprintf(`{"name":"refund_items","arguments":{"quote_id":%q}}`, q))
			contains(t, toolText(m), "refunded NT$230")
			eq(t, "refunds", len(rig.shop.Refunds("5531")), 1)
			eq(t, "backend reads of the deep call", len(orderReads(rig)), 0)
			contains(t, r.stderr.String(), `"msg":"stdio message refused"`, `"msg":"audit","tool":"refund_items"`)
		})
	}
}

// run starts sv's program with args and env and returns its exit code and
// stderr, for start-up refusals.
func runServer(t *testing.T, sv server, env []string, args ...string) (int, string) {
	t.Helper()
	bin, pre := sv.command(t)
	cmd := exec.Command(bin, append(pre, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdin = strings.NewReader("")
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stderr.String()
}

// TestHostileConfigValues: a bad value is an error at start that names
// where it came from, never a silent default.
func TestHostileConfigValues(t *testing.T) {
	base := []string{"BACKOFFICE_BASE_URL=http://127.0.0.1:1"}
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			for _, c := range []struct {
				env  []string
				args []string
				want string
			}{
				{nil, []string{"--quote-ttl", "0s"}, "--quote-ttl 0s: give a positive duration"},
				{nil, []string{"--quote-ttl", "-5m"}, "--quote-ttl -5m0s: give a positive duration"},
				{[]string{"BACKOFFICE_QUOTE_TTL=0"}, nil, "BACKOFFICE_QUOTE_TTL 0s: give a positive duration"},
				{[]string{"BACKOFFICE_TIMEOUT=fast"}, nil, `BACKOFFICE_TIMEOUT="fast": not a duration`},
				{[]string{"BACKOFFICE_RETRIES=three"}, nil, `BACKOFFICE_RETRIES="three": not a whole number`},
				{[]string{"BACKOFFICE_RETRIES=-1"}, nil, "BACKOFFICE_RETRIES -1: must be at least 0"},
				{[]string{"BACKOFFICE_STATELESS=maybe"}, nil, `BACKOFFICE_STATELESS="maybe": not a boolean`},
				{[]string{"BACKOFFICE_MAX_QUOTES=0"}, nil, "BACKOFFICE_MAX_QUOTES 0: must be at least 1"},
				{nil, []string{"--timeout", "0s"}, "--timeout 0s: give a positive duration"},
				{[]string{"BACKOFFICE_APPROVAL_KEY=short"}, nil, "approval key has 5 bytes"},
				{[]string{"BACKOFFICE_MAX_RESPONSE_BYTES=10MB"}, nil, `BACKOFFICE_MAX_RESPONSE_BYTES="10MB": not a whole number`},
				{nil, []string{"--max-response-bytes", "0"}, "--max-response-bytes 0: must be at least 1"},
			} {
				code, stderr := runServer(t, sv, append(append([]string(nil), base...), c.env...), c.args...)
				if code != 2 || !strings.Contains(stderr, c.want) {
					t.Errorf("%v %v: exit %d, stderr:\n%s\nwant %q", c.env, c.args, code, stderr, c.want)
				}
			}
		})
	}
}

// TestHostileHTTPListener: a slow body and an idle connection are closed,
// cross-origin browsers are refused unless allowed, idle sessions expire,
// and header identity is refused on a non-loopback address unless the
// operator says a gateway sets it.
func TestHostileHTTPListener(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			bin, pre := sv.command(t)
			env := []string{"BACKOFFICE_BASE_URL=" + rig.url}
			slow := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				time.Sleep(1500 * time.Millisecond)
				return &mcp.ElicitResult{Action: "accept"}, nil
			}}
			srv := testkit.StartHTTPOptions(t, bin, env, asCustomer(backend.Wang), slow, append(pre,
				"--http-read-timeout", "1s", "--http-idle-timeout", "1s", "--session-timeout", "1s",
				"--allow-origin", "https://app.example.com")...)
			// A call that outlasts the read timeout (the person takes their
			// time) is not cut off: the deadline covers reading the request.
			res := srv.Call(t, "refund_items", map[string]any{"quote_id": quote5531(t, srv)})
			eq(t, "a slow approval", res.IsError, false)
			host := strings.TrimPrefix(strings.TrimSuffix(srv.Endpoint, "/mcp"), "http://")

			// A connection per request: with --http-idle-timeout 1s the
			// server may close a pooled one as a request goes out on it
			// (a slow machine), and a POST is not retried.
			fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			post := func(origin, session string) *http.Response {
				req, _ := http.NewRequest(http.MethodPost, srv.Endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if origin != "" {
					req.Header.Set("Origin", origin)
				}
				if session != "" {
					req.Header.Set("Mcp-Session-Id", session)
				}
				resp, err := fresh.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp
			}
			eq(t, "cross-origin", post("https://evil.example", srv.Session.ID()).StatusCode, http.StatusForbidden)
			eq(t, "allowed origin", post("https://app.example.com", srv.Session.ID()).StatusCode, http.StatusOK)

			// A body that never finishes is cut off.
			conn, err := net.Dial("tcp", host)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", host)
			if !closedWithin(conn, 4*time.Second) {
				t.Error("a slow body kept its connection open")
			}
			// A connection that sends nothing, or nothing more, is closed.
			conn, err = net.Dial("tcp", host)
			if err != nil {
				t.Fatal(err)
			}
			if !closedWithin(conn, 15*time.Second) {
				t.Error("an idle connection stayed open")
			}

			// An idle session expires (the checks above took over a second).
			id := srv.Session.ID()
			time.Sleep(1500 * time.Millisecond)
			eq(t, "expired session", post("", id).StatusCode, http.StatusNotFound)

			// Header identity on every interface: refused unless a gateway is trusted.
			code, stderr := runServer(t, sv, env, "--http", "0.0.0.0:0")
			eq(t, "exit", code, 2)
			contains(t, stderr, "refusing to listen on 0.0.0.0:0", "customer_id from the X-Customer-Id header", "--trust-context-headers")
		})
	}
}

// closedWithin reports whether the server closes conn within d.
func closedWithin(conn net.Conn, d time.Duration) bool {
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(d))
	buf := make([]byte, 4096)
	for {
		if _, err := conn.Read(buf); err != nil {
			ne, ok := err.(net.Error)
			return !(ok && ne.Timeout())
		}
	}
}

// TestHostileHTTPBatches: a JSON-RPC batch, which protocol versions before
// 2025-06-18 allow, is refused whole over HTTP, stateful and stateless, so
// one POST cannot fan out into many backend calls; single messages after it
// still work.
func TestHostileHTTPBatches(t *testing.T) {
	for _, sv := range backofficeServers() {
		for _, mode := range []string{"stateful", "stateless"} {
			t.Run(sv.kind+"/"+mode, func(t *testing.T) {
				rig := newShop(t)
				bin, pre := sv.command(t)
				args := slices.Clone(pre)
				if mode == "stateless" {
					args = append(args, "--stateless")
				}
				env := []string{"BACKOFFICE_BASE_URL=" + rig.url, "BACKOFFICE_CUSTOMER_ID=" + backend.Wang}
				srv := testkit.RunHTTP(t, bin, env, args...)
				post := func(session, body string) (*http.Response, string) {
					t.Helper()
					req, _ := http.NewRequest(http.MethodPost, srv.Endpoint, strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
					if session != "" {
						req.Header.Set("Mcp-Session-Id", session)
					}
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					defer resp.Body.Close()
					b, _ := io.ReadAll(resp.Body)
					return resp, string(b)
				}
				resp, _ := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"batcher","version":"1"}}}`)
				eq(t, "initialize", resp.StatusCode, http.StatusOK)
				session := resp.Header.Get("Mcp-Session-Id")
				post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

				var calls []string
				for i := range 200 {
					calls = append(calls, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_order","arguments":{"order_id":"5531"}}}`, i+1))
				}
				for _, batch := range []string{"[" + strings.Join(calls, ",") + "]", " \n\t[" + calls[0] + "]"} {
					resp, body := post(session, batch)
					eq(t, "batch status", resp.StatusCode, http.StatusBadRequest)
					var e struct {
						Error struct {
							Code    int
							Message string
						}
					}
					if err := json.Unmarshal([]byte(body), &e); err != nil {
						t.Fatalf("not a JSON-RPC error: %v\n%s", err, body)
					}
					eq(t, "code", e.Error.Code, -32600)
					contains(t, e.Error.Message, "one JSON-RPC message per HTTP request", "not a batch")
				}
				eq(t, "requests the backend received", len(rig.shop.Calls()), 0)

				// The same call alone goes through.
				resp, body := post(session, calls[0])
				eq(t, "single call", resp.StatusCode, http.StatusOK)
				contains(t, body, "5531")
				if n := len(rig.shop.Calls()); n != 1 {
					t.Errorf("requests the backend received after one call: %d", n)
				}
			})
		}
	}
}
