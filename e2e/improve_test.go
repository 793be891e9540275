package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
	"github.com/tailormcp/tailor/internal/testkit"
)

// The improvement loop end to end: tailor test (the tailor binary, whose
// go-sdk client drives the server over stdio, through its recording proxy
// in front of a real backend on loopback) on the generated back-office
// server and on tailor serve; and tailor report on the audit log such a
// server really writes.

// tailorTest runs the tailor binary's test command on a server kind and
// returns its exit code and output.
func tailorTest(t *testing.T, sv server, scenarios, backendURL string, extra ...string) (int, string) {
	t.Helper()
	args := []string{"test", scenarios, "--backend", backendURL}
	if sv.kind == "generated" {
		args = append(args, "--server", sv.bin(t))
	} else {
		args = append(args, "--spec", sv.spec, "--overlay", sv.overlay)
	}
	cmd := exec.Command(tailorBinary(t), append(args, extra...)...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, string(out)
}

func TestScenariosOnBothServers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example server")
	}
	example := filepath.Join(testkit.RepoRoot(), "examples", "backoffice", "scenarios.yaml")
	hostile := filepath.Join(t.TempDir(), "hostile.yaml")
	// A confirm the scenario gives no approval answer for: the simulated
	// person declines, the call fails the scenario, and nothing is
	// refunded. Then a request expectation the backend contradicts.
	if err := os.WriteFile(hostile, []byte(`tailor-test: 1
env: {BACKOFFICE_CUSTOMER_ID: cust_wang}
scenarios:
  - name: an approval nobody answered
    calls:
      - call: quote_refund
        args: {order_id: "5531", line_item_ids: [li_2]}
        save: {quote: $.quote_id}
      - call: refund_items
        args: {quote_id: "{{.quote}}"}
  - name: the identity is not the model's to give
    calls:
      - call: get_order
        args: {order_id: "5531"}
        expect:
          requests:
            - {method: GET, path: /orders/5531, headers: {X-Customer-Id: cust_lee}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			code, out := tailorTest(t, sv, example, rig.url)
			if code != 0 || !strings.Contains(out, "scenarios passed    4\n") {
				t.Fatalf("exit %d\n%s", code, out)
			}
			// What the scenarios did is what the shop holds now.
			refunds := rig.shop.Refunds("5531")
			if len(refunds) != 1 || refunds[0].Amount != 230 {
				t.Errorf("refunds of 5531: %+v", refunds)
			}
			if got := rig.shop.LineItem("5532", "li_3").Status; got != backend.Cancelled {
				t.Errorf("li_3 (approved on the second ask): %s", got)
			}

			rig = newShop(t)
			code, out = tailorTest(t, sv, hostile, rig.url)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, out)
			}
			contains(t, out,
				`hostile.yaml:9:9: call 2 (refund_items): the user was asked to approve "Refund NT$230 to card ending 4242 for order 5531?", and the call gives no answer`,
				"the simulated user declined",
				`hostile.yaml:17:74: call 1 (get_order): request 1's header X-Customer-Id is "cust_wang", want "cust_lee"`,
				"scenarios failed    2")
			if n := len(rig.shop.Refunds("5531")); n != 0 {
				t.Errorf("a declined approval refunded: %d refunds", n)
			}
		})
	}
}

// The recording proxy forwards a backend's redirect as it is: the server
// reports it, and the redirect's target receives nothing.
func TestScenarioProxyDoesNotFollowRedirects(t *testing.T) {
	elsewhere := testkit.NewBackend(t, nil)
	be := testkit.NewBackend(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/stolen", http.StatusTemporaryRedirect)
	})
	file := filepath.Join(t.TempDir(), "redirect.yaml")
	os.WriteFile(file, []byte(`tailor-test: 1
env: {BACKOFFICE_CUSTOMER_ID: cust_wang}
scenarios:
  - name: a redirect
    calls:
      - call: get_order
        args: {order_id: "5531"}
        expect:
          is_error: true
          text: {contains: "redirect"}
          requests: [{method: GET, path: /orders/5531}]
`), 0o644)
	sv := backofficeServers()[1]
	code, out := tailorTest(t, sv, file, be.URL)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if got := elsewhere.Take(); len(got) != 0 {
		t.Errorf("the redirect was followed: %+v", got)
	}
}

// tailor report reads the audit log a server writes in a real session:
// the retry and the argument the model changed, the quote, the tools never
// called.
func TestReportOnARealSession(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			ap := &approver{action: "accept"}
			srv := wang(t, sv, rig, ap)
			srv.Call(t, "get_order", map[string]any{"order_id": "5532"})
			if res := srv.Call(t, "quote_refund", map[string]any{"order_id": "5532", "line_item_ids": []string{"Wool scarf"}}); !res.IsError {
				t.Fatal("a line item's name was accepted as its id")
			}
			q := quoteID(t, srv.Call(t, "quote_refund", map[string]any{"order_id": "5532", "line_item_ids": []string{"li_3"}}))
			srv.Call(t, "refund_items", map[string]any{"quote_id": q})
			srv.Call(t, "create_return", map[string]any{"order_id": "5535", "line_item_ids": []string{"li_10"}, "reason": "too small"})
			stderr := srv.WaitStderr(t, "six audit records", func(s string) bool { return strings.Count(s, `"msg":"audit"`) >= 6 })
			log := filepath.Join(t.TempDir(), "audit.log")
			if err := os.WriteFile(log, []byte(stderr), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(tailorBinary(t), "report", log, "--spec", sv.spec, "--overlay", sv.overlay, "--format", "json")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("report: %v\n%s", err, out)
			}
			var r struct {
				Sessions struct{ Count int } `json:"sessions"`
				Calls    int                 `json:"calls"`
				Tools    []struct {
					Tool    string
					Calls   int
					Errors  int
					ByKind  map[string]int `json:"errors_by_kind"`
					Retries *struct {
						Calls, Recovered int
						Changed          map[string]int `json:"changed_args"`
					}
					Quotes *struct{ Made, Confirmed int }
				}
				NeverCalled []struct{ Tool, Overlay string } `json:"never_called"`
			}
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			eq(t, "sessions", r.Sessions.Count, 1)
			eq(t, "calls (the approval round trip is one)", r.Calls, 5)
			byTool := map[string]int{}
			for i, tl := range r.Tools {
				byTool[tl.Tool] = i
			}
			qr := r.Tools[byTool["quote_refund"]]
			if qr.Retries == nil || qr.Retries.Calls != 1 || qr.Retries.Recovered != 1 || qr.Retries.Changed["line_item_ids"] != 1 {
				t.Errorf("quote_refund retries: %+v", qr.Retries)
			}
			if qr.Quotes == nil || qr.Quotes.Made != 1 || qr.Quotes.Confirmed != 1 {
				t.Errorf("quote_refund quotes: %+v", qr.Quotes)
			}
			eq(t, "quote_refund's refusal kind", qr.ByKind["business rule"], 1)
			cr := r.Tools[byTool["create_return"]]
			eq(t, "create_return's validation error", cr.ByKind["validation"], 1)
			var never []string
			for _, u := range r.NeverCalled {
				never = append(never, u.Tool)
				if !strings.Contains(u.Overlay, "overlay.yaml:") {
					t.Errorf("%s: no overlay line: %q", u.Tool, u.Overlay)
				}
			}
			eq(t, "never called", strings.Join(never, ","), "order_status,update_shipping_address")

			// The tool list can come from the running server instead.
			if sv.kind == "generated" {
				out, err := exec.Command(tailorBinary(t), "report", log, "--server", sv.bin(t), "--format", "json").Output()
				if err != nil {
					t.Fatalf("report --server: %v\n%s", err, out)
				}
				if !strings.Contains(string(out), `"never_called": [
    {
      "tool": "order_status"
    },
    {
      "tool": "update_shipping_address"
    }
  ]`) {
					t.Errorf("report --server:\n%s", out)
				}
			}
		})
	}
}
