package mcpkit

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
)

// response is what came back from the backend, or why nothing did.
type response struct {
	status int
	header http.Header
	body   []byte
	err    error
	// sent is true once the request was written to the connection: after
	// that, a failed write may still have taken effect.
	sent bool
	// tooLarge: the body was longer than Config.MaxResponseBytes, so it
	// was not read (body is empty).
	tooLarge bool
}

// Do sends r and turns the outcome into the result the model reads.
func (c *Call) Do(r *Request) *mcp.CallToolResult {
	if c.missing != nil {
		return c.missingContext()
	}
	if r.err != nil {
		return errorResult(c.say("request_not_built", M{"problem": r.err.Error()}))
	}
	resp := c.send(r)
	c.sent = r
	c.audit.Steps = append(c.audit.Steps, auditStep{Method: r.Method, Path: r.template, Status: resp.status})
	if resp.err != nil || resp.status < 200 || resp.status > 299 {
		return c.failure(r, resp)
	}
	return c.success(r, resp)
}

func (c *Call) send(r *Request) response {
	start := time.Now()
	attempts := 1
	if r.readOnly {
		attempts += c.kit.cfg.Retries
	}
	var resp response
	for i := 0; i < attempts; i++ {
		if i > 0 {
			select {
			case <-c.ctx.Done():
				return response{err: c.ctx.Err()}
			case <-time.After(time.Duration(100<<(i-1)) * time.Millisecond):
			}
		}
		resp = c.sendOnce(r, i)
		if !retryable(resp) {
			break
		}
	}
	// Each call's requests are in its audit record; a separate line per
	// request would double the logging on the hot path. Failures to reach
	// the backend, which the record shows only as a status 0, are logged.
	if resp.err != nil {
		c.logger().Warn("backend request failed", "tool", c.tool.Name, "method", r.Method, "path", r.template,
			"ms", time.Since(start).Milliseconds(), "error", c.redact(resp.err.Error()))
	}
	return resp
}

// retryable: connection failures and gateway errors of read-only calls.
func retryable(r response) bool {
	var be *buildError
	if r.err != nil {
		return !errors.Is(r.err, context.Canceled) && !errors.As(r.err, &be)
	}
	return r.status == http.StatusBadGateway || r.status == http.StatusServiceUnavailable || r.status == http.StatusGatewayTimeout
}

// sendOnce sends r once; attempt counts the retries before it.
func (c *Call) sendOnce(r *Request, attempt int) (out response) {
	req, err := c.build(r)
	if err != nil {
		return response{err: &buildError{err}}
	}
	ctx := c.ctx
	if tel := c.kit.tel; tel != nil {
		var span trace.Span
		ctx, span = tel.startRequest(c, r, req, attempt)
		defer func() { endRequest(span, out) }()
	}
	var sent atomic.Bool
	wrote := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { sent.Store(true) }}
	ctx, cancel := context.WithTimeout(httptrace.WithClientTrace(ctx, wrote), c.kit.cfg.Timeout)
	defer cancel()
	hres, err := c.kit.client.Do(req.WithContext(ctx))
	if err != nil {
		return response{err: err, sent: sent.Load()}
	}
	// Closing the body without reading it to the end drops the connection:
	// the rest of a response past the limit is never transferred.
	defer hres.Body.Close()
	limit := c.kit.cfg.MaxResponseBytes
	out = response{status: hres.StatusCode, header: hres.Header, sent: true}
	if hres.ContentLength > int64(limit) {
		out.tooLarge = true
		return out
	}
	body, err := io.ReadAll(io.LimitReader(hres.Body, int64(limit)+1))
	if err != nil {
		return response{err: err, sent: true}
	}
	if len(body) > limit {
		out.tooLarge = true
		return out
	}
	out.body = body
	return out
}

// buildError is a request the server could not assemble: nothing was
// sent, and sending again cannot help.
type buildError struct{ err error }

func (e *buildError) Error() string { return e.err.Error() }
func (e *buildError) Unwrap() error { return e.err }

// build assembles the http.Request: base URL + escaped path + query, then
// headers, cookies, credentials and body.
func (c *Call) build(r *Request) (*http.Request, error) {
	path, err := r.expandPath()
	if err != nil {
		return nil, err
	}
	if err := r.encodeBody(); err != nil {
		return nil, err
	}
	u := *c.kit.base
	rawPath := strings.TrimRight(u.EscapedPath(), "/") + path
	// Copied: credentials are added per attempt and must not pile up.
	query := url.Values{}
	for k, v := range r.query {
		query[k] = append([]string(nil), v...)
	}
	headers := http.Header{}
	for k, v := range r.header {
		headers.Set(k, v)
	}
	apiKeyCookies := c.applyCredentials(r.security, headers, query)
	u.RawPath = rawPath
	u.Path = rawPath
	if p, err := unescapePath(rawPath); err == nil {
		u.Path = p
	}
	u.RawQuery = query.Encode()
	var body io.Reader
	if r.hasBody() {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(c.ctx, r.Method, u.String(), body)
	if err != nil {
		return nil, err
	}
	// The built URL must still point at the configured backend.
	if req.URL.Host != c.kit.base.Host || req.URL.Scheme != c.kit.base.Scheme {
		return nil, fmt.Errorf("request URL escaped the backend host")
	}
	req.Header = headers
	if r.hasBody() && r.ctype != "" {
		req.Header.Set("Content-Type", r.ctype)
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json, */*;q=0.5")
	}
	req.Header.Set("User-Agent", "tailor-mcp/"+c.kit.api.Name)
	// Unless the API declares a parameter of that name, whose value (the
	// overlay says from where) is the API's to have.
	if c.requestID != "" && req.Header.Get(RequestIDHeader) == "" {
		req.Header.Set(RequestIDHeader, c.requestID)
	}
	cookies := append(append([]string(nil), r.cookies...), apiKeyCookies...)
	if len(cookies) > 0 {
		req.Header.Set("Cookie", strings.Join(cookies, "; "))
	}
	return req, nil
}

// applyCredentials applies the first security alternative whose credentials
// are all configured; in HTTP mode with pass-through on, the caller's
// Authorization header is forwarded instead of a configured bearer token.
func (c *Call) applyCredentials(security [][]string, h http.Header, q url.Values) (cookies []string) {
	passed := ""
	if c.kit.cfg.PassThroughAuth && c.header != nil {
		passed = c.header.Get("Authorization")
	}
	for _, alt := range security {
		ok := true
		for _, name := range alt {
			if _, have := c.kit.creds[name]; !have {
				ok = false
			}
		}
		if !ok {
			continue
		}
		for _, name := range alt {
			cr := c.kit.creds[name]
			if c.viaParam[name] {
				continue
			}
			switch cr.scheme.Kind {
			case Bearer:
				h.Set("Authorization", "Bearer "+cr.value)
			case Basic:
				h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(cr.user+":"+cr.value)))
			case APIKey:
				switch cr.scheme.In {
				case "query":
					q.Set(cr.scheme.ParamName, cr.value)
				case "cookie":
					cookies = append(cookies, url.QueryEscape(cr.scheme.ParamName)+"="+url.QueryEscape(cr.value))
				default:
					h.Set(cr.scheme.ParamName, cr.value)
				}
			}
		}
		break
	}
	if passed != "" {
		h.Set("Authorization", passed)
	}
	return cookies
}

func unescapePath(p string) (string, error) { return url.PathUnescape(p) }

// success renders a 2xx response.
func (c *Call) success(r *Request, resp response) *mcp.CallToolResult {
	t := c.tool
	v, isJSON, bad := c.readBody(r, resp, t.OutputSchema != "" || t.Quote != nil)
	if bad != nil {
		return errorResult(c.say(bad.id, bad.f))
	}
	if t.Quote != nil && (!isJSON || v == nil) {
		// A quote tool that succeeds must hold a quote: an empty answer
		// is not one.
		return errorResult(c.say("quote_not_made", M{"status": statusLine(resp.status), "problem": "its answer is empty"}))
	}
	if isJSON {
		return c.shapeJSON(resp.status, resp.body, v)
	}
	body := resp.body
	if len(bytes.TrimSpace(body)) == 0 {
		return textResult(c.say("done_no_content", M{"status": statusLine(resp.status)}))
	}
	ctype := resp.header.Get("Content-Type")
	if strings.HasPrefix(strings.ToLower(ctype), "image/") && len(body) <= maxImageBytes {
		mt := strings.TrimSpace(strings.SplitN(ctype, ";", 2)[0])
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: body, MIMEType: mt}}}
	}
	if isText(ctype, body) {
		limit := c.resultLimit()
		if len(body) <= limit {
			return textResult(string(body))
		}
		return textResult(truncate(string(body), limit) + "\n\n" + c.say("result_cut", M{"limit": limit, "size": len(body)}))
	}
	return textResult(c.say("binary_content", M{"status": statusLine(resp.status), "size": len(body), "content_type": ctype,
		"base64": truncate(base64.StdEncoding.EncodeToString(body[:min(len(body), 3072)]), 4096)}))
}

// statusLine is an HTTP status as the messages show it: "HTTP 404 Not
// Found". Made where a message needs it: a successful call shows none.
func statusLine(code int) string {
	return fmt.Sprintf("HTTP %d %s", code, http.StatusText(code))
}

// badAnswer is a 2xx answer that cannot be used: the message to say (by
// id) and its fields, among them always status and problem.
type badAnswer struct {
	id string
	f  M
}

// readBody decodes a 2xx response's body. A body that is too large, or
// that is not valid JSON although its Content-Type (or, with expectJSON,
// the API's description) says JSON, is a failure that says so: an answer
// that cannot be read is never passed off as a success. isJSON is false
// for an empty body and for content that is not JSON.
func (c *Call) readBody(r *Request, resp response, expectJSON bool) (v any, isJSON bool, bad *badAnswer) {
	write := !r.readOnly
	if resp.tooLarge {
		id := "response_too_large"
		if write {
			id = "response_too_large_write"
		}
		limit := byteSize(c.kit.cfg.MaxResponseBytes)
		return nil, false, &badAnswer{id, M{"status": statusLine(resp.status), "limit": limit, "problem": "it is larger than this server's limit of " + limit + ", so it was not read"}}
	}
	body := resp.body
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, false, nil
	}
	ctype := resp.header.Get("Content-Type")
	declared := isJSONType(ctype)
	if !declared && !expectJSON && !(ctype == "" && jsonLike(body)) {
		return nil, false, nil
	}
	if v, ok := decodeJSON(body); ok {
		return v, true, nil
	}
	problem := "its content is not valid JSON"
	switch {
	case declared:
		problem = fmt.Sprintf("its content is not valid JSON although it says %s", ctype)
	case ctype != "":
		problem = fmt.Sprintf("it sent %s where the API's description promises JSON", ctype)
	}
	f := M{"status": statusLine(resp.status), "content_type": ctype, "problem": problem, "excerpt": excerpt(body)}
	id := "response_invalid"
	switch {
	case c.tool.Quote != nil && c.step == "":
		id = "quote_not_made"
	case write:
		id = "response_invalid_write"
	}
	c.logger().Warn("backend answered with content that cannot be read", "tool", c.tool.Name, "step", c.step, "status", resp.status, "content_type", ctype, "bytes", len(body))
	return nil, false, &badAnswer{id, f}
}

// excerpt is the start of a body, as text the model can read, or "".
func excerpt(body []byte) string {
	if !utf8.Valid(body) {
		return ""
	}
	s := strings.Join(strings.Fields(string(body)), " ")
	return strconv.Quote(truncate(s, 120))
}

// byteSize writes n bytes for people: 10485760 → "10 MiB".
func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
