package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/testkit"
)

// A backend that misbehaves — echoes its credentials, redirects, answers
// 50 MB or garbage, sends its body slowly — against the hosting server,
// generated and served. Each case asserts what the backend (and a second
// host) received, what the model read, and what stderr and the audit log
// hold.

// secretForms are the forms a configured secret can leak in.
func secretForms() map[string]string {
	jsonEsc := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
	basic := base64.StdEncoding.EncodeToString([]byte(hostUser + ":" + hostPassword))
	return map[string]string{
		"raw key":            hostKey,
		"URL-encoded key":    url.QueryEscape(hostKey),
		"path-escaped key":   url.PathEscape(hostKey),
		"JSON-escaped key":   jsonEsc(hostKey),
		"raw password":       hostPassword,
		"URL-encoded secret": url.QueryEscape(hostPassword),
		"Basic credentials":  basic,
	}
}

// noSecrets fails when s holds a configured secret in any form.
func noSecrets(t *testing.T, where, s string) {
	t.Helper()
	for name, form := range secretForms() {
		if strings.Contains(s, form) {
			t.Errorf("%s holds the %s (%q):\n%s", where, name, form, s)
		}
	}
}

// leakyServer is what a backend that echoes everything it can answers.
func leakyServer(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	// Written by hand: the key JSON-escaped with \u escapes, as some
	// encoders do.
	var esc strings.Builder
	for _, c := range hostKey {
		fmt.Fprintf(&esc, `\u%04x`, c)
	}
	fmt.Fprintf(w, `{"server_id":"srv_1","name":%q,"plan":"small","status":"running","region":%q,"monthly_price":10,"disk_gb":20,"debug":"%s","auth":%q}`,
		"key "+hostKey, "query api_key="+url.QueryEscape(hostKey), esc.String(), r.Header.Get("Authorization"))
}

func TestHostileBackend(t *testing.T) {
	for _, sv := range hostingServers() {
		t.Run(sv.kind, func(t *testing.T) { testHostileBackend(t, sv) })
	}
}

func testHostileBackend(t *testing.T, sv server) {
	api := newHostingAPI(t)
	// A second host a redirect points at: it must never be reached.
	other := testkit.NewBackend(t, nil)
	bin, pre := sv.command(t)
	person := &approver{action: "accept"}
	srv := testkit.StartStdioClient(t, bin, hostingEnv(api.URL()), person.options(), append(pre, "--timeout", "1s", "--retries", "0")...)
	call := func(t *testing.T, name string, args map[string]any) (*mcp.CallToolResult, string) {
		t.Helper()
		res := srv.Call(t, name, args)
		text := testkit.Text(res)
		noSecrets(t, "what the model read", text+"\n"+testkit.Structured(res))
		return res, text
	}
	// Every case leaves the session usable: a normal call works after it.
	stillWorks := func(t *testing.T) {
		t.Helper()
		api.handle(nil)
		res, text := call(t, "list_servers", nil)
		if res.IsError || !strings.HasPrefix(text, "4 servers.") {
			t.Fatalf("the session does not work after the case: %s", text)
		}
		api.take()
	}

	t.Run("a 2xx body echoes the credentials", func(t *testing.T) {
		api.handle(leakyServer)
		res, text := call(t, "get_server", map[string]any{"server_id": "srv_1"})
		eq(t, "isError", res.IsError, false)
		contains(t, text, "key [redacted] (srv_1) runs the small plan", `"region":"query api_key=[redacted]"`, `"debug":"[redacted]"`, `"auth":"Basic [redacted]"`)
		sc, _ := res.StructuredContent.(map[string]any)
		eq(t, "structured name", fmt.Sprint(sc["name"]), "key [redacted]")
		stillWorks(t)
	})

	t.Run("a 500 echoes the Basic header", func(t *testing.T) {
		api.handle(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(500)
			fmt.Fprintf(w, `{"message":"cannot parse header Authorization: %s"}`, r.Header.Get("Authorization"))
		})
		res, text := call(t, "get_server", map[string]any{"server_id": "srv_1"})
		eq(t, "isError", res.IsError, true)
		contains(t, text, "HTTP 500", "Authorization: Basic [redacted]")
		stillWorks(t)
	})

	t.Run("the connection drops: the error names the URL with its query key", func(t *testing.T) {
		api.handle(func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		})
		res, text := call(t, "get_server", map[string]any{"server_id": "srv_1"})
		eq(t, "isError", res.IsError, true)
		contains(t, text, "api_key=[redacted]")
		stillWorks(t)
	})

	t.Run("a 302 to another host is not followed", func(t *testing.T) {
		api.handle(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/collect?api_key="+url.QueryEscape(hostKey), http.StatusFound)
		})
		res, text := call(t, "get_server", map[string]any{"server_id": "srv_1"})
		eq(t, "isError", res.IsError, true)
		contains(t, text, "redirect (HTTP 302 Found) to "+other.URL+"/collect?api_key=[redacted]", "does not follow redirects", "nothing further was requested")
		eq(t, "requests to the other host", len(other.Take()), 0)
		eq(t, "requests to the API", len(api.take()), 1)
		stillWorks(t)
	})

	t.Run("a 307 on a write is not resent", func(t *testing.T) {
		api.handle(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/restart", http.StatusTemporaryRedirect)
		})
		res, text := call(t, "restart_server", map[string]any{"server_id": "srv_1"})
		eq(t, "isError", res.IsError, true)
		contains(t, text, "HTTP 307", other.URL+"/restart", "does not follow redirects")
		eq(t, "requests to the other host", len(other.Take()), 0)
		sent := api.take()
		if len(sent) != 1 || sent[0].Method != http.MethodPost {
			t.Fatalf("the API received %+v", sent)
		}
		stillWorks(t)
	})

	t.Run("50 MB is not read", func(t *testing.T) {
		for _, declared := range []bool{false, true} {
			api.handle(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if declared {
					w.Header().Set("Content-Length", fmt.Sprint(50<<20))
				}
				io.WriteString(w, `{"servers":[`)
				chunk := []byte(strings.Repeat(`{"server_id":"srv_x","name":"padding"},`, 1000))
				for n := 0; n < 50<<20; n += len(chunk) {
					if _, err := w.Write(chunk); err != nil {
						return // the server hung up: it stopped reading
					}
				}
			})
			start := time.Now()
			res, text := call(t, "list_servers", nil)
			eq(t, "isError", res.IsError, true)
			contains(t, text, "larger than this server's limit of 10 MiB", "not read", "Ask for less")
			if len(text) > 2000 || res.StructuredContent != nil {
				t.Errorf("the refusal carries data (%d bytes)", len(text))
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %s", d)
			}
			stillWorks(t)
		}
	})

	t.Run("garbage on 200: no quote, nothing reported done", func(t *testing.T) {
		api.handle(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"server_id":"srv_1","prorated_charge":15 <html>oops`)
		})
		res, text := call(t, "quote_plan_change", map[string]any{"server_id": "srv_1", "plan": "medium"})
		eq(t, "isError", res.IsError, true)
		contains(t, text, "not valid JSON", "no quote was made")
		if strings.Contains(text, "q_") || res.StructuredContent != nil {
			t.Errorf("a quote was made from garbage: %s", text)
		}

		// HTML where the API promises JSON.
		api.handle(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html><body>Maintenance</body></html>")
		})
		res, text = call(t, "get_server", map[string]any{"server_id": "srv_1"})
		eq(t, "isError", res.IsError, true)
		contains(t, text, "sent text/html where the API's description promises JSON", "Maintenance")

		// A write answering garbage on 2xx took effect: said so, never
		// "nothing was done" nor "may or may not have been made".
		api.handle(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"restart_id": oops`)
		})
		res, text = call(t, "restart_server", map[string]any{"server_id": "srv_1"})
		eq(t, "isError", res.IsError, true)
		contains(t, text, "The API accepted this change (HTTP 200 OK), so it took effect", "not valid JSON", "do not call restart_server again")
		if strings.Contains(text, "may or may not") {
			t.Errorf("a 2xx write is reported as maybe not made: %s", text)
		}

		// A composed confirm whose write step answers 200 garbage: the
		// change was made (the API applied it), the step after it, which
		// reads its answer, did not run, and calling again neither resends
		// the write nor pretends it can finish.
		api.handle(nil)
		res, _ = call(t, "quote_plan_change", map[string]any{"server_id": "srv_1", "plan": "large"})
		q := quoteID(t, res)
		applied := http.NewServeMux()
		applied.HandleFunc("PUT /v2/accounts/{acc}/servers/{id}/plan", func(w http.ResponseWriter, r *http.Request) {
			api.change(httptest.NewRecorder(), r)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `not json at all`)
		})
		applied.HandleFunc("GET /v2/accounts/{acc}/servers/{id}", api.get)
		api.handle(applied.ServeHTTP)
		api.take()
		asked := person.asked()
		res, text = call(t, "change_plan", map[string]any{"quote_id": q})
		eq(t, "isError", res.IsError, true)
		contains(t, text, "Only part of change_plan was done.", "Took effect: step apply (its answer could not be read).", "Did not run: step check.",
			"Step apply took effect (the API answered HTTP 200 OK), but its content is not valid JSON", "Step check needs what it returned, so the rest cannot be carried out.",
			"Tell the user exactly what was and was not done")
		for _, lie := range []string{"may or may not", "Nothing was done", "now runs", "Calling change_plan again"} {
			if strings.Contains(text, lie) {
				t.Errorf("the result says %q: %s", lie, text)
			}
		}
		eq(t, "asked once", person.asked(), asked+1)
		eq(t, "plan changed", api.servers["srv_1"].Plan, "large")
		eq(t, "changes", len(api.changes), 1)
		api.take()
		// Two records: the call that asked, and the one that ran.
		rec := lastFinal(audits(t, srv, "change_plan", 2))
		if len(rec.Calls) != 1 || rec.Calls[0].Step != "apply" || rec.Calls[0].Outcome != "done, answer unreadable" {
			t.Errorf("audit calls: %+v", rec.Calls)
		}

		// Again with the same quote: the write is not resent, nobody is
		// asked again, and the result still says what was done.
		res, text = call(t, "change_plan", map[string]any{"quote_id": q})
		eq(t, "isError", res.IsError, true)
		contains(t, text, "Took effect: step apply (its answer could not be read).", "reads the answer of step apply")
		for _, r := range api.take() {
			if r.Method == http.MethodPut {
				t.Errorf("the write was sent again: %+v", r)
			}
		}
		eq(t, "changes", len(api.changes), 1)
		eq(t, "not asked again", person.asked(), asked+1)
		stillWorks(t)
	})

	t.Run("a slow body times out", func(t *testing.T) {
		api.handle(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"server_id":`)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		})
		start := time.Now()
		res, text := call(t, "get_server", map[string]any{"server_id": "srv_1"})
		eq(t, "isError", res.IsError, true)
		contains(t, text, "did not answer within 1s")
		if d := time.Since(start); d > 4*time.Second {
			t.Errorf("took %s", d)
		}
		stillWorks(t)
	})

	t.Run("huge and deep arguments are refused before anything", func(t *testing.T) {
		// A message over 4 MiB or nested over 256 deep is refused by the
		// transport before any tool sees it (hostile_transport_test.go);
		// below that, the tool's own limits.
		res, text := call(t, "get_server", map[string]any{"server_id": strings.Repeat("x", 2<<20)})
		eq(t, "isError", res.IsError, true)
		contains(t, text, "The arguments are 2.0 MiB, over this server's limit of 1 MiB", "nothing was sent")
		var deep any = "srv_1"
		for i := 0; i < 200; i++ {
			deep = []any{deep}
		}
		res, text = call(t, "get_server", map[string]any{"server_id": deep})
		eq(t, "isError", res.IsError, true)
		contains(t, text, "nested more than 64 levels deep", "nothing was sent")
		eq(t, "requests", len(api.take()), 0)
		refused := auditLines(t, srv, "get_server", 2, `"args_bytes"`)
		for _, l := range refused {
			if len(l) > 16<<10 {
				t.Errorf("an audit line of %d bytes", len(l))
			}
		}
		if len(refused) != 2 || !strings.Contains(refused[0], `"outcome":"error"`) || !strings.Contains(refused[1], `"outcome":"error"`) {
			t.Errorf("the refused calls' audit records: %v", refused)
		}
		stillWorks(t)
	})

	t.Run("invisible characters reach the audit log escaped", func(t *testing.T) {
		// A right-to-left override would show an operator "srv_1exe.txt"
		// as "srv_1txt.exe"; DEL and C1 controls act on terminals.
		id := "srv_\u202etxt.exe\x7f\u0085\u200bend"
		call(t, "get_server", map[string]any{"server_id": id})
		lines := auditLines(t, srv, "get_server", 1, `srv_\u202etxt.exe\u007f\u0085\u200bend`)
		for _, raw := range []string{"\u202e", "\x7f", "\u0085", "\u200b"} {
			if strings.Contains(srv.Stderr(), raw) {
				t.Errorf("%q reached stderr unescaped", raw)
			}
		}
		var rec struct{ Args map[string]string }
		if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil || rec.Args["server_id"] != id {
			t.Errorf("the record decodes to %q (%v), want the argument as sent", rec.Args["server_id"], err)
		}
	})

	// What the server logged (its own lines, go-sdk's, and the audit
	// records) holds no secret either. A call's audit record is its last
	// line: once a last call's record is in, so is everything before it.
	call(t, "get_server", map[string]any{"server_id": "srv_last"})
	auditLines(t, srv, "get_server", 1, `"server_id":"srv_last"`)
	noSecrets(t, "stderr", srv.Stderr())
	if !strings.Contains(srv.Stderr(), "[redacted]") {
		t.Errorf("stderr shows nothing redacted: did the cases log anything?\n%s", srv.Stderr())
	}
}

// TestHostileBackendPassThrough: over HTTP with verified tokens and
// --pass-through-auth, the caller's token reaches the backend; echoed back,
// it is not shown to the model nor logged, and neither is the server's
// token secret.
func TestHostileBackendPassThrough(t *testing.T) {
	const secret = "hs256-verification-secret-of-32-bytes"
	for _, sv := range hostingServers() {
		t.Run(sv.kind, func(t *testing.T) {
			api := newHostingAPI(t)
			api.handle(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"server_id":"srv_1","name":%q,"plan":"small","status":"running","region":%q,"monthly_price":10,"disk_gb":20}`, r.Header.Get("Authorization"), "secret "+secret)
			})
			// With tokens verified, the account comes from the token's claim
			// only (the identity policy): a header naming another is ignored.
			token := signHS256(t, secret, map[string]any{"sub": "u1", "account_id": hostAccount, "exp": time.Now().Add(time.Hour).Unix()})
			hc := &http.Client{Transport: headerRoundTripper{"Authorization": "Bearer " + token, "X-Account-Id": "acc_other"}}
			env := append(hostingEnv(api.URL()), "HOSTING_TOKEN_HS256_SECRET="+secret)
			srv := sv.http(t, env, hc, "--pass-through-auth")
			res := srv.Call(t, "get_server", map[string]any{"server_id": "srv_1"})
			text := testkit.Text(res) + testkit.Structured(res)
			got := api.take()[0]
			eq(t, "forwarded", got.Header.Get("Authorization"), "Bearer "+token)
			eq(t, "account", got.RawPath, "/v2/accounts/"+hostAccount+"/servers/srv_1")
			contains(t, text, "Bearer [redacted] (srv_1)", "secret [redacted]")
			// Everything the call logged is in once its audit record is.
			auditLines(t, srv, "get_server", 1)
			for _, s := range []string{token, secret} {
				if strings.Contains(text, s) {
					t.Errorf("the model read %q", s)
				}
				if strings.Contains(srv.Stderr(), s) {
					t.Errorf("stderr holds %q", s)
				}
			}
		})
	}
}
