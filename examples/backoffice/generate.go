// Package backoffice is tailor's main example: a shop's back-office API
// (openapi.yaml), the overlay that turns it into tools designed for a
// customer-service agent (overlay.yaml), the server tailor generates from
// both (mcpserver/), an in-memory backend with the shop's refund rules
// (backend/), and a demo that replays the story of order 5531 (demo/).
//
// The story: order 5531 has Bluetooth headphones (NT$1,200, delivered) and
// a headphone case (NT$380, not shipped), with a coupon "NT$150 off orders
// of NT$1,500+"; the customer paid NT$1,430 and wants to cancel the case.
// The shop takes the coupon back when the kept items fall below its
// threshold, so the right refund is 380 − 150 = NT$230. Auto-converted
// tools ask the model for an amount; these tools let the backend compute it
// (quote_refund) and carry out exactly the quote (refund_items).
package backoffice

//go:generate go run ../../cmd/tailor generate --spec openapi.yaml --overlay overlay.yaml --out mcpserver --package mcpserver --main --omit-version -q
