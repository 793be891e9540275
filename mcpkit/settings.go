package mcpkit

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server starts whatever is configured: a client, a registry or the
// Inspector can always list its tools. What a call needs and lacks (the
// backend's base URL, a credential) is then refused per call, before
// anything is sent, with a result naming the setting and how to set it;
// the same is warned once on stderr at start.

// parseBaseURL checks a backend base URL; problem says what is wrong.
func parseBaseURL(raw string) (u *url.URL, problem string) {
	if raw == "" {
		return nil, "no base URL is set and the API description names no server"
	}
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	switch {
	case err != nil || u.Scheme == "" || u.Host == "":
		return nil, fmt.Sprintf("the base URL %q is not an absolute http(s) URL", raw)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Sprintf("the base URL %q must use http or https", raw)
	}
	u.RawQuery, u.Fragment = "", ""
	return u, ""
}

// baseURLHelp says how to set the base URL.
func (k *Runtime) baseURLHelp() string {
	return fmt.Sprintf("set --base-url or %s_BASE_URL to the API's absolute URL (for example https://api.example.com/v1)", k.api.EnvPrefix)
}

// startWarnings logs, once at start, what calls will lack.
func (k *Runtime) startWarnings() {
	if k.base == nil {
		k.log.Warn("no backend base URL: the server starts and lists its tools, but every call is refused until one is set",
			"problem", k.baseProblem, "fix", k.baseURLHelp())
	}
	if len(k.api.Schemes) > 0 && len(k.creds) == 0 {
		var envs []string
		for _, s := range k.api.Schemes {
			envs = append(envs, schemeEnvs(s))
		}
		k.log.Warn("no credentials are set: calls to operations that require them are refused until one is set",
			"set_one_of", strings.Join(envs, "; "))
	}
}

// unconfigured is the result for a call this server cannot make as
// configured, or nil. It is checked before the arguments: no argument can
// fix it.
func (c *Call) unconfigured() *mcp.CallToolResult {
	if id, f := c.kit.unconfigured(c.tool, c.req); id != "" {
		return errorResult(c.say(id, f))
	}
	return nil
}

// unconfigured says which message tells why the server cannot make a call
// to t as configured, with its fields; "" when it can.
func (k *Runtime) unconfigured(t *Tool, req *mcp.CallToolRequest) (string, M) {
	if k.base == nil {
		return "base_url_missing", M{"problem": k.baseProblem, "fix": k.baseURLHelp()}
	}
	var header http.Header
	if req != nil && req.Extra != nil {
		header = req.Extra.Header
	}
	security := [][][]string{t.Security}
	if len(t.Steps) > 0 {
		security = security[:0]
		for _, st := range t.Steps {
			security = append(security, st.Security)
		}
	}
	for _, alts := range security {
		if missing := k.missingFor(alts, header); len(missing) > 0 {
			return "credentials_missing", M{"settings": strings.Join(missing, ", or ")}
		}
	}
	return "", nil
}

// missingFor returns, when no alternative of a security requirement can
// be met, what each alternative would need; nil when one can (or when
// there is no requirement).
func (k *Runtime) missingFor(alts [][]string, header http.Header) []string {
	if len(alts) == 0 {
		return nil
	}
	passed := k.cfg.PassThroughAuth && header != nil && header.Get("Authorization") != ""
	var need []string
	for _, alt := range alts {
		var lacking []string
		for _, name := range alt {
			s, ok := k.scheme(name)
			if !ok {
				continue
			}
			if _, have := k.creds[name]; have || passed && (s.Kind == Bearer || s.Kind == Basic) {
				continue
			}
			lacking = append(lacking, schemeEnvs(s))
		}
		if len(lacking) == 0 {
			return nil
		}
		need = append(need, strings.Join(lacking, " and "))
	}
	return need
}

func (k *Runtime) scheme(name string) (Scheme, bool) {
	for _, s := range k.api.Schemes {
		if s.Name == name {
			return s, true
		}
	}
	return Scheme{}, false
}

// schemeEnvs names the environment variables of a scheme, and what they
// hold.
func schemeEnvs(s Scheme) string {
	switch s.Kind {
	case Basic:
		return fmt.Sprintf("%s and %s (basic auth %q)", s.EnvUser, s.Env, s.Name)
	case APIKey:
		return fmt.Sprintf("%s (API key %q, sent in %s %s)", s.Env, s.Name, s.In, s.ParamName)
	}
	return fmt.Sprintf("%s (bearer token %q)", s.Env, s.Name)
}

// Credential is a security scheme's configured token or key, for a
// parameter the API description declares besides the scheme and that
// carries the same secret. The scheme is then not also applied to this
// call's requests: the secret is sent once, where the parameter says.
func (c *Call) Credential(scheme string) Value {
	cr, ok := c.kit.creds[scheme]
	if !ok {
		return Value{}
	}
	if c.viaParam == nil {
		c.viaParam = map[string]bool{}
	}
	c.viaParam[scheme] = true
	return Value{V: cr.value, Set: true}
}
