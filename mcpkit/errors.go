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
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/jsonv"
)

// failure turns a failed call into an isError result that says what went
// wrong and what to do next, by kind of failure.
func (c *Call) failure(r *Request, resp response) *mcp.CallToolResult {
	t := c.tool
	if resp.err != nil {
		return errorResult(c.transportFailure(r, resp))
	}
	if res := c.ruleFor(resp); res != nil {
		return res
	}
	f := M{
		"status": statusLine(resp.status),
		"code":   resp.status,
		"detail": strings.TrimRight(backendMessage(resp.body), ". "),
	}
	var id string
	switch s := resp.status; {
	case s == 400 || s == 422:
		// Only an answer that points at a field is known to be about an
		// argument; a refusal by a rule of the service is not the
		// model's to correct.
		id = "refused"
		if namesField(resp.body) {
			id = "invalid_argument"
		}
	case s == 401 || s == 403:
		id = "not_permitted"
		if envs := c.kit.missingCredentials(t); len(envs) > 0 {
			c.logger().Warn("call rejected and no credentials are configured for it", "tool", t.Name, "set_one_of", strings.Join(envs, ", "))
		}
	case s == 404:
		id = "not_found"
	case s == 405 || s == 501:
		id = "not_supported"
	case s == 409:
		id = "conflict"
	case s == 412:
		id = "precondition_failed"
	case s == 413:
		id = "request_too_large"
	case s == 429:
		id = "rate_limited"
		f["wait"] = "a little while"
		if ra := retryAfter(resp.header); ra != "" {
			f["wait"] = ra
		}
	case s >= 500:
		id = "server_error"
		if !r.readOnly {
			id = "server_error_write"
		}
	case s >= 300 && s < 400:
		id = "redirect"
		f["location"] = truncate(resp.header.Get("Location"), 300)
	default:
		id = "other_status"
	}
	return errorResult(c.say(id, f))
}

// namesField reports whether an error body points at fields of the
// request, as validation errors do (field, param, loc, pointer,
// invalid_params, ...), up to a few levels deep.
func namesField(body []byte) bool {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	var walk func(v any, depth int) bool
	walk = func(v any, depth int) bool {
		if depth > 4 {
			return false
		}
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				switch strings.ToLower(k) {
				case "field", "fields", "param", "params", "parameter", "loc", "pointer", "property", "propertypath", "property_path",
					"invalid_params", "invalid-params", "invalidparams", "validation_errors", "validationerrors", "field_errors", "fielderrors", "violations":
					if e != nil && e != "" {
						return true
					}
				}
				if walk(e, depth+1) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if walk(e, depth+1) {
					return true
				}
			}
		}
		return false
	}
	return walk(v, 0)
}

func (c *Call) transportFailure(r *Request, resp response) string {
	err := resp.err
	host := c.kit.base.Host
	f := M{"host": host, "timeout": c.kit.cfg.Timeout.String(), "error": err.Error()}
	var be *buildError
	if errors.As(err, &be) {
		f["error"] = be.err.Error()
		return c.say("request_unbuildable", f)
	}
	var cert *tls.CertificateVerificationError
	if errors.As(err, &cert) {
		f["error"] = cert.Err.Error()
		return c.say("certificate_untrusted", f)
	}
	timedOut := isTimeout(err)
	switch {
	case errors.Is(err, context.Canceled):
		return c.say("cancelled", f)
	case timedOut && !resp.sent:
		return c.say("unreachable", f)
	case timedOut && (r.readOnly || r.idempotent):
		return c.say("timeout", f)
	case timedOut:
		return c.say("timeout_write", f)
	case errors.Is(err, syscall.ECONNREFUSED):
		return c.say("connection_refused", f)
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return c.say("host_unknown", f)
	}
	if resp.sent && !r.readOnly && !r.idempotent {
		return c.say("connection_lost_write", f)
	}
	return c.say("connection_failed", f)
}

// isTimeout reports whether a request failed for want of an answer in time.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
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
				if m := findMessage(f, depth+1); m != "" && !slices.Contains(parts, m) {
					parts = append(parts, m)
				}
			}
		}
		for _, k := range []string{"code", "field", "param", "loc"} {
			if f, ok := x[k]; ok && len(parts) > 0 {
				parts = append(parts, k+": "+jsonv.Text(f))
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
