package e2e

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
)

// quoteIDPattern finds a quote id in what the model reads.
var quoteIDPattern = regexp.MustCompile(`\bq_[A-Za-z0-9]+`)

// TestClientsBackofficeStory: the back-office story (TestBackofficeStory)
// through the Vercel AI SDK with its OpenAI provider, on the committed
// example server. The scripted model asks for a refund quote, reads the
// quote id from the result the client gives back, and carries the quote
// out; the client answers the server's approval question (elicitation).
// The example backend ends with exactly the story's refund and
// cancellation, and the model read the story's texts.
func TestClientsBackofficeStory(t *testing.T) {
	node, modules := clientTools(t)
	script := compatScript(t, modules)
	api := newModelAPI(t)
	rig := newShop(t)
	tg := compatTarget{name: "backoffice", command: backofficeBinary(t),
		env: []string{"BACKOFFICE_BASE_URL=" + rig.url, "BACKOFFICE_CUSTOMER_ID=" + backend.Wang}}
	var quote string
	api.reset(nil, func(client string, turn int, tools []sentTool, results []string) *modelCall {
		switch turn {
		case 1:
			return &modelCall{name: "quote_refund", args: map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}}}
		case 2:
			if len(results) > 0 {
				quote = quoteIDPattern.FindString(results[len(results)-1])
			}
			return &modelCall{name: "refund_items", args: map[string]any{"quote_id": quote}}
		}
		return nil
	})
	runs := runClients(t, node, script, api, tg, "", compatRun{clients: []string{"vercel-openai"}, steps: 3, elicit: "accept"})
	r := runs[0]
	if r.Error != "" {
		t.Fatalf("%s: %s", r.Client, lastLines(r.Error, 12))
	}
	if len(r.Calls) != 2 || r.Calls[0].Name != "quote_refund" || r.Calls[1].Name != "refund_items" {
		t.Fatalf("the client's calls: %+v", r.Calls)
	}
	if quote == "" {
		t.Fatalf("no quote id in what the model read: %+v", api.recording(r.Client).results)
	}
	read := api.recording(r.Client).results
	if len(read) != 2 {
		t.Fatalf("the model read %d tool results: %q", len(read), read)
	}
	contains(t, read[0], "Refund of NT$230 for Headphone case. How: "+explanation5531+".",
		"Quote "+quote+", valid until", "Nothing has been done yet", "call refund_items with quote_id "+quote)
	contains(t, read[1], "Cancelled shipment of Headphone case ×1; refunded NT$230 to the original payment method (card ending 4242), refund rf_8801. How: "+explanation5531+".")
	eq(t, "approval question", strings.Join(r.Questions, "|"), "Refund NT$230 to card ending 4242 for order 5531?")
	refunds := rig.shop.Refunds("5531")
	if len(refunds) != 1 || refunds[0].Amount != 230 || refunds[0].RefundID != "rf_8801" {
		t.Fatalf("refunds: %+v", refunds)
	}
	eq(t, "li_2", rig.shop.LineItem("5531", "li_2").Status, "cancelled")
	eq(t, "li_1 untouched", rig.shop.LineItem("5531", "li_1").Status, "delivered")
	var keys []string
	for _, c := range rig.shop.Calls() {
		if c.Method == http.MethodPost && strings.HasSuffix(c.Path, "/refunds") {
			keys = append(keys, c.IdempotencyKey)
		}
	}
	eq(t, "Idempotency-Key", strings.Join(keys, ","), quote)
}
