// Command tracker-api serves the tracker example's API on loopback (fresh
// data on every start), for the demo and `tailor test`.
package main

import (
	"flag"
	"log"
	"net/http"

	"github.com/tailormcp/tailor/examples/tracker/backend"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "address to listen on")
	flag.Parse()
	log.Printf("tracker API on http://%s (bearer token %s)", *addr, backend.Token)
	log.Fatal(http.ListenAndServe(*addr, backend.New().Handler()))
}
