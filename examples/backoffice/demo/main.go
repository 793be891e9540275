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
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
)

func main() {
	server := flag.String("server", "bin/backoffice", "the generated server binary")
	flag.Parse()
	if err := run(*server, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

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

	cmd := exec.Command(server)
	// Over stdio the caller's identity comes from the environment; over HTTP
	// it would come from the X-Customer-Id header or a verified token.
	cmd.Env = append(os.Environ(), "BACKOFFICE_BASE_URL="+base, "BACKOFFICE_CUSTOMER_ID="+backend.Wang)
	cmd.Stderr = io.Discard // the audit log and other logs; see them with the binary alone
	client := mcp.NewClient(&mcp.Implementation{Name: "tailor-demo", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Fprintf(out, "approval: the person is asked %q and accepts\n", req.Params.Message)
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return fmt.Errorf("starting %s: %w", server, err)
	}
	defer sess.Close()
	fmt.Fprintf(out, "server:  %s over stdio, signed in as customer %s\n\n", server, backend.Wang)

	tools, err := sess.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "== tools/list: what the model is offered ==")
	for _, t := range tools.Tools {
		fmt.Fprintf(out, "- %s(%s)\n", t.Name, args(t))
	}

	call := func(tool string, a map[string]any) (*mcp.CallToolResult, error) {
		b, _ := json.Marshal(a)
		fmt.Fprintf(out, "\n== tools/call %s %s ==\n", tool, b)
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: a})
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(out, "isError: %v\n", res.IsError)
		for i, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text := tc.Text
				if i > 0 && len(text) > 300 {
					text = text[:300] + "…"
				}
				fmt.Fprintf(out, "text:    %s\n", text)
			}
		}
		return res, nil
	}
	if _, err := call("get_order", map[string]any{"order_id": "5531"}); err != nil {
		return err
	}
	res, err := call("quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}})
	if err != nil {
		return err
	}
	sc, _ := res.StructuredContent.(map[string]any)
	quoteID, _ := sc["quote_id"].(string)
	if quoteID == "" {
		return fmt.Errorf("quote_refund returned no quote_id")
	}
	if _, err := call("refund_items", map[string]any{"quote_id": quoteID}); err != nil {
		return err
	}
	if _, err := call("refund_items", map[string]any{"quote_id": quoteID}); err != nil {
		return err
	}
	if _, err := call("quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []string{"li_1"}}); err != nil {
		return err
	}

	fmt.Fprintln(out, "\n== the backend afterwards ==")
	for _, r := range shop.Refunds("5531") {
		fmt.Fprintf(out, "refund %s: NT$%d for %s\n", r.RefundID, r.Amount, strings.Join(r.LineItemIDs, ", "))
	}
	fmt.Fprintf(out, "li_2 (%s): %s\n", shop.LineItem("5531", "li_2").Name, shop.LineItem("5531", "li_2").Status)
	return nil
}

// args lists a tool's arguments, required ones marked with *.
func args(t *mcp.Tool) string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	b, _ := json.Marshal(t.InputSchema)
	json.Unmarshal(b, &s)
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	var names []string
	for n := range s.Properties {
		if req[n] {
			n += "*"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
