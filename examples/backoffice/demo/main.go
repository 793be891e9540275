// Command demo replays the back-office story end to end: the shop's
// backend on loopback, the generated MCP server (a built binary, over stdio,
// for customer Wang) in front of it, and a go-sdk client calling the tools a
// model would call, printing what the model reads.
//
//	make demo
//
// builds everything and runs it; by hand:
//
//	go generate ./examples/backoffice
//	go build -o bin/backoffice ./examples/backoffice/mcpserver/cmd/backoffice
//	go run ./examples/backoffice/demo --server bin/backoffice
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
	"github.com/tailormcp/tailor/examples/internal/demo"
)

func main() { demo.Main("bin/backoffice", run) }

func run(server string, out io.Writer) error {
	if _, err := os.Stat(server); err != nil {
		return fmt.Errorf("no server binary at %s: run `make demo`, or `go build -o %s ./examples/backoffice/mcpserver/cmd/backoffice`", server, server)
	}
	shop := backend.New(func() time.Time { return time.Date(2026, 10, 5, 14, 0, 0, 0, time.UTC) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go http.Serve(ln, shop.Handler())
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(out, "backend: the shop's back-office API on %s\n", base)

	// Over stdio the caller's identity comes from the environment; over HTTP
	// it would come from the X-Customer-Id header or a verified token.
	s, err := demo.Start(out, server, "BACKOFFICE_BASE_URL="+base, "BACKOFFICE_CUSTOMER_ID="+backend.Wang)
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Fprintf(out, "server:  %s over stdio, signed in as customer %s\n\n", server, backend.Wang)
	if err := s.ListTools(false); err != nil {
		return err
	}
	if _, err := s.Call("get_order", map[string]any{"order_id": "5531"}); err != nil {
		return err
	}
	res, err := s.Call("quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}})
	if err != nil {
		return err
	}
	sc, _ := res.StructuredContent.(map[string]any)
	quoteID, _ := sc["quote_id"].(string)
	if quoteID == "" {
		return fmt.Errorf("quote_refund returned no quote_id")
	}
	if _, err := s.Call("refund_items", map[string]any{"quote_id": quoteID}); err != nil {
		return err
	}
	if _, err := s.Call("refund_items", map[string]any{"quote_id": quoteID}); err != nil {
		return err
	}
	if _, err := s.Call("quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []string{"li_1"}}); err != nil {
		return err
	}

	fmt.Fprintln(out, "\n== the backend afterwards ==")
	for _, r := range shop.Refunds("5531") {
		fmt.Fprintf(out, "refund %s: NT$%d for %s\n", r.RefundID, r.Amount, strings.Join(r.LineItemIDs, ", "))
	}
	fmt.Fprintf(out, "li_2 (%s): %s\n", shop.LineItem("5531", "li_2").Name, shop.LineItem("5531", "li_2").Status)
	return nil
}
