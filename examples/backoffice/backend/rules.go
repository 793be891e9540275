package backend

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

const (
	// freeShippingMin is the order value from which the shop ships free.
	freeShippingMin = 1500
	// shippingFee is deducted when a return makes a free-shipping order fall
	// below freeShippingMin.
	shippingFee = 80
	// repeatReturnFee is charged for every return after an order's first.
	repeatReturnFee = 80
)

// worth is what a line is worth: unit price × quantity.
func worth(li *LineItem) int { return li.Price * li.Quantity }

func (o *order) worth(items []*LineItem) int {
	sum := 0
	for _, li := range items {
		sum += worth(li)
	}
	return sum
}

func (o *order) selected(items []*LineItem) map[string]bool {
	m := map[string]bool{}
	for _, li := range items {
		m[li.LineItemID] = true
	}
	return m
}

// refundOf returns the refund that covered a line item, or nil.
func (o *order) refundOf(id string) *Refund {
	for i := range o.refunds {
		for _, x := range o.refunds[i].LineItemIDs {
			if x == id {
				return &o.refunds[i]
			}
		}
	}
	return nil
}

// returnOf returns the latest return that took a line item back, or nil.
func (o *order) returnOf(id string) *Return {
	for i := len(o.returns) - 1; i >= 0; i-- {
		for _, x := range o.returns[i].LineItemIDs {
			if x == id {
				return &o.returns[i]
			}
		}
	}
	return nil
}

// refundable is what is left of the payment: paid minus refunds and the
// refunds of returns.
func (o *order) refundable() int {
	left := o.paid
	for _, rf := range o.refunds {
		left -= rf.Amount
	}
	for _, rt := range o.returns {
		left -= rt.RefundAmount
	}
	return max(left, 0)
}

// kept returns the items the customer keeps once the ones in sel are gone:
// not cancelled, returned or refunded, and not in sel.
func (o *order) kept(sel map[string]bool) (items []*LineItem, total int) {
	for _, li := range o.items {
		if sel[li.LineItemID] || li.Status == Cancelled || li.Status == Returned || o.refundOf(li.LineItemID) != nil {
			continue
		}
		items = append(items, li)
		total += worth(li)
	}
	return items, total
}

// couponTakeback applies the coupon rule to a refund of the items in sel
// worth price: when the order has a coupon whose discount was not taken back
// yet and the kept items total less than its threshold, the discount (at most
// price) is deducted. It returns the deduction, if any, and the phrase that
// explains the outcome either way.
func (o *order) couponTakeback(sel map[string]bool, price int) (*Deduction, string) {
	c := o.coupon
	if c == nil {
		return nil, "no coupon on this order"
	}
	if by := o.couponTakenBackBy; by != "" {
		return nil, fmt.Sprintf("the coupon's %s discount was already taken back by %s %s", num(c.Discount), recordKind(by), by)
	}
	items, total := o.kept(sel)
	if total >= c.Threshold {
		return nil, fmt.Sprintf("the kept items (%s) still reach the coupon's %s threshold, so its %s discount stays", itemList(items, total), num(c.Threshold), num(c.Discount))
	}
	amount := min(c.Discount, price)
	var phrase, detail string
	if len(items) == 0 {
		phrase = fmt.Sprintf("nothing else is kept, which is below the coupon's %s threshold, so its %s discount is taken back", num(c.Threshold), num(c.Discount))
		detail = fmt.Sprintf("coupon %s (%s): no items are kept, below its NT$%s threshold", c.Code, c.Description, num(c.Threshold))
	} else {
		phrase = fmt.Sprintf("the kept items (%s) are below the coupon's %s threshold, so its %s discount is taken back", itemList(items, total), num(c.Threshold), num(c.Discount))
		detail = fmt.Sprintf("coupon %s (%s): the kept items total NT$%s, below its NT$%s threshold", c.Code, c.Description, num(total), num(c.Threshold))
	}
	if amount < c.Discount {
		phrase += fmt.Sprintf(", up to the price (%s)", num(amount))
	}
	return &Deduction{Kind: "coupon_takeback", Amount: amount, Detail: detail}, phrase
}

func recordKind(id string) string {
	if strings.HasPrefix(id, "rt_") {
		return "return"
	}
	return "refund"
}

// quote computes the refund for cancelling the given pending items.
func (o *order) quote(ids []string) (*RefundQuote, *apiError) {
	items, e := o.selection(ids)
	if e != nil {
		return nil, e
	}
	for _, li := range items {
		if e := o.alreadyRefunded(li); e != nil {
			return nil, e
		}
		if e := o.notCancellable(li); e != nil {
			return nil, e
		}
	}
	q := &RefundQuote{OrderID: o.id, Currency: "TWD", LineItems: []QuotedLineItem{}, CancelLineItemIDs: []string{}, Deductions: []Deduction{},
		PaymentMethod: o.method()}
	for _, li := range items {
		q.LineItems = append(q.LineItems, QuotedLineItem{LineItemID: li.LineItemID, Name: li.Name, Price: worth(li)})
		q.CancelLineItemIDs = append(q.CancelLineItemIDs, li.LineItemID)
	}
	price := o.worth(items)
	q.Amount = price
	parts := []string{priceText(items, price)}
	d, phrase := o.couponTakeback(o.selected(items), price)
	parts = append(parts, phrase)
	if d != nil {
		q.Deductions = append(q.Deductions, *d)
		q.Amount -= d.Amount
	}
	if left := o.refundable(); q.Amount > left {
		q.Amount = left
		parts = append(parts, fmt.Sprintf("capped at the %s still refundable on this order", num(left)))
	}
	q.Explanation = strings.Join(parts, "; ")
	return q, nil
}

// returnFor computes a return of delivered items (without id, label or time).
func (o *order) returnFor(items []*LineItem, kind string) Return {
	rt := Return{OrderID: o.id, Kind: kind, Fees: []Deduction{}}
	for _, li := range items {
		rt.LineItemIDs = append(rt.LineItemIDs, li.LineItemID)
	}
	nth := len(o.returns) + 1
	var parts []string
	if kind == "exchange" {
		parts = append(parts, fmt.Sprintf("exchange: a replacement for %s is sent once the return arrives, and nothing is refunded", names(items)))
		if nth == 1 {
			parts = append(parts, "this is the order's first return, so there is no return fee")
		} else {
			parts = append(parts, fmt.Sprintf("this is the order's %s return, so a %s return fee is charged to %s", ordinal(nth), num(repeatReturnFee), o.method()))
			rt.Fees = append(rt.Fees, Deduction{Kind: "repeat_return", Amount: repeatReturnFee,
				Detail: fmt.Sprintf("%s return on order %s: NT$%d for every return after the first, charged to %s", ordinal(nth), o.id, repeatReturnFee, o.method())})
		}
		rt.Explanation = strings.Join(parts, "; ")
		return rt
	}

	price := o.worth(items)
	sel := o.selected(items)
	parts = append(parts, priceText(items, price))
	d, phrase := o.couponTakeback(sel, price)
	parts = append(parts, phrase)
	if d != nil {
		rt.Fees = append(rt.Fees, *d)
	}

	keptItems, kept := o.kept(sel)
	switch {
	case !o.freeShipping:
		parts = append(parts, "the order paid for its shipping, so none is deducted")
	case o.shippingChargedBy != "":
		parts = append(parts, fmt.Sprintf("shipping was already deducted by return %s", o.shippingChargedBy))
	case kept >= freeShippingMin:
		parts = append(parts, fmt.Sprintf("the kept items (%s) still reach %s, so shipping stays free", itemList(keptItems, kept), num(freeShippingMin)))
	default:
		parts = append(parts, fmt.Sprintf("the kept items (%s) fall below %s on an order that shipped free, so %d shipping is deducted", itemList(keptItems, kept), num(freeShippingMin), shippingFee))
		rt.Fees = append(rt.Fees, Deduction{Kind: "shipping", Amount: shippingFee,
			Detail: fmt.Sprintf("the order shipped free; the kept items total NT$%s, below NT$%s", num(kept), num(freeShippingMin))})
	}

	if nth == 1 {
		parts = append(parts, "this is the order's first return, so there is no return fee")
	} else {
		parts = append(parts, fmt.Sprintf("this is the order's %s return, so %d more is deducted", ordinal(nth), repeatReturnFee))
		rt.Fees = append(rt.Fees, Deduction{Kind: "repeat_return", Amount: repeatReturnFee,
			Detail: fmt.Sprintf("%s return on order %s: NT$%d for every return after the first", ordinal(nth), o.id, repeatReturnFee)})
	}

	rt.RefundAmount = price
	for _, f := range rt.Fees {
		rt.RefundAmount -= f.Amount
	}
	if rt.RefundAmount < 0 {
		rt.RefundAmount = 0
		parts = append(parts, "the deductions exceed the price, so nothing is refunded")
	} else {
		parts = append(parts, "refund "+num(rt.RefundAmount))
	}
	rt.Explanation = strings.Join(parts, "; ")
	return rt
}

// alreadyRefunded is the 409 for an item an earlier refund covered.
func (o *order) alreadyRefunded(li *LineItem) *apiError {
	rf := o.refundOf(li.LineItemID)
	if rf == nil {
		return nil
	}
	e := fail(http.StatusConflict, "already_refunded", "%s was already refunded: NT$%s on %s, refund %s",
		li.Name, num(rf.Amount), rf.CreatedAt.In(taipei).Format("2006-01-02"), rf.RefundID)
	e.body.Refund = &RefundSummary{RefundID: rf.RefundID, Amount: rf.Amount, CreatedAt: rf.CreatedAt}
	return e
}

func (o *order) alreadyReturned(li *LineItem) *apiError {
	id := ""
	if rt := o.returnOf(li.LineItemID); rt != nil {
		id = " (return " + rt.ReturnID + ")"
	}
	return fail(http.StatusConflict, "already_returned", "%s was already returned%s; its refund is part of that return", li.Name, id)
}

// notCancellable is the 409 for an item that is no longer pending.
func (o *order) notCancellable(li *LineItem) *apiError {
	switch li.Status {
	case Pending:
		return nil
	case InFulfilment:
		return fail(http.StatusConflict, "in_fulfilment", "%s is being packed and can no longer be cancelled", li.Name)
	case Shipped:
		return fail(http.StatusConflict, "shipped", "%s has shipped%s and can no longer be cancelled; once it is delivered, use a return instead", li.Name, o.tracking(li))
	case Delivered:
		return fail(http.StatusConflict, "delivered", "%s was delivered%s and can no longer be cancelled; use a return instead", li.Name, deliveredOn(li))
	case Cancelled:
		return fail(http.StatusConflict, "already_cancelled", "%s was already cancelled", li.Name)
	case Returned:
		return o.alreadyReturned(li)
	}
	return fail(http.StatusConflict, li.Status, "%s is %s and cannot be cancelled", li.Name, li.Status)
}

// notReturnable is the 409 for an item that cannot be returned.
func (o *order) notReturnable(li *LineItem) *apiError {
	if e := o.alreadyRefunded(li); e != nil {
		return e
	}
	switch li.Status {
	case Delivered:
		return nil
	case Returned:
		return o.alreadyReturned(li)
	case Pending:
		return fail(http.StatusConflict, "not_delivered", "%s has not shipped yet; only delivered items can be returned, so cancel it instead", li.Name)
	case InFulfilment:
		return fail(http.StatusConflict, "not_delivered", "%s is being packed and has not been delivered; it can be returned once it arrives", li.Name)
	case Shipped:
		return fail(http.StatusConflict, "not_delivered", "%s is on its way%s and has not been delivered; it can be returned once it arrives", li.Name, o.tracking(li))
	case Cancelled:
		return fail(http.StatusConflict, "not_delivered", "%s was cancelled and never shipped; there is nothing to return", li.Name)
	}
	return fail(http.StatusConflict, "not_delivered", "%s is %s, not delivered", li.Name, li.Status)
}

func (o *order) tracking(li *LineItem) string {
	for _, sh := range o.shipments {
		for _, id := range sh.LineItemIDs {
			if id == li.LineItemID && sh.TrackingNumber != nil {
				return fmt.Sprintf(" (%s %s)", sh.Carrier, *sh.TrackingNumber)
			}
		}
	}
	return ""
}

func deliveredOn(li *LineItem) string {
	if li.DeliveredAt == nil {
		return ""
	}
	return " on " + li.DeliveredAt.In(taipei).Format("2006-01-02")
}

// priceText is "price 380" or "prices 900 + 700 = 1,600".
func priceText(items []*LineItem, total int) string {
	if len(items) == 1 {
		return "price " + num(total)
	}
	var ps []string
	for _, li := range items {
		ps = append(ps, num(worth(li)))
	}
	return "prices " + strings.Join(ps, " + ") + " = " + num(total)
}

// itemList is "Bluetooth headphones 1,200", "Wool scarf 900 + Gloves 700 =
// 1,600" or "none".
func itemList(items []*LineItem, total int) string {
	if len(items) == 0 {
		return "none"
	}
	var ps []string
	for _, li := range items {
		name := li.Name
		if li.Quantity > 1 {
			name += fmt.Sprintf(" ×%d", li.Quantity)
		}
		ps = append(ps, name+" "+num(worth(li)))
	}
	if len(items) == 1 {
		return ps[0]
	}
	return strings.Join(ps, " + ") + " = " + num(total)
}

func names(items []*LineItem) string {
	var ns []string
	for _, li := range items {
		ns = append(ns, li.Name)
	}
	if len(ns) <= 2 {
		return strings.Join(ns, " and ")
	}
	return strings.Join(ns[:len(ns)-1], ", ") + " and " + ns[len(ns)-1]
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// num formats whole NT$ with thousands separators: 1,200.
func num(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
