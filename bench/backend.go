package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// backendMarker is in every backend answer, so the benchmark can tell a
// tool result that carries the backend's answer from an error.
const backendMarker = "tailorbench-backend"

// backendBody is what the loopback backend answers to every request: a
// small JSON object, like a resource read by id.
const backendBody = `{"id":"bench_1","object":"bench","name":"` + backendMarker + `","status":"available","created":1700000000}`

// backend is the API behind the generated servers: a loopback HTTP server
// that answers every request at once with backendBody.
type backend struct {
	srv  *http.Server
	ln   net.Listener
	URL  string
	hits atomic.Int64
}

func startBackend() (*backend, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &backend{ln: ln, URL: "http://" + ln.Addr().String()}
	b.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			b.hits.Add(1)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, backendBody)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go b.srv.Serve(ln)
	return b, nil
}

func (b *backend) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	b.srv.Shutdown(ctx)
}

// direct makes the HTTP request a tool call makes, straight to the backend,
// on a keep-alive connection like the servers' own clients.
type direct struct {
	client *http.Client
	req    func() *http.Request
}

func newDirect(b *backend, s Spec) *direct {
	tr := &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute}
	return &direct{
		client: &http.Client{Transport: tr, Timeout: 10 * time.Second},
		req: func() *http.Request {
			r, _ := http.NewRequest(s.Method, b.URL+s.BackendPath, nil)
			r.Header.Set("Accept", "application/json")
			for k, v := range s.Header {
				r.Header.Set(k, v)
			}
			return r
		},
	}
}

// do makes the request and reads the whole answer.
func (d *direct) do() (time.Duration, error) {
	start := time.Now()
	resp, err := d.client.Do(d.req())
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	el := time.Since(start)
	if err == nil && resp.StatusCode != 200 {
		err = fmt.Errorf("direct request: HTTP %d", resp.StatusCode)
	}
	return el, err
}

func (d *direct) close() { d.client.CloseIdleConnections() }
