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
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxResponse bounds how much of a response body is read.
const maxResponse = 32 << 20

// response is what came back from the backend, or why nothing did.
type response struct {
	status int
	header http.Header
	body   []byte
	err    error
	// sent is true once the request was written to the connection: after
	// that, a failed write may still have taken effect.
	sent bool
}

// Do sends r and turns the outcome into the result the model reads.
func (c *Call) Do(r *Request) *mcp.CallToolResult {
	if c.missing != nil {
		return c.missingContext()
	}
	if r.err != nil {
		return errorResult(fmt.Sprintf("Invalid arguments for %s: %s. Nothing was sent to the API; fix the arguments and call again.", c.tool.Name, r.err))
	}
	resp := c.send(r)
	c.sent = r
	c.audit.Steps = append(c.audit.Steps, auditStep{Method: r.Method, Path: r.template, Status: resp.status})
	if resp.err != nil || resp.status < 200 || resp.status > 299 {
		return c.failure(r, resp)
	}
	return c.success(resp)
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
		resp = c.sendOnce(r)
		if !retryable(resp) {
			break
		}
	}
	// Each call's requests are in its audit record; a separate line per
	// request would double the logging on the hot path. Failures to reach
	// the backend, which the record shows only as a status 0, are logged.
	if resp.err != nil {
		c.kit.log.Warn("backend request failed", "tool", c.tool.Name, "method", r.Method, "path", r.template,
			"ms", time.Since(start).Milliseconds(), "error", errString(c.kit, resp.err))
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

func (c *Call) sendOnce(r *Request) response {
	req, err := c.build(r)
	if err != nil {
		return response{err: &buildError{err}}
	}
	var sent atomic.Bool
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { sent.Store(true) }}
	ctx, cancel := context.WithTimeout(httptrace.WithClientTrace(c.ctx, trace), c.kit.cfg.Timeout)
	defer cancel()
	hres, err := c.kit.client.Do(req.WithContext(ctx))
	if err != nil {
		return response{err: err, sent: sent.Load()}
	}
	defer hres.Body.Close()
	body, err := io.ReadAll(io.LimitReader(hres.Body, maxResponse))
	if err != nil {
		return response{err: err, sent: true}
	}
	return response{status: hres.StatusCode, header: hres.Header, body: body, sent: true}
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

func errString(k *Kit, err error) string {
	if err == nil {
		return ""
	}
	return k.redact(err.Error())
}

// success renders a 2xx response.
func (c *Call) success(resp response) *mcp.CallToolResult {
	ctype := resp.header.Get("Content-Type")
	body := resp.body
	if len(bytes.TrimSpace(body)) == 0 {
		return textResult(fmt.Sprintf("Done: the API answered HTTP %d %s with no content.", resp.status, http.StatusText(resp.status)))
	}
	if isJSONType(ctype) || (ctype == "" && jsonLike(body)) {
		if v, _, ok := decodeJSON(body); ok {
			return c.shapeJSON(resp.status, body, v)
		}
	}
	if strings.HasPrefix(strings.ToLower(ctype), "image/") {
		mt := strings.TrimSpace(strings.SplitN(ctype, ";", 2)[0])
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: body, MIMEType: mt}}}
	}
	if isText(ctype, body) {
		return textResult(string(body))
	}
	return textResult(fmt.Sprintf("The API answered HTTP %d with %d bytes of binary content (%s), which cannot be shown as text. Base64: %s",
		resp.status, len(body), ctype, truncate(base64.StdEncoding.EncodeToString(body), 4096)))
}
