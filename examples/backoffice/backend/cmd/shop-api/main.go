// Command shop-api serves the back-office example's API (the backend
// package: seed data and the shop's rules, in memory) on a local address,
// for running the example's server and scenario files by hand:
//
//	go run ./examples/backoffice/backend/cmd/shop-api --addr 127.0.0.1:8080
//	tailor test examples/backoffice/scenarios.yaml --spec examples/backoffice/openapi.yaml \
//	  --overlay examples/backoffice/overlay.yaml --backend http://127.0.0.1:8080
//
// Its clock is fixed at the story's date, so that delivery dates and
// return windows read as they do in the README. Restart it for fresh data.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	now := flag.String("now", "2026-10-05T14:00:00Z", "the shop's clock (RFC 3339), fixed")
	flag.Parse()
	at, err := time.Parse(time.RFC3339, *now)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shop-api: --now:", err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shop-api:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "shop-api: the back-office example's API on http://%s\n", ln.Addr())
	shop := backend.New(func() time.Time { return at })
	if err := http.Serve(ln, shop.Handler()); err != nil {
		fmt.Fprintln(os.Stderr, "shop-api:", err)
		os.Exit(1)
	}
}
