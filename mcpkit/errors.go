package mcpkit

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// failure turns a failed call into an isError result that says what went
// wrong and what to do next, by kind of failure.
func (c *Call) failure(r *Request, resp response) *mcp.CallToolResult {
	t := c.tool
	if resp.err != nil {
		return errorResult(c.kit.redact(c.transportFailure(r, resp)))
	}
	if res := c.ruleFor(resp); res != nil {
		return res
	}
	detail := c.kit.redact(backendMessage(resp.body))
	status := fmt.Sprintf("HTTP %d %s", resp.status, http.StatusText(resp.status))
	said := ""
	if detail != "" {
		said = " The API said: " + strings.TrimRight(detail, ". ") + "."
	}
	var msg string
	switch s := resp.status; {
	case s == 400 || s == 422:
		msg = fmt.Sprintf("The API rejected the request as invalid (%s).%s Correct the argument it names and call %s again; do not repeat the same arguments.", status, said, t.Name)
	case s == 401 || s == 403:
		msg = fmt.Sprintf("Not permitted (%s).%s The MCP server's credentials do not allow this call. Do not retry it and do not look for another tool to get around it; tell the user it is not permitted.", status, said)
		if envs := c.kit.missingCredentials(t); len(envs) > 0 {
			c.kit.log.Warn("call rejected and no credentials are configured for it", "tool", t.Name, "set_one_of", strings.Join(envs, ", "))
		}
	case s == 404:
		msg = fmt.Sprintf("Not found (%s).%s Nothing exists at the identifiers you passed. Check them (for example by listing or searching first) instead of guessing new ones.", status, said)
	case s == 405 || s == 501:
		msg = fmt.Sprintf("The API does not support this operation here (%s).%s Do not retry.", status, said)
	case s == 409:
		msg = fmt.Sprintf("Conflict (%s).%s The resource's current state does not allow this. Read its current state again and decide from that; do not repeat the call unchanged.", status, said)
	case s == 412:
		msg = fmt.Sprintf("Precondition failed (%s).%s The resource changed since you read it; read it again before retrying.", status, said)
	case s == 413:
		msg = fmt.Sprintf("The request was too large (%s).%s Send less data.", status, said)
	case s == 429:
		wait := "a little while"
		if ra := retryAfter(resp.header); ra != "" {
			wait = ra
		}
		msg = fmt.Sprintf("Rate limited (%s): too many requests.%s Wait %s before calling %s again.", status, said, wait, t.Name)
	case s >= 500:
		if r.readOnly {
			msg = fmt.Sprintf("The API failed (%s).%s This is a problem on the API's side, not with your arguments. You may retry once later; if it keeps failing, tell the user the service is having trouble.", status, said)
		} else {
			msg = fmt.Sprintf("The API failed (%s) while handling this change.%s It may or may not have taken effect. Check the current state with a read-only tool before trying again, and do not resend it blindly.", status, said)
		}
	case s >= 300 && s < 400:
		msg = fmt.Sprintf("The API answered with a redirect (%s) that the MCP server does not follow.%s The server's base URL is probably misconfigured; tell the user.", status, said)
	default:
		msg = fmt.Sprintf("The API answered %s.%s", status, said)
	}
	return errorResult(msg)
}

func (c *Call) transportFailure(r *Request, resp response) string {
	err := resp.err
	t := c.tool
	host := c.kit.base.Host
	var be *buildError
	if errors.As(err, &be) {
		return fmt.Sprintf("The MCP server could not build the request for %s (%v), so nothing was sent. This is a defect in the server's configuration or in the API description, not a problem with the API's availability or your arguments: retrying will not help. Tell the user.", t.Name, be.err)
	}
	var cert *tls.CertificateVerificationError
	if errors.As(err, &cert) {
		return fmt.Sprintf("The API at %s presented a TLS certificate the MCP server does not trust (%v). Retrying will not help: the server's base URL or the API's certificate is wrong; tell the user.", host, cert.Err)
	}
	var ne net.Error
	timedOut := errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
	switch {
	case errors.Is(err, context.Canceled):
		return "The call was cancelled before the API answered."
	case timedOut && !resp.sent:
		return fmt.Sprintf("Could not reach the API at %s within %s; nothing was sent. Retry later; if it keeps failing, tell the user the service is unreachable.", host, c.kit.cfg.Timeout)
	case timedOut && (r.readOnly || r.idempotent):
		return fmt.Sprintf("The API did not answer within %s. This call is safe to repeat: retry once; if it times out again, tell the user the service is slow or down.", c.kit.cfg.Timeout)
	case timedOut:
		return fmt.Sprintf("The request was sent but the API did not answer within %s, so the outcome is unknown: the change may or may not have been made. Do not call %s again blindly; first check with a read-only tool whether it took effect.", c.kit.cfg.Timeout, t.Name)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("Could not connect to the API at %s (connection refused); nothing was sent. The service is down or the server is misconfigured. Retry later or tell the user.", host)
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return fmt.Sprintf("Could not resolve the API host %s; nothing was sent. The server is misconfigured; tell the user.", host)
	}
	if resp.sent && !r.readOnly && !r.idempotent {
		return fmt.Sprintf("The connection to the API failed after the request was sent (%v), so the outcome is unknown. Do not call %s again blindly; check with a read-only tool whether it took effect.", err, t.Name)
	}
	return fmt.Sprintf("The call to the API failed: %v. Retry later; if it keeps failing, tell the user.", err)
}

// backendMessage pulls the human part out of an error body: common JSON
// fields first (message, detail, error, title, errors), else the text.
func backendMessage(body []byte) string {
	var v any
	if json.Unmarshal(body, &v) == nil {
		if m := findMessage(v, 0); m != "" {
			return truncate(m, 800)
		}
		return truncate(compactJSON(body), 800)
	}
	if !utf8.Valid(body) {
		return ""
	}
	return truncate(strings.TrimSpace(string(body)), 800)
}

func findMessage(v any, depth int) string {
	if depth > 3 {
		return ""
	}
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		var parts []string
		for _, k := range []string{"message", "detail", "error_description", "error", "title", "msg", "description", "errors"} {
			if f, ok := x[k]; ok {
				if m := findMessage(f, depth+1); m != "" && !contains(parts, m) {
					parts = append(parts, m)
				}
			}
		}
		for _, k := range []string{"code", "field", "param", "loc"} {
			if f, ok := x[k]; ok && len(parts) > 0 {
				parts = append(parts, k+": "+jsonText(f))
			}
		}
		return strings.Join(parts, "; ")
	case []any:
		var parts []string
		for i, e := range x {
			if i == 5 {
				parts = append(parts, fmt.Sprintf("and %d more", len(x)-5))
				break
			}
			if m := findMessage(e, depth+1); m != "" {
				parts = append(parts, m)
			}
		}
		return strings.Join(parts, "; ")
	}
	return ""
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func retryAfter(h http.Header) string {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return ""
	}
	if n, err := strconv.Atoi(v); err == nil {
		return fmt.Sprintf("%d seconds", n)
	}
	if t, err := http.ParseTime(v); err == nil {
		return "until " + t.UTC().Format("15:04:05 UTC")
	}
	return ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
