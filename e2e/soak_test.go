package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
	"github.com/tailormcp/tailor/internal/testkit"
)

// rss is a process's resident memory in bytes (Linux).
func rss(t *testing.T, p *os.Process) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Skip("no VmRSS")
	return 0
}

const mib = 1 << 20

// TestSoakQuoteFlood floods a server with quotes, then mixes quotes,
// confirms and reads, over stateless HTTP for a few seconds: the quote
// store stays at its cap (refusing with a clear result past it) and the
// server's memory stays flat.
func TestSoakQuoteFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test")
	}
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			person := &approver{action: "accept"}
			srv := startBackoffice(t, sv, "stateless", rig, person.options(), "--max-quotes", "400", "--quote-ttl", "1s")
			var ok, full, other atomic.Int64
			var sample string
			var mu sync.Mutex
			// Quotes of order 5531 (never carried out here) are counted.
			quote := func() string {
				res, err := srv.Session.CallTool(context.Background(), &mcp.CallToolParams{Name: "quote_refund",
					Arguments: map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}}})
				switch {
				case err != nil:
					other.Add(1)
				case !res.IsError:
					ok.Add(1)
					m, _ := res.StructuredContent.(map[string]any)
					id, _ := m["quote_id"].(string)
					return id
				case strings.Contains(testkit.Text(res), "holds as many open quotes as it may"):
					full.Add(1)
					mu.Lock()
					sample = testkit.Text(res)
					mu.Unlock()
				default:
					other.Add(1)
				}
				return ""
			}
			load := func(d time.Duration, work func(worker int)) {
				var wg sync.WaitGroup
				stop := time.Now().Add(d)
				for w := 0; w < 8; w++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for time.Now().Before(stop) {
							work(w)
						}
					}()
				}
				wg.Wait()
			}

			// Warm up, then flood: quotes only.
			load(500*time.Millisecond, func(int) { quote() })
			base := rss(t, srv.Process)
			peak := base
			sampler := time.NewTicker(250 * time.Millisecond)
			defer sampler.Stop()
			go func() {
				for range sampler.C {
					if r := rss(t, srv.Process); r > atomic.LoadInt64(&peak) {
						atomic.StoreInt64(&peak, r)
					}
				}
			}()
			load(2*time.Second, func(int) { quote() })
			if full.Load() == 0 {
				t.Errorf("the quote store never reached its cap (%d quotes made)", ok.Load())
			}
			// Mixed: quotes, reads, and confirms of fresh quotes of order
			// 5532 (the first refunds it; the backend refuses the later
			// quotes, which is load all the same).
			load(2*time.Second, func(w int) {
				switch w % 3 {
				case 0:
					quote()
				case 1:
					srv.Session.CallTool(context.Background(), &mcp.CallToolParams{Name: "order_status", Arguments: map[string]any{"order_id": "5531"}})
				default:
					res, err := srv.Session.CallTool(context.Background(), &mcp.CallToolParams{Name: "quote_refund",
						Arguments: map[string]any{"order_id": "5532", "line_item_ids": []string{"li_3", "li_4"}}})
					if err == nil && !res.IsError {
						m, _ := res.StructuredContent.(map[string]any)
						srv.Session.CallTool(context.Background(), &mcp.CallToolParams{Name: "refund_items", Arguments: map[string]any{"quote_id": m["quote_id"]}})
					}
				}
			})
			sampler.Stop()
			end := rss(t, srv.Process)
			growth := max(atomic.LoadInt64(&peak), end) - base
			t.Logf("quotes made %d, refused at the cap %d, other %d; RSS %.1f MiB after warm-up, peak %.1f, end %.1f",
				ok.Load(), full.Load(), other.Load(), float64(base)/mib, float64(atomic.LoadInt64(&peak))/mib, float64(end)/mib)
			if growth > 24*mib {
				t.Errorf("resident memory grew by %.1f MiB under the flood", float64(growth)/mib)
			}
			mu.Lock()
			contains(t, sample, "no quote was stored", "Nothing was changed")
			mu.Unlock()
			if n := other.Load(); n > 0 {
				t.Errorf("%d quote calls failed otherwise", n)
			}
			if len(rig.shop.Refunds("5532")) != 1 {
				t.Errorf("refunds of 5532: %+v", rig.shop.Refunds("5532"))
			}
		})
	}
}

// TestSoakSessions opens sessions and leaves them idle: they expire, and
// a second round of as many sessions does not grow the server's memory.
func TestSoakSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test")
	}
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			bin, pre := sv.command(t)
			srv := testkit.StartHTTPClient(t, bin, []string{"BACKOFFICE_BASE_URL=" + rig.url}, asCustomer(backend.Wang), append(pre, "--session-timeout", "1s")...)
			open := func(n int) []string {
				var ids []string
				for i := 0; i < n; i++ {
					req, _ := http.NewRequest(http.MethodPost, srv.Endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"idle","version":"1"}}}`))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					resp.Body.Close()
					ids = append(ids, resp.Header.Get("Mcp-Session-Id"))
				}
				return ids
			}
			first := open(300)
			time.Sleep(1500 * time.Millisecond)
			afterFirst := rss(t, srv.Process)
			open(300)
			time.Sleep(1500 * time.Millisecond)
			afterSecond := rss(t, srv.Process)
			t.Logf("RSS after the first 300 sessions expired %.1f MiB, after the second %.1f", float64(afterFirst)/mib, float64(afterSecond)/mib)
			if afterSecond-afterFirst > 8*mib {
				t.Errorf("a second round of sessions grew memory by %.1f MiB", float64(afterSecond-afterFirst)/mib)
			}
			req, _ := http.NewRequest(http.MethodPost, srv.Endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", first[0])
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			eq(t, "an expired session", resp.StatusCode, http.StatusNotFound)
		})
	}
}
