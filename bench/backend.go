package bench

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"
)

// backendMarker is in every backend answer, so the benchmark can tell a
// tool result that carries the backend's answer from an error.
const backendMarker = "tailorbench-backend"

// backendBody is what the loopback backend answers to every request: a
// small JSON object, like a resource read by id.
const backendBody = `{"id":"bench_1","object":"bench","name":"` + backendMarker + `","status":"available","created":1700000000}`

// backendMain is the API behind the generated servers: a loopback HTTP
// server that answers every request at once with backendBody. It runs as a
// process of its own, so that the servers' requests and the benchmark's
// direct ones both cross a process boundary to reach it; it prints its URL,
// and exits when its stdin closes.
const backendMain = `package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, ` + "`" + backendBody + "`" + `)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go srv.Serve(ln)
	fmt.Println("http://" + ln.Addr().String())
	io.Copy(io.Discard, os.Stdin)
}
`

// backend is the running backend process.
type backend struct {
	URL   string
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// startBackend runs the backend program bin and reads its URL.
func startBackend(bin string) (*backend, error) {
	cmd := exec.Command(bin)
	cmd.SysProcAttr = procAttr()
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("backend: %v", err)
	}
	return &backend{URL: strings.TrimSpace(line), cmd: cmd, stdin: stdin}, nil
}

func (b *backend) Close() {
	b.stdin.Close()
	done := make(chan struct{})
	go func() { b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
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
