// Package backend implements the back-office example's API (../openapi.yaml)
// in memory, with the shop's rules, so the generated MCP server and its
// scenario tests run against a real HTTP backend.
//
// Every request names its customer in X-Customer-Id; an order of another
// customer is answered exactly like an order that does not exist. Money is
// in whole NT$ (TWD). The rules (see rules.go):
//
//   - Coupon take-back: when the items the customer keeps after a refund or a
//     return total less than the order coupon's threshold, the coupon's
//     discount is deducted from the refund, once per order.
//   - Shipping: a return for refund on an order that shipped free deducts
//     NT$80 when the kept items fall below NT$1,500, once per order.
//   - Repeat returns: every return after the first on an order (exchanges
//     included) costs NT$80.
//
// POST /orders/{id}/refund-quotes computes a cancellation refund and changes
// nothing. POST /orders/{id}/refunds, like the screen's old API, trusts the
// caller's amount: it only checks it against what is still refundable.
package backend

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Line item statuses.
const (
	Pending      = "pending"
	InFulfilment = "in_fulfilment"
	Shipped      = "shipped"
	Delivered    = "delivered"
	Cancelled    = "cancelled"
	Returned     = "returned"
)

// Coupon is an order's coupon: Discount off orders of at least Threshold.
type Coupon struct {
	Code        string `json:"code"`
	Description string `json:"description"`
	Discount    int    `json:"discount"`
	Threshold   int    `json:"threshold"`
}

// PaymentMethod is how an order was paid.
type PaymentMethod struct {
	Type      string `json:"type"`
	CardLast4 string `json:"card_last4"`
}

// Address is a shipping address.
type Address struct {
	Name       string  `json:"name"`
	Line1      string  `json:"line1"`
	Line2      *string `json:"line2"`
	City       string  `json:"city"`
	PostalCode string  `json:"postal_code"`
	Country    string  `json:"country"`
}

// LineItem is one line of an order. Price is the unit price; a line is worth
// Price × Quantity.
type LineItem struct {
	LineItemID  string     `json:"line_item_id"`
	Name        string     `json:"name"`
	Quantity    int        `json:"quantity"`
	Price       int        `json:"price"`
	Status      string     `json:"status"`
	DeliveredAt *time.Time `json:"delivered_at"`
}

// Order is GET /orders/{order_id}.
type Order struct {
	OrderID         string        `json:"order_id"`
	CustomerID      string        `json:"customer_id"`
	Status          string        `json:"status"`
	PlacedAt        time.Time     `json:"placed_at"`
	Coupon          *Coupon       `json:"coupon"`
	Subtotal        int           `json:"subtotal"`
	Paid            int           `json:"paid"`
	FreeShipping    bool          `json:"free_shipping"`
	PaymentMethod   PaymentMethod `json:"payment_method"`
	ShippingAddress Address       `json:"shipping_address"`
	LineItems       []LineItem    `json:"line_items"`
}

// Shipment is one parcel of an order.
type Shipment struct {
	ShipmentID     string     `json:"shipment_id"`
	LineItemIDs    []string   `json:"line_item_ids"`
	Status         string     `json:"status"`
	Carrier        string     `json:"carrier"`
	TrackingNumber *string    `json:"tracking_number"`
	ShippedAt      *time.Time `json:"shipped_at"`
	DeliveredAt    *time.Time `json:"delivered_at"`
}

// Refund is money sent back to the order's card.
type Refund struct {
	RefundID    string    `json:"refund_id"`
	OrderID     string    `json:"order_id"`
	Amount      int       `json:"amount"`
	LineItemIDs []string  `json:"line_item_ids"`
	Reason      string    `json:"reason"`
	CreatedAt   time.Time `json:"created_at"`
	Method      string    `json:"method"`
}

// Deduction is an amount kept back from a refund (or, for an exchange,
// charged): Kind is coupon_takeback, shipping or repeat_return.
type Deduction struct {
	Kind   string `json:"kind"`
	Amount int    `json:"amount"`
	Detail string `json:"detail"`
}

// Return is a return of delivered items, for a refund or an exchange.
type Return struct {
	ReturnID     string      `json:"return_id"`
	OrderID      string      `json:"order_id"`
	Kind         string      `json:"kind"`
	LineItemIDs  []string    `json:"line_item_ids"`
	RefundAmount int         `json:"refund_amount"`
	Fees         []Deduction `json:"fees"`
	Explanation  string      `json:"explanation"`
	LabelURL     string      `json:"label_url"`
	CreatedAt    time.Time   `json:"created_at"`
}

// QuotedLineItem is a line of a refund quote; Price is the line's worth.
type QuotedLineItem struct {
	LineItemID string `json:"line_item_id"`
	Name       string `json:"name"`
	Price      int    `json:"price"`
}

// RefundQuote is POST /orders/{order_id}/refund-quotes.
type RefundQuote struct {
	OrderID           string           `json:"order_id"`
	Amount            int              `json:"amount"`
	Currency          string           `json:"currency"`
	LineItems         []QuotedLineItem `json:"line_items"`
	CancelLineItemIDs []string         `json:"cancel_line_item_ids"`
	Deductions        []Deduction      `json:"deductions"`
	Explanation       string           `json:"explanation"`
	PaymentMethod     string           `json:"payment_method"`
}

// CancelledLineItem is POST /orders/{order_id}/line-items/{line_item_id}/cancel.
type CancelledLineItem struct {
	LineItemID string `json:"line_item_id"`
	Name       string `json:"name"`
	Quantity   int    `json:"quantity"`
	Status     string `json:"status"`
}

// OrderShippingAddress is PUT /orders/{order_id}/shipping-address.
type OrderShippingAddress struct {
	OrderID         string  `json:"order_id"`
	ShippingAddress Address `json:"shipping_address"`
}

// RefundSummary identifies an earlier refund in an already_refunded error.
type RefundSummary struct {
	RefundID  string    `json:"refund_id"`
	Amount    int       `json:"amount"`
	CreatedAt time.Time `json:"created_at"`
}

// Error is every error body.
type Error struct {
	Code   string         `json:"code"`
	Detail string         `json:"detail"`
	Refund *RefundSummary `json:"refund,omitempty"`
}

// Call is one request the backend received, as Calls reports it.
type Call struct {
	Method         string
	Path           string
	CustomerID     string
	IdempotencyKey string
	// RequestID is the X-Request-Id the MCP server sent (its logs and
	// audit record name the call by it).
	RequestID string
	Status    int
}

type order struct {
	id, customer      string
	placedAt          time.Time
	coupon            *Coupon
	subtotal, paid    int
	freeShipping      bool
	address           Address
	items             []*LineItem
	shipments         []Shipment
	refunds           []Refund
	returns           []Return
	couponTakenBackBy string            // the refund or return that took the coupon's discount back
	shippingChargedBy string            // the return that deducted shipping
	idempotency       map[string]string // Idempotency-Key → refund id
	cancelKeys        map[string]string // Idempotency-Key → cancelled line item id
}

// Shop is the backend's state. It is safe for concurrent use.
type Shop struct {
	mu         sync.Mutex
	now        func() time.Time
	orders     map[string]*order
	nextRefund int
	nextReturn int
	requests   int
	calls      []Call
}

// New returns a shop with the seed data (see seed.go). now stamps new
// refunds and returns.
func New(now func() time.Time) *Shop {
	s := &Shop{now: now, orders: map[string]*order{}, nextRefund: 8800, nextReturn: 9900}
	s.seed()
	return s
}

// Handler serves the API at the root.
func (s *Shop) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /orders/{order_id}", s.onOrder(s.getOrder))
	mux.HandleFunc("GET /orders/{order_id}/shipments", s.onOrder(s.listShipments))
	mux.HandleFunc("GET /orders/{order_id}/refunds", s.onOrder(s.listRefunds))
	mux.HandleFunc("POST /orders/{order_id}/refund-quotes", s.onOrder(s.quoteRefund))
	mux.HandleFunc("POST /orders/{order_id}/line-items/{line_item_id}/cancel", s.onOrder(s.cancelLineItem))
	mux.HandleFunc("POST /orders/{order_id}/refunds", s.onOrder(s.createRefund))
	mux.HandleFunc("POST /orders/{order_id}/returns", s.onOrder(s.createReturn))
	mux.HandleFunc("PUT /orders/{order_id}/shipping-address", s.onOrder(s.updateShippingAddress))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if mutating(r) {
				s.requests++
			}
			s.calls = append(s.calls, Call{Method: r.Method, Path: r.URL.Path, CustomerID: r.Header.Get("X-Customer-Id"),
				IdempotencyKey: r.Header.Get("Idempotency-Key"), RequestID: r.Header.Get("X-Request-Id"), Status: sw.status})
		}()
		if r.Header.Get("X-Customer-Id") == "" {
			reply(sw, http.StatusUnauthorized, Error{Code: "unauthenticated", Detail: "missing X-Customer-Id header: every request must name its customer"})
			return
		}
		mux.ServeHTTP(sw, r)
	})
}

// mutating reports whether r is for an operation that can change state
// (quotes cannot).
func mutating(r *http.Request) bool {
	return r.Method != http.MethodGet && r.Method != http.MethodHead && !strings.HasSuffix(r.URL.Path, "/refund-quotes")
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

// Requests returns how many requests for state-changing operations (cancel,
// refund, return, shipping address) the backend received, whatever their
// outcome. Reads and quotes do not count.
func (s *Shop) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Calls returns every request received, in order.
func (s *Shop) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// Order returns an order as GET /orders/{order_id} shows it (zero if none).
func (s *Shop) Order(orderID string) Order {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.orders[orderID]
	if o == nil {
		return Order{}
	}
	return o.view()
}

// LineItem returns a line item of an order (zero if none).
func (s *Shop) LineItem(orderID, lineItemID string) LineItem {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.orders[orderID]; o != nil {
		if li := o.item(lineItemID); li != nil {
			return *li
		}
	}
	return LineItem{}
}

// Refunds returns an order's refunds, oldest first.
func (s *Shop) Refunds(orderID string) []Refund {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.orders[orderID]
	if o == nil {
		return nil
	}
	out := make([]Refund, len(o.refunds))
	for i, rf := range o.refunds {
		rf.LineItemIDs = slices.Clone(rf.LineItemIDs)
		out[i] = rf
	}
	return out
}

// Returns returns an order's returns, oldest first.
func (s *Shop) Returns(orderID string) []Return {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.orders[orderID]
	if o == nil {
		return nil
	}
	out := make([]Return, len(o.returns))
	for i, rt := range o.returns {
		rt.LineItemIDs = slices.Clone(rt.LineItemIDs)
		rt.Fees = slices.Clone(rt.Fees)
		out[i] = rt
	}
	return out
}

func (o *order) view() Order {
	v := Order{OrderID: o.id, CustomerID: o.customer, Status: o.status(), PlacedAt: o.placedAt, Subtotal: o.subtotal, Paid: o.paid,
		FreeShipping: o.freeShipping, PaymentMethod: PaymentMethod{Type: "card", CardLast4: "4242"}, ShippingAddress: o.address,
		LineItems: make([]LineItem, len(o.items))}
	if o.coupon != nil {
		c := *o.coupon
		v.Coupon = &c
	}
	for i, li := range o.items {
		v.LineItems[i] = *li
	}
	return v
}

// status derives the order's status from its items' statuses.
func (o *order) status() string {
	var open, moving, arrived int
	for _, li := range o.items {
		switch li.Status {
		case Pending, InFulfilment:
			open++
		case Shipped:
			moving++
		case Delivered, Returned:
			arrived++
		}
	}
	switch {
	case open+moving+arrived == 0:
		return "cancelled"
	case moving+arrived == 0:
		return "processing"
	case open > 0:
		return "partially_shipped"
	case moving > 0:
		return "shipped"
	}
	return "delivered"
}

func (o *order) item(id string) *LineItem {
	for _, li := range o.items {
		if li.LineItemID == id {
			return li
		}
	}
	return nil
}

func (o *order) method() string { return "card ending 4242" }

// apiError is an error response.
type apiError struct {
	status int
	body   Error
}

func fail(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, body: Error{Code: code, Detail: fmt.Sprintf(format, args...)}}
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func replyErr(w http.ResponseWriter, e *apiError) { reply(w, e.status, e.body) }

// findOrder returns the caller's order, or nil after answering 404. The
// caller holds s.mu.
// onOrder serves a route of one order: under the lock, with the order the
// path names, when it is the caller's (else 404).
func (s *Shop) onOrder(h func(w http.ResponseWriter, r *http.Request, o *order)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if o := s.findOrder(w, r); o != nil {
			h(w, r, o)
		}
	}
}

func (s *Shop) findOrder(w http.ResponseWriter, r *http.Request) *order {
	id := r.PathValue("order_id")
	o := s.orders[id]
	if o == nil || o.customer != r.Header.Get("X-Customer-Id") {
		replyErr(w, fail(http.StatusNotFound, "order_not_found", "no order %s for this customer", id))
		return nil
	}
	return o
}

// decode reads a JSON object body into v.
func decode(r *http.Request, v any) *apiError {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		return fail(http.StatusUnprocessableEntity, "invalid", "the request body must be a JSON object of the documented shape: %v", err)
	}
	return nil
}

// selection resolves line item ids: at least one, no repeats, all of the order.
func (o *order) selection(ids []string) ([]*LineItem, *apiError) {
	if len(ids) == 0 {
		return nil, fail(http.StatusUnprocessableEntity, "invalid", "line_item_ids must name at least one line item of order %s", o.id)
	}
	var out []*LineItem
	for i, id := range ids {
		if slices.Contains(ids[:i], id) {
			return nil, fail(http.StatusUnprocessableEntity, "invalid", "line item %s is listed twice in line_item_ids", id)
		}
		li := o.item(id)
		if li == nil {
			return nil, o.unknownItem(id)
		}
		out = append(out, li)
	}
	return out, nil
}

func (o *order) unknownItem(id string) *apiError {
	var known []string
	for _, li := range o.items {
		known = append(known, fmt.Sprintf("%s (%s)", li.LineItemID, li.Name))
	}
	return fail(http.StatusUnprocessableEntity, "unknown_line_item", "order %s has no line item %q; its line items are %s", o.id, id, strings.Join(known, ", "))
}

func (s *Shop) getOrder(w http.ResponseWriter, r *http.Request, o *order) {
	reply(w, http.StatusOK, o.view())
}

func (s *Shop) listShipments(w http.ResponseWriter, r *http.Request, o *order) {
	out := []Shipment{}
	out = append(out, o.shipments...)
	reply(w, http.StatusOK, out)
}

func (s *Shop) listRefunds(w http.ResponseWriter, r *http.Request, o *order) {
	out := []Refund{}
	out = append(out, o.refunds...)
	reply(w, http.StatusOK, out)
}

func (s *Shop) quoteRefund(w http.ResponseWriter, r *http.Request, o *order) {
	var body struct {
		LineItemIDs []string `json:"line_item_ids"`
		Reason      *string  `json:"reason"`
	}
	if e := decode(r, &body); e != nil {
		replyErr(w, e)
		return
	}
	q, e := o.quote(body.LineItemIDs)
	if e != nil {
		replyErr(w, e)
		return
	}
	reply(w, http.StatusOK, q)
}

func (s *Shop) cancelLineItem(w http.ResponseWriter, r *http.Request, o *order) {
	li := o.item(r.PathValue("line_item_id"))
	if li == nil {
		replyErr(w, o.unknownItem(r.PathValue("line_item_id")))
		return
	}
	// A retry with the key of a cancel that took effect gets the same answer.
	key := r.Header.Get("Idempotency-Key")
	if id, ok := o.cancelKeys[key]; ok && key != "" && id == li.LineItemID {
		reply(w, http.StatusOK, CancelledLineItem{LineItemID: li.LineItemID, Name: li.Name, Quantity: li.Quantity, Status: li.Status})
		return
	}
	if e := o.notCancellable(li); e != nil {
		replyErr(w, e)
		return
	}
	li.Status = Cancelled
	if key != "" {
		if o.cancelKeys == nil {
			o.cancelKeys = map[string]string{}
		}
		o.cancelKeys[key] = li.LineItemID
	}
	reply(w, http.StatusOK, CancelledLineItem{LineItemID: li.LineItemID, Name: li.Name, Quantity: li.Quantity, Status: li.Status})
}

func (s *Shop) createRefund(w http.ResponseWriter, r *http.Request, o *order) {
	key := r.Header.Get("Idempotency-Key")
	if id, ok := o.idempotency[key]; ok && key != "" {
		for _, rf := range o.refunds {
			if rf.RefundID == id {
				reply(w, http.StatusOK, rf)
				return
			}
		}
	}
	var body struct {
		Amount      *json.Number `json:"amount"`
		Reason      *string      `json:"reason"`
		LineItemIDs []string     `json:"line_item_ids"`
	}
	if e := decode(r, &body); e != nil {
		replyErr(w, e)
		return
	}
	items, e := o.selection(body.LineItemIDs)
	if e != nil {
		replyErr(w, e)
		return
	}
	if body.Amount == nil {
		replyErr(w, fail(http.StatusUnprocessableEntity, "invalid", "amount is required: the amount to refund in NT$"))
		return
	}
	amount, err := body.Amount.Int64()
	if err != nil {
		replyErr(w, fail(http.StatusUnprocessableEntity, "invalid", "amount must be a whole number of NT$, got %s", body.Amount.String()))
		return
	}
	if amount <= 0 {
		replyErr(w, fail(http.StatusUnprocessableEntity, "invalid", "amount must be at least 1, got %d", amount))
		return
	}
	for _, li := range items {
		if e := o.alreadyRefunded(li); e != nil {
			replyErr(w, e)
			return
		}
		if li.Status == Returned {
			replyErr(w, o.alreadyReturned(li))
			return
		}
	}
	if refundable := o.refundable(); amount > int64(refundable) {
		replyErr(w, fail(http.StatusUnprocessableEntity, "amount_exceeds_refundable",
			"amount %s exceeds the NT$%s still refundable on order %s (paid %s, already refunded %s)",
			num(int(amount)), num(refundable), o.id, num(o.paid), num(o.paid-refundable)))
		return
	}
	s.nextRefund++
	rf := Refund{RefundID: fmt.Sprintf("rf_%d", s.nextRefund), OrderID: o.id, Amount: int(amount), LineItemIDs: slices.Clone(body.LineItemIDs),
		CreatedAt: s.stamp(), Method: o.method()}
	if body.Reason != nil {
		rf.Reason = *body.Reason
	}
	// The caller chose the amount; the order's books still follow the rule:
	// once the kept items are below the coupon's threshold, its discount
	// counts as taken back and no later refund or return takes it again.
	if d, _ := o.couponTakeback(o.selected(items), o.worth(items)); d != nil {
		o.couponTakenBackBy = rf.RefundID
	}
	o.refunds = append(o.refunds, rf)
	if key != "" {
		if o.idempotency == nil {
			o.idempotency = map[string]string{}
		}
		o.idempotency[key] = rf.RefundID
	}
	reply(w, http.StatusCreated, rf)
}

func (s *Shop) createReturn(w http.ResponseWriter, r *http.Request, o *order) {
	var body struct {
		LineItemIDs []string `json:"line_item_ids"`
		Kind        string   `json:"kind"`
		Reason      *string  `json:"reason"`
	}
	if e := decode(r, &body); e != nil {
		replyErr(w, e)
		return
	}
	if body.Kind != "refund" && body.Kind != "exchange" {
		replyErr(w, fail(http.StatusUnprocessableEntity, "invalid", "kind must be \"refund\" or \"exchange\", got %q", body.Kind))
		return
	}
	items, e := o.selection(body.LineItemIDs)
	if e != nil {
		replyErr(w, e)
		return
	}
	for _, li := range items {
		if e := o.notReturnable(li); e != nil {
			replyErr(w, e)
			return
		}
	}
	s.nextReturn++
	id := fmt.Sprintf("rt_%d", s.nextReturn)
	rt := o.returnFor(items, body.Kind)
	rt.ReturnID = id
	rt.LabelURL = "https://backoffice.example.com/returns/" + id + "/label.pdf"
	rt.CreatedAt = s.stamp()
	for _, f := range rt.Fees {
		switch f.Kind {
		case "coupon_takeback":
			o.couponTakenBackBy = id
		case "shipping":
			o.shippingChargedBy = id
		}
	}
	if body.Kind == "refund" {
		for _, li := range items {
			li.Status = Returned
		}
	}
	o.returns = append(o.returns, rt)
	reply(w, http.StatusCreated, rt)
}

func (s *Shop) updateShippingAddress(w http.ResponseWriter, r *http.Request, o *order) {
	var a Address
	if e := decode(r, &a); e != nil {
		replyErr(w, e)
		return
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"name", a.Name}, {"line1", a.Line1}, {"city", a.City}, {"postal_code", a.PostalCode}, {"country", a.Country}} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		replyErr(w, fail(http.StatusUnprocessableEntity, "invalid", "missing %s: name, line1, city, postal_code and country are required", strings.Join(missing, ", ")))
		return
	}
	if a.Line2 != nil && *a.Line2 == "" {
		a.Line2 = nil
	}
	open := slices.ContainsFunc(o.items, func(li *LineItem) bool { return li.Status == Pending || li.Status == InFulfilment })
	if !open {
		replyErr(w, fail(http.StatusConflict, "already_shipped", "every item of order %s has already shipped (or was cancelled); the shipping address can no longer be changed", o.id))
		return
	}
	o.address = a
	reply(w, http.StatusOK, OrderShippingAddress{OrderID: o.id, ShippingAddress: a})
}

// stamp is the time for a new record: the clock's, to the second, in Taipei.
func (s *Shop) stamp() time.Time { return s.now().In(taipei).Truncate(time.Second) }
