package backend

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is the tests' fixed time: 2026-10-05 10:00 in Taipei.
var clock = time.Date(2026, 10, 5, 2, 0, 0, 0, time.UTC)

func newShop() *Shop { return New(func() time.Time { return clock }) }

// req is one HTTP request to the handler.
type req struct {
	method, path, customer, body string
	idempotencyKey               string
}

func (r req) do(t *testing.T, h http.Handler) (int, string) {
	t.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	hr := httptest.NewRequest(r.method, r.path, body)
	if r.customer != "" {
		hr.Header.Set("X-Customer-Id", r.customer)
	}
	if r.idempotencyKey != "" {
		hr.Header.Set("Idempotency-Key", r.idempotencyKey)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, hr)
	if ct := w.Header().Get("Content-Type"); w.Code != http.StatusMethodNotAllowed && ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q", r.method, r.path, ct)
	}
	return w.Code, w.Body.String()
}

// must runs r and fails the test unless it answers status.
func (r req) must(t *testing.T, h http.Handler, status int) string {
	t.Helper()
	got, body := r.do(t, h)
	if got != status {
		t.Fatalf("%s %s %s: status %d, want %d; body %s", r.method, r.path, r.body, got, status, body)
	}
	return body
}

// sameJSON fails unless got and want are the same JSON value.
func sameJSON(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("response is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %v\n%s", err, want)
	}
	if !reflect.DeepEqual(g, w) {
		var gi, wi bytes.Buffer
		json.Indent(&gi, []byte(got), "", "  ")
		json.Indent(&wi, []byte(want), "", "  ")
		t.Errorf("got\n%s\nwant\n%s", gi.String(), wi.String())
	}
}

func get(customer, path string) req { return req{method: "GET", path: path, customer: customer} }
func post(customer, path, body string) req {
	return req{method: "POST", path: path, customer: customer, body: body}
}
func put(customer, path, body string) req {
	return req{method: "PUT", path: path, customer: customer, body: body}
}
func quote(order string, ids ...string) req {
	b, _ := json.Marshal(map[string]any{"line_item_ids": ids})
	return post(Wang, "/orders/"+order+"/refund-quotes", string(b))
}
func cancel(order, item string) req {
	return post(Wang, "/orders/"+order+"/line-items/"+item+"/cancel", "")
}
func refund(order string, amount int, ids ...string) req {
	b, _ := json.Marshal(map[string]any{"amount": amount, "reason": "test", "line_item_ids": ids})
	return post(Wang, "/orders/"+order+"/refunds", string(b))
}
func ret(order, kind string, ids ...string) req {
	b, _ := json.Marshal(map[string]any{"kind": kind, "line_item_ids": ids})
	return post(Wang, "/orders/"+order+"/returns", string(b))
}

func TestGetOrder(t *testing.T) {
	h := newShop().Handler()
	sameJSON(t, get(Wang, "/orders/5531").must(t, h, 200), `{
		"order_id": "5531", "customer_id": "cust_wang", "status": "partially_shipped",
		"placed_at": "2026-09-20T21:14:00+08:00",
		"coupon": {"code": "SAVE150", "description": "NT$150 off orders of NT$1,500+", "discount": 150, "threshold": 1500},
		"subtotal": 1580, "paid": 1430, "free_shipping": true,
		"payment_method": {"type": "card", "card_last4": "4242"},
		"shipping_address": {"name": "Wang Xiao-ming", "line1": "No. 7, Sec. 1, Zhongxiao E. Rd.", "line2": "8F", "city": "Taipei", "postal_code": "100", "country": "TW"},
		"line_items": [
			{"line_item_id": "li_1", "name": "Bluetooth headphones", "quantity": 1, "price": 1200, "status": "delivered", "delivered_at": "2026-09-23T14:05:00+08:00"},
			{"line_item_id": "li_2", "name": "Headphone case", "quantity": 1, "price": 380, "status": "pending", "delivered_at": null}
		]}`)

	var o Order
	json.Unmarshal([]byte(get(Wang, "/orders/5532").must(t, h, 200)), &o)
	if o.Coupon != nil || o.FreeShipping || o.Paid != 1600 || o.Subtotal != 1600 || o.Status != "processing" {
		t.Errorf("5532: %+v", o)
	}
	for id, want := range map[string]string{"5533": "processing", "5534": "processing", "5535": "delivered", "5536": "shipped"} {
		json.Unmarshal([]byte(get(Wang, "/orders/"+id).must(t, h, 200)), &o)
		if o.Status != want {
			t.Errorf("order %s: status %q, want %q", id, o.Status, want)
		}
	}
	json.Unmarshal([]byte(get(Lee, "/orders/6001").must(t, h, 200)), &o)
	if o.CustomerID != Lee || len(o.LineItems) != 1 || o.LineItems[0].Name != "Mug" || o.Paid != 350 {
		t.Errorf("6001: %+v", o)
	}
}

func TestListShipmentsAndRefunds(t *testing.T) {
	h := newShop().Handler()
	sameJSON(t, get(Wang, "/orders/5531/shipments").must(t, h, 200), `[
		{"shipment_id": "sh_3101", "line_item_ids": ["li_1"], "status": "delivered", "carrier": "T-Cat", "tracking_number": "9012-3355-5531",
		 "shipped_at": "2026-09-22T09:30:00+08:00", "delivered_at": "2026-09-23T14:05:00+08:00"}]`)
	sameJSON(t, get(Wang, "/orders/5533/shipments").must(t, h, 200), `[
		{"shipment_id": "sh_3102", "line_item_ids": ["li_5"], "status": "preparing", "carrier": "T-Cat", "tracking_number": null,
		 "shipped_at": null, "delivered_at": null}]`)
	sameJSON(t, get(Wang, "/orders/5532/shipments").must(t, h, 200), `[]`)
	sameJSON(t, get(Wang, "/orders/5531/refunds").must(t, h, 200), `[]`)
	sameJSON(t, get(Wang, "/orders/5534/refunds").must(t, h, 200), `[
		{"refund_id": "rf_7001", "order_id": "5534", "amount": 1500, "line_item_ids": ["li_7"], "reason": "customer found it cheaper elsewhere",
		 "created_at": "2026-10-02T11:30:00+08:00", "method": "card ending 4242"}]`)
}

// TestQuote covers the refund-quote rule on fresh seed data.
func TestQuote(t *testing.T) {
	for _, tc := range []struct {
		name  string
		order string
		ids   []string
		want  string
	}{
		{"coupon taken back: NT$230", "5531", []string{"li_2"}, `{
			"order_id": "5531", "amount": 230, "currency": "TWD",
			"line_items": [{"line_item_id": "li_2", "name": "Headphone case", "price": 380}],
			"cancel_line_item_ids": ["li_2"],
			"deductions": [{"kind": "coupon_takeback", "amount": 150,
				"detail": "coupon SAVE150 (NT$150 off orders of NT$1,500+): the kept items total NT$1,200, below its NT$1,500 threshold"}],
			"explanation": "price 380; the kept items (Bluetooth headphones 1,200) are below the coupon's 1,500 threshold, so its 150 discount is taken back",
			"payment_method": "card ending 4242"}`},
		{"no coupon", "5532", []string{"li_3"}, `{
			"order_id": "5532", "amount": 900, "currency": "TWD",
			"line_items": [{"line_item_id": "li_3", "name": "Wool scarf", "price": 900}],
			"cancel_line_item_ids": ["li_3"], "deductions": [],
			"explanation": "price 900; no coupon on this order",
			"payment_method": "card ending 4242"}`},
		{"several items", "5532", []string{"li_3", "li_4"}, `{
			"order_id": "5532", "amount": 1600, "currency": "TWD",
			"line_items": [{"line_item_id": "li_3", "name": "Wool scarf", "price": 900}, {"line_item_id": "li_4", "name": "Gloves", "price": 700}],
			"cancel_line_item_ids": ["li_3", "li_4"], "deductions": [],
			"explanation": "prices 900 + 700 = 1,600; no coupon on this order",
			"payment_method": "card ending 4242"}`},
		{"pending item next to one in fulfilment", "5533", []string{"li_6"}, `{
			"order_id": "5533", "amount": 120, "currency": "TWD",
			"line_items": [{"line_item_id": "li_6", "name": "Bulb", "price": 120}],
			"cancel_line_item_ids": ["li_6"], "deductions": [],
			"explanation": "price 120; no coupon on this order",
			"payment_method": "card ending 4242"}`},
		{"item next to a refunded one", "5534", []string{"li_8"}, `{
			"order_id": "5534", "amount": 450, "currency": "TWD",
			"line_items": [{"line_item_id": "li_8", "name": "Water bottle", "price": 450}],
			"cancel_line_item_ids": ["li_8"], "deductions": [],
			"explanation": "price 450; no coupon on this order",
			"payment_method": "card ending 4242"}`},
		{"another customer's own order", "6001", []string{"li_20"}, `{
			"order_id": "6001", "amount": 350, "currency": "TWD",
			"line_items": [{"line_item_id": "li_20", "name": "Mug", "price": 350}],
			"cancel_line_item_ids": ["li_20"], "deductions": [],
			"explanation": "price 350; no coupon on this order",
			"payment_method": "card ending 4242"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newShop()
			h := s.Handler()
			r := quote(tc.order, tc.ids...)
			if tc.order == "6001" {
				r.customer = Lee
			}
			before := s.Order(tc.order)
			sameJSON(t, r.must(t, h, 200), tc.want)
			if after := s.Order(tc.order); !reflect.DeepEqual(before, after) {
				t.Errorf("the quote changed the order:\n%+v\n%+v", before, after)
			}
			if n := len(s.Refunds(tc.order)); n != len(newShop().Refunds(tc.order)) {
				t.Errorf("the quote created a refund")
			}
			if s.Requests() != 0 {
				t.Errorf("Requests() = %d after a quote, want 0", s.Requests())
			}
		})
	}
}

// TestQuoteCouponStates: the coupon stays when the kept items still reach its
// threshold, and is taken back only once.
func TestQuoteCouponStates(t *testing.T) {
	s := newShop()
	// A coupon order whose kept items stay above the threshold.
	s.orders["7001"] = &order{id: "7001", customer: Wang, coupon: &Coupon{Code: "SAVE150", Description: "NT$150 off orders of NT$1,500+", Discount: 150, Threshold: 1500},
		items: []*LineItem{
			{LineItemID: "a", Name: "Coat", Quantity: 1, Price: 1000, Status: Delivered},
			{LineItemID: "b", Name: "Hat", Quantity: 2, Price: 300, Status: Pending},
			{LineItemID: "c", Name: "Pin", Quantity: 1, Price: 100, Status: Pending},
		}, subtotal: 1700, paid: 1550}
	h := s.Handler()
	var q RefundQuote
	json.Unmarshal([]byte(quote("7001", "c").must(t, h, 200)), &q)
	if q.Amount != 100 || len(q.Deductions) != 0 ||
		q.Explanation != "price 100; the kept items (Coat 1,000 + Hat ×2 600 = 1,600) still reach the coupon's 1,500 threshold, so its 150 discount stays" {
		t.Errorf("kept above threshold: %+v", q)
	}
	json.Unmarshal([]byte(quote("7001", "b", "c").must(t, h, 200)), &q)
	if q.Amount != 550 || len(q.Deductions) != 1 || q.Deductions[0].Amount != 150 ||
		q.Explanation != "prices 600 + 100 = 700; the kept items (Coat 1,000) are below the coupon's 1,500 threshold, so its 150 discount is taken back" {
		t.Errorf("two items below threshold: %+v", q)
	}
	// The take-back never exceeds the price.
	cancel("7001", "b").must(t, h, 200)
	json.Unmarshal([]byte(quote("7001", "c").must(t, h, 200)), &q)
	if q.Amount != 0 || q.Deductions[0].Amount != 100 ||
		q.Explanation != "price 100; the kept items (Coat 1,000) are below the coupon's 1,500 threshold, so its 150 discount is taken back, up to the price (100)" {
		t.Errorf("take-back capped at the price: %+v", q)
	}

	// 5531: once the refund for li_2 took the coupon back, a return of the
	// headphones does not take it again.
	cancel("5531", "li_2").must(t, h, 200)
	refund("5531", 230, "li_2").must(t, h, 201)
	var rt Return
	json.Unmarshal([]byte(ret("5531", "refund", "li_1").must(t, h, 201)), &rt)
	if rt.RefundAmount != 1120 ||
		rt.Explanation != "price 1,200; the coupon's 150 discount was already taken back by refund rf_8801; the kept items (none) fall below 1,500 on an order that shipped free, so 80 shipping is deducted; this is the order's first return, so there is no return fee; refund 1,120" {
		t.Errorf("return after the take-back: %+v", rt)
	}
}

// TestStory replays order 5531: quote, cancel, refund exactly the quote,
// retry with the same Idempotency-Key, then exchange the headphones.
func TestStory(t *testing.T) {
	s := newShop()
	h := s.Handler()
	var q RefundQuote
	json.Unmarshal([]byte(quote("5531", "li_2").must(t, h, 200)), &q)
	if q.Amount != 230 {
		t.Fatalf("quote: %d, want 230", q.Amount)
	}
	sameJSON(t, cancel("5531", "li_2").must(t, h, 200), `{"line_item_id": "li_2", "name": "Headphone case", "quantity": 1, "status": "cancelled"}`)

	r := refund("5531", q.Amount, q.CancelLineItemIDs...)
	r.idempotencyKey = "q_7Hk2"
	want := `{"refund_id": "rf_8801", "order_id": "5531", "amount": 230, "line_item_ids": ["li_2"], "reason": "test",
		"created_at": "2026-10-05T10:00:00+08:00", "method": "card ending 4242"}`
	sameJSON(t, r.must(t, h, 201), want)
	sameJSON(t, r.must(t, h, 200), want) // replayed, nothing created
	sameJSON(t, get(Wang, "/orders/5531/refunds").must(t, h, 200), "["+want+"]")

	// Quoting the cancelled item again is refused.
	code, body := quote("5531", "li_2").do(t, h)
	if code != 409 || !strings.Contains(body, `"already_refunded"`) {
		t.Errorf("second quote: %d %s", code, body)
	}

	sameJSON(t, ret("5531", "exchange", "li_1").must(t, h, 201), `{
		"return_id": "rt_9901", "order_id": "5531", "kind": "exchange", "line_item_ids": ["li_1"], "refund_amount": 0, "fees": [],
		"explanation": "exchange: a replacement for Bluetooth headphones is sent once the return arrives, and nothing is refunded; this is the order's first return, so there is no return fee",
		"label_url": "https://backoffice.example.com/returns/rt_9901/label.pdf", "created_at": "2026-10-05T10:00:00+08:00"}`)
	if li := s.LineItem("5531", "li_1"); li.Status != Delivered {
		t.Errorf("after the exchange li_1 is %q, want delivered", li.Status)
	}
	if li := s.LineItem("5531", "li_2"); li.Status != Cancelled {
		t.Errorf("li_2 is %q, want cancelled", li.Status)
	}
	// A second exchange is the order's second return: NT$80, charged.
	var rt Return
	json.Unmarshal([]byte(ret("5531", "exchange", "li_1").must(t, h, 201)), &rt)
	if rt.RefundAmount != 0 || len(rt.Fees) != 1 || rt.Fees[0] != (Deduction{Kind: "repeat_return", Amount: 80,
		Detail: "2nd return on order 5531: NT$80 for every return after the first, charged to card ending 4242"}) ||
		rt.Explanation != "exchange: a replacement for Bluetooth headphones is sent once the return arrives, and nothing is refunded; this is the order's 2nd return, so a 80 return fee is charged to card ending 4242" {
		t.Errorf("second exchange: %+v", rt)
	}
	if got := len(s.Refunds("5531")); got != 1 {
		t.Errorf("%d refunds, want 1", got)
	}
	if got := len(s.Returns("5531")); got != 2 {
		t.Errorf("%d returns, want 2", got)
	}
	if got := s.Requests(); got != 5 {
		t.Errorf("Requests() = %d, want 5 (cancel, refund ×2, return ×2)", got)
	}
	calls := s.Calls()
	if c := calls[2]; c.Method != "POST" || c.Path != "/orders/5531/refunds" || c.IdempotencyKey != "q_7Hk2" || c.CustomerID != Wang || c.Status != 201 {
		t.Errorf("calls[2] = %+v", c)
	}
}

// TestReturns5535: the shipping and repeat-return fees.
func TestReturns5535(t *testing.T) {
	s := newShop()
	h := s.Handler()
	sameJSON(t, ret("5535", "refund", "li_10").must(t, h, 201), `{
		"return_id": "rt_9901", "order_id": "5535", "kind": "refund", "line_item_ids": ["li_10"], "refund_amount": 300, "fees": [],
		"explanation": "price 300; no coupon on this order; the kept items (Running shoes 1,800) still reach 1,500, so shipping stays free; this is the order's first return, so there is no return fee; refund 300",
		"label_url": "https://backoffice.example.com/returns/rt_9901/label.pdf", "created_at": "2026-10-05T10:00:00+08:00"}`)
	sameJSON(t, ret("5535", "refund", "li_9").must(t, h, 201), `{
		"return_id": "rt_9902", "order_id": "5535", "kind": "refund", "line_item_ids": ["li_9"], "refund_amount": 1640,
		"fees": [
			{"kind": "shipping", "amount": 80, "detail": "the order shipped free; the kept items total NT$0, below NT$1,500"},
			{"kind": "repeat_return", "amount": 80, "detail": "2nd return on order 5535: NT$80 for every return after the first"}],
		"explanation": "price 1,800; no coupon on this order; the kept items (none) fall below 1,500 on an order that shipped free, so 80 shipping is deducted; this is the order's 2nd return, so 80 more is deducted; refund 1,640",
		"label_url": "https://backoffice.example.com/returns/rt_9902/label.pdf", "created_at": "2026-10-05T10:00:00+08:00"}`)
	for _, id := range []string{"li_9", "li_10"} {
		if st := s.LineItem("5535", id).Status; st != Returned {
			t.Errorf("%s is %q, want returned", id, st)
		}
	}
	// Both items returned: 300 + 1,640 of 2,100 are gone; 160 is left.
	code, body := refund("5535", 161, "li_9").do(t, h)
	if code != 409 {
		t.Errorf("refund of a returned item: %d %s", code, body)
	}
	if len(s.Refunds("5535")) != 0 {
		t.Errorf("refunds created")
	}
}

// TestReturnsExchangeFirst: the exchange counts as the first return; the shipping fee
// is deducted once.
func TestReturnsExchangeFirst(t *testing.T) {
	s := newShop()
	h := s.Handler()
	ret("5535", "exchange", "li_9").must(t, h, 201)
	var rt Return
	json.Unmarshal([]byte(ret("5535", "refund", "li_9").must(t, h, 201)), &rt)
	// Kept: Socks 300 < 1,500 → shipping; second return → 80.
	if rt.RefundAmount != 1640 || len(rt.Fees) != 2 {
		t.Errorf("refund return after an exchange: %+v", rt)
	}
	json.Unmarshal([]byte(ret("5535", "refund", "li_10").must(t, h, 201)), &rt)
	if rt.RefundAmount != 220 ||
		rt.Explanation != "price 300; no coupon on this order; shipping was already deducted by return rt_9902; this is the order's 3rd return, so 80 more is deducted; refund 220" {
		t.Errorf("third return: %+v", rt)
	}
	if got := s.Order("5535").Status; got != "delivered" {
		t.Errorf("order status %q", got)
	}
}

// TestErrors: every error code, through the handler, on fresh seed data
// after the given setup; none of them changes anything.
func TestErrors(t *testing.T) {
	alreadyRefunded := `{"code": "already_refunded", "detail": "Backpack was already refunded: NT$1,500 on 2026-10-02, refund rf_7001",
		"refund": {"refund_id": "rf_7001", "amount": 1500, "created_at": "2026-10-02T11:30:00+08:00"}}`
	for _, tc := range []struct {
		name   string
		setup  []req
		req    req
		status int
		want   string
	}{
		{"no customer", nil, req{method: "GET", path: "/orders/5531"}, 401,
			`{"code": "unauthenticated", "detail": "missing X-Customer-Id header: every request must name its customer"}`},
		{"no customer, refund", nil, req{method: "POST", path: "/orders/5531/refunds", body: `{"amount": 230, "line_item_ids": ["li_2"]}`}, 401,
			`{"code": "unauthenticated", "detail": "missing X-Customer-Id header: every request must name its customer"}`},
		{"other customer's order", nil, get(Lee, "/orders/5531"), 404, `{"code": "order_not_found", "detail": "no order 5531 for this customer"}`},
		{"other customer's quote", nil, req{method: "POST", path: "/orders/5531/refund-quotes", customer: Lee, body: `{"line_item_ids": ["li_2"]}`}, 404,
			`{"code": "order_not_found", "detail": "no order 5531 for this customer"}`},
		{"other customer's order for Wang", nil, get(Wang, "/orders/6001/shipments"), 404, `{"code": "order_not_found", "detail": "no order 6001 for this customer"}`},
		{"unknown customer", nil, get("cust_nobody", "/orders/5531/refunds"), 404, `{"code": "order_not_found", "detail": "no order 5531 for this customer"}`},
		{"no such order", nil, get(Wang, "/orders/9999"), 404, `{"code": "order_not_found", "detail": "no order 9999 for this customer"}`},
		{"other customer's cancel", nil, req{method: "POST", path: "/orders/5531/line-items/li_2/cancel", customer: Lee}, 404,
			`{"code": "order_not_found", "detail": "no order 5531 for this customer"}`},
		{"other customer's refund", nil, req{method: "POST", path: "/orders/5531/refunds", customer: Lee, body: `{"amount": 230, "line_item_ids": ["li_2"]}`}, 404,
			`{"code": "order_not_found", "detail": "no order 5531 for this customer"}`},
		{"other customer's address", nil, req{method: "PUT", path: "/orders/5531/shipping-address", customer: Lee,
			body: `{"name": "x", "line1": "x", "city": "x", "postal_code": "x", "country": "TW"}`}, 404,
			`{"code": "order_not_found", "detail": "no order 5531 for this customer"}`},

		{"quote: in fulfilment", nil, quote("5533", "li_5"), 409,
			`{"code": "in_fulfilment", "detail": "Desk lamp is being packed and can no longer be cancelled"}`},
		{"quote: in fulfilment among others", nil, quote("5533", "li_6", "li_5"), 409,
			`{"code": "in_fulfilment", "detail": "Desk lamp is being packed and can no longer be cancelled"}`},
		{"quote: already refunded", nil, quote("5534", "li_7"), 409, alreadyRefunded},
		{"quote: delivered", nil, quote("5531", "li_1"), 409,
			`{"code": "delivered", "detail": "Bluetooth headphones was delivered on 2026-09-23 and can no longer be cancelled; use a return instead"}`},
		{"quote: delivered with a pending one", nil, quote("5531", "li_2", "li_1"), 409,
			`{"code": "delivered", "detail": "Bluetooth headphones was delivered on 2026-09-23 and can no longer be cancelled; use a return instead"}`},
		{"quote: shipped", nil, quote("5536", "li_11"), 409,
			`{"code": "shipped", "detail": "Rain jacket has shipped (T-Cat 9012-3355-5536) and can no longer be cancelled; once it is delivered, use a return instead"}`},
		{"quote: already cancelled", []req{cancel("5532", "li_3")}, quote("5532", "li_3"), 409,
			`{"code": "already_cancelled", "detail": "Wool scarf was already cancelled"}`},
		{"quote: returned", []req{ret("5535", "refund", "li_10")}, quote("5535", "li_10"), 409,
			`{"code": "already_returned", "detail": "Socks was already returned (return rt_9901); its refund is part of that return"}`},
		{"quote: unknown item", nil, quote("5531", "li_9"), 422,
			`{"code": "unknown_line_item", "detail": "order 5531 has no line item \"li_9\"; its line items are li_1 (Bluetooth headphones), li_2 (Headphone case)"}`},
		{"quote: empty list", nil, quote("5531"), 422,
			`{"code": "invalid", "detail": "line_item_ids must name at least one line item of order 5531"}`},
		{"quote: no list", nil, post(Wang, "/orders/5531/refund-quotes", `{}`), 422,
			`{"code": "invalid", "detail": "line_item_ids must name at least one line item of order 5531"}`},
		{"quote: listed twice", nil, quote("5531", "li_2", "li_2"), 422,
			`{"code": "invalid", "detail": "line item li_2 is listed twice in line_item_ids"}`},

		{"cancel: in fulfilment", nil, cancel("5533", "li_5"), 409,
			`{"code": "in_fulfilment", "detail": "Desk lamp is being packed and can no longer be cancelled"}`},
		{"cancel: delivered", nil, cancel("5531", "li_1"), 409,
			`{"code": "delivered", "detail": "Bluetooth headphones was delivered on 2026-09-23 and can no longer be cancelled; use a return instead"}`},
		{"cancel: shipped", nil, cancel("5536", "li_11"), 409,
			`{"code": "shipped", "detail": "Rain jacket has shipped (T-Cat 9012-3355-5536) and can no longer be cancelled; once it is delivered, use a return instead"}`},
		{"cancel: twice", []req{cancel("5531", "li_2")}, cancel("5531", "li_2"), 409,
			`{"code": "already_cancelled", "detail": "Headphone case was already cancelled"}`},
		{"cancel: unknown item", nil, cancel("5532", "li_1"), 422,
			`{"code": "unknown_line_item", "detail": "order 5532 has no line item \"li_1\"; its line items are li_3 (Wool scarf), li_4 (Gloves)"}`},

		{"refund: more than paid", nil, refund("5531", 1431, "li_2"), 422,
			`{"code": "amount_exceeds_refundable", "detail": "amount 1,431 exceeds the NT$1,430 still refundable on order 5531 (paid 1,430, already refunded 0)"}`},
		{"refund: more than left", nil, refund("5534", 451, "li_8"), 422,
			`{"code": "amount_exceeds_refundable", "detail": "amount 451 exceeds the NT$450 still refundable on order 5534 (paid 1,950, already refunded 1,500)"}`},
		{"refund: more than left after a refund", []req{refund("5532", 900, "li_3")}, refund("5532", 701, "li_4"), 422,
			`{"code": "amount_exceeds_refundable", "detail": "amount 701 exceeds the NT$700 still refundable on order 5532 (paid 1,600, already refunded 900)"}`},
		{"refund: zero", nil, refund("5531", 0, "li_2"), 422, `{"code": "invalid", "detail": "amount must be at least 1, got 0"}`},
		{"refund: negative", nil, refund("5531", -5, "li_2"), 422, `{"code": "invalid", "detail": "amount must be at least 1, got -5"}`},
		{"refund: fraction", nil, post(Wang, "/orders/5531/refunds", `{"amount": 229.5, "line_item_ids": ["li_2"]}`), 422,
			`{"code": "invalid", "detail": "amount must be a whole number of NT$, got 229.5"}`},
		{"refund: no amount", nil, post(Wang, "/orders/5531/refunds", `{"line_item_ids": ["li_2"]}`), 422,
			`{"code": "invalid", "detail": "amount is required: the amount to refund in NT$"}`},
		{"refund: no items", nil, post(Wang, "/orders/5531/refunds", `{"amount": 230}`), 422,
			`{"code": "invalid", "detail": "line_item_ids must name at least one line item of order 5531"}`},
		{"refund: unknown item", nil, refund("5531", 230, "li_3"), 422,
			`{"code": "unknown_line_item", "detail": "order 5531 has no line item \"li_3\"; its line items are li_1 (Bluetooth headphones), li_2 (Headphone case)"}`},
		{"refund: already refunded", nil, refund("5534", 100, "li_7"), 409, alreadyRefunded},
		{"refund: already refunded by this session", []req{refund("5532", 900, "li_3")}, refund("5532", 900, "li_3"), 409,
			`{"code": "already_refunded", "detail": "Wool scarf was already refunded: NT$900 on 2026-10-05, refund rf_8801",
			  "refund": {"refund_id": "rf_8801", "amount": 900, "created_at": "2026-10-05T10:00:00+08:00"}}`},
		{"refund: returned item", []req{ret("5535", "refund", "li_10")}, refund("5535", 100, "li_10"), 409,
			`{"code": "already_returned", "detail": "Socks was already returned (return rt_9901); its refund is part of that return"}`},
		{"refund: not JSON", nil, post(Wang, "/orders/5531/refunds", `amount=230`), 422,
			`{"code": "invalid", "detail": "the request body must be a JSON object of the documented shape: invalid character 'a' looking for beginning of value"}`},

		{"return: pending", nil, ret("5531", "refund", "li_2"), 409,
			`{"code": "not_delivered", "detail": "Headphone case has not shipped yet; only delivered items can be returned, so cancel it instead"}`},
		{"return: in fulfilment", nil, ret("5533", "exchange", "li_5"), 409,
			`{"code": "not_delivered", "detail": "Desk lamp is being packed and has not been delivered; it can be returned once it arrives"}`},
		{"return: shipped", nil, ret("5536", "refund", "li_11"), 409,
			`{"code": "not_delivered", "detail": "Rain jacket is on its way (T-Cat 9012-3355-5536) and has not been delivered; it can be returned once it arrives"}`},
		{"return: cancelled", []req{cancel("5531", "li_2")}, ret("5531", "refund", "li_2"), 409,
			`{"code": "not_delivered", "detail": "Headphone case was cancelled and never shipped; there is nothing to return"}`},
		{"return: delivered with a pending one", nil, ret("5531", "refund", "li_1", "li_2"), 409,
			`{"code": "not_delivered", "detail": "Headphone case has not shipped yet; only delivered items can be returned, so cancel it instead"}`},
		{"return: refunded", nil, ret("5534", "refund", "li_7"), 409, alreadyRefunded},
		{"return: twice", []req{ret("5535", "refund", "li_9")}, ret("5535", "exchange", "li_9"), 409,
			`{"code": "already_returned", "detail": "Running shoes was already returned (return rt_9901); its refund is part of that return"}`},
		{"return: bad kind", nil, ret("5535", "store_credit", "li_9"), 422,
			`{"code": "invalid", "detail": "kind must be \"refund\" or \"exchange\", got \"store_credit\""}`},
		{"return: no kind", nil, post(Wang, "/orders/5535/returns", `{"line_item_ids": ["li_9"]}`), 422,
			`{"code": "invalid", "detail": "kind must be \"refund\" or \"exchange\", got \"\""}`},
		{"return: unknown item", nil, ret("5535", "refund", "li_1"), 422,
			`{"code": "unknown_line_item", "detail": "order 5535 has no line item \"li_1\"; its line items are li_9 (Running shoes), li_10 (Socks)"}`},
		{"return: empty", nil, ret("5535", "refund"), 422,
			`{"code": "invalid", "detail": "line_item_ids must name at least one line item of order 5535"}`},

		{"address: all delivered", nil, put(Wang, "/orders/5535/shipping-address", `{"name": "Wang", "line1": "1 Road", "city": "Tainan", "postal_code": "700", "country": "TW"}`), 409,
			`{"code": "already_shipped", "detail": "every item of order 5535 has already shipped (or was cancelled); the shipping address can no longer be changed"}`},
		{"address: in transit", nil, put(Wang, "/orders/5536/shipping-address", `{"name": "Wang", "line1": "1 Road", "city": "Tainan", "postal_code": "700", "country": "TW"}`), 409,
			`{"code": "already_shipped", "detail": "every item of order 5536 has already shipped (or was cancelled); the shipping address can no longer be changed"}`},
		{"address: missing fields", nil, put(Wang, "/orders/5532/shipping-address", `{"name": "Wang", "line1": "1 Road", "line2": "3F"}`), 422,
			`{"code": "invalid", "detail": "missing city, postal_code, country: name, line1, city, postal_code and country are required"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newShop()
			h := s.Handler()
			for _, r := range tc.setup {
				if code, body := r.do(t, h); code >= 300 {
					t.Fatalf("setup %s %s: %d %s", r.method, r.path, code, body)
				}
			}
			orders := map[string]Order{}
			refunds := map[string][]Refund{}
			returns := map[string][]Return{}
			for id := range s.orders {
				orders[id], refunds[id], returns[id] = s.Order(id), s.Refunds(id), s.Returns(id)
			}
			code, body := tc.req.do(t, h)
			if code != tc.status {
				t.Errorf("status %d, want %d", code, tc.status)
			}
			sameJSON(t, body, tc.want)
			for id := range s.orders {
				if !reflect.DeepEqual(orders[id], s.Order(id)) || !reflect.DeepEqual(refunds[id], s.Refunds(id)) || !reflect.DeepEqual(returns[id], s.Returns(id)) {
					t.Errorf("the failed request changed order %s", id)
				}
			}
		})
	}
}

func TestRefund(t *testing.T) {
	s := newShop()
	h := s.Handler()
	// The raw API trusts the caller's amount: NT$344 (a pro-rata guess) is
	// accepted as long as it is refundable.
	var rf Refund
	json.Unmarshal([]byte(refund("5531", 344, "li_2").must(t, h, 201)), &rf)
	if rf.RefundID != "rf_8801" || rf.Amount != 344 || rf.Method != "card ending 4242" || !rf.CreatedAt.Equal(clock) {
		t.Errorf("refund: %+v", rf)
	}
	json.Unmarshal([]byte(refund("5532", 1600, "li_3", "li_4").must(t, h, 201)), &rf)
	if rf.RefundID != "rf_8802" || rf.Amount != 1600 {
		t.Errorf("second refund: %+v", rf)
	}
	// Reason is optional; a refund of an item still pending is allowed.
	body := post(Wang, "/orders/5534/refunds", `{"amount": 450, "line_item_ids": ["li_8"]}`).must(t, h, 201)
	sameJSON(t, body, `{"refund_id": "rf_8803", "order_id": "5534", "amount": 450, "line_item_ids": ["li_8"], "reason": "",
		"created_at": "2026-10-05T10:00:00+08:00", "method": "card ending 4242"}`)
	if got := s.LineItem("5534", "li_8").Status; got != Pending {
		t.Errorf("createRefund changed the item's status to %q", got)
	}
}

func TestIdempotency(t *testing.T) {
	s := newShop()
	h := s.Handler()
	r := refund("5532", 900, "li_3")
	r.idempotencyKey = "k1"
	first := r.must(t, h, 201)
	// The same key returns the first refund, even with another body.
	r2 := refund("5532", 700, "li_4")
	r2.idempotencyKey = "k1"
	sameJSON(t, r2.must(t, h, 200), first)
	if n := len(s.Refunds("5532")); n != 1 {
		t.Errorf("%d refunds, want 1", n)
	}
	// Another key is another refund; the same key on another order too.
	r2.idempotencyKey = "k2"
	r2.must(t, h, 201)
	r3 := refund("6001", 350, "li_20")
	r3.customer, r3.idempotencyKey = Lee, "k1"
	var rf Refund
	json.Unmarshal([]byte(r3.must(t, h, 201)), &rf)
	if rf.RefundID != "rf_8803" || rf.OrderID != "6001" {
		t.Errorf("same key on another order: %+v", rf)
	}
	// A failed request does not record its key.
	r4 := refund("5531", 5000, "li_2")
	r4.idempotencyKey = "k3"
	r4.must(t, h, 422)
	r4 = refund("5531", 230, "li_2")
	r4.idempotencyKey = "k3"
	r4.must(t, h, 201)
}

// TestCancelIdempotency: a cancel retried with the key of one that took
// effect gets the same answer; without the key it is a conflict.
func TestCancelIdempotency(t *testing.T) {
	h := newShop().Handler()
	r := cancel("5531", "li_2")
	r.idempotencyKey = "q_1-li_2"
	first := r.must(t, h, 200)
	sameJSON(t, r.must(t, h, 200), first)
	cancel("5531", "li_2").must(t, h, 409)
	r.idempotencyKey = "another"
	r.must(t, h, 409)
}

func TestIdempotencyConcurrent(t *testing.T) {
	s := newShop()
	h := s.Handler()
	var wg sync.WaitGroup
	codes := make([]int, 20)
	for i := range codes {
		wg.Go(func() {
			r := refund("5531", 230, "li_2")
			r.idempotencyKey = "same"
			codes[i], _ = r.do(t, h)
		})
	}
	wg.Wait()
	created := 0
	for _, c := range codes {
		if c == 201 {
			created++
		} else if c != 200 {
			t.Errorf("status %d", c)
		}
	}
	if created != 1 || len(s.Refunds("5531")) != 1 {
		t.Errorf("%d created, %d refunds; want exactly one", created, len(s.Refunds("5531")))
	}
}

func TestShippingAddress(t *testing.T) {
	s := newShop()
	h := s.Handler()
	want := `{"order_id": "5531", "shipping_address": {"name": "Wang Xiao-ming", "line1": "No. 3, Lane 5, Heping Rd.", "line2": null,
		"city": "Tainan", "postal_code": "700", "country": "TW"}}`
	sameJSON(t, put(Wang, "/orders/5531/shipping-address",
		`{"name": "Wang Xiao-ming", "line1": "No. 3, Lane 5, Heping Rd.", "city": "Tainan", "postal_code": "700", "country": "TW"}`).must(t, h, 200), want)
	if a := s.Order("5531").ShippingAddress; a.City != "Tainan" || a.Line2 != nil {
		t.Errorf("address: %+v", a)
	}
	// An order whose only open item is being packed can still change.
	put(Wang, "/orders/5533/shipping-address", `{"name": "Wang", "line1": "1 Road", "line2": "2F", "city": "Tainan", "postal_code": "700", "country": "TW"}`).must(t, h, 200)
	if a := s.Order("5533").ShippingAddress; a.Line2 == nil || *a.Line2 != "2F" {
		t.Errorf("address: %+v", a)
	}
	// Once the last open item is cancelled, there is nothing left to ship.
	cancel("5531", "li_2").must(t, h, 200)
	put(Wang, "/orders/5531/shipping-address", `{"name": "W", "line1": "1", "city": "T", "postal_code": "7", "country": "TW"}`).must(t, h, 409)
}

func TestEveryOperationNeedsACustomer(t *testing.T) {
	s := newShop()
	h := s.Handler()
	for _, r := range []req{
		{method: "GET", path: "/orders/5531"},
		{method: "GET", path: "/orders/5531/shipments"},
		{method: "GET", path: "/orders/5531/refunds"},
		{method: "POST", path: "/orders/5531/refund-quotes", body: `{"line_item_ids": ["li_2"]}`},
		{method: "POST", path: "/orders/5531/line-items/li_2/cancel"},
		{method: "POST", path: "/orders/5531/refunds", body: `{"amount": 230, "line_item_ids": ["li_2"]}`},
		{method: "POST", path: "/orders/5535/returns", body: `{"kind": "refund", "line_item_ids": ["li_9"]}`},
		{method: "PUT", path: "/orders/5531/shipping-address", body: `{"name": "W", "line1": "1", "city": "T", "postal_code": "7", "country": "TW"}`},
	} {
		if code, body := r.do(t, h); code != 401 || !strings.Contains(body, `"unauthenticated"`) {
			t.Errorf("%s %s without X-Customer-Id: %d %s", r.method, r.path, code, body)
		}
	}
	if s.LineItem("5531", "li_2").Status != Pending || len(s.Refunds("5531")) != 0 || len(s.Returns("5535")) != 0 {
		t.Errorf("an unauthenticated request changed something")
	}
	// Mutating requests are counted whatever their outcome; reads and quotes are not.
	if got := s.Requests(); got != 4 {
		t.Errorf("Requests() = %d, want 4", got)
	}
}

func TestNum(t *testing.T) {
	for n, want := range map[int]string{0: "0", 80: "80", 999: "999", 1000: "1,000", 1430: "1,430", 123456: "123,456", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := num(n); got != want {
			t.Errorf("num(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}
