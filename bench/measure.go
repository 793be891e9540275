package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// genRun is one generator run: wall time, peak RSS, CPU time.
type genRun struct {
	wall   time.Duration
	rssKiB int64
	cpu    float64
}

// timeCommand runs argv to completion (bounded by timeout) through the
// rusage helper, with env added to the environment, and returns what it
// measured.
func (b *runner) timeCommand(ctx context.Context, argv []string, dir string, env []string, timeout time.Duration) (genRun, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res := filepath.Join(b.work, "rusage.out")
	os.Remove(res)
	cmd := exec.CommandContext(ctx, b.tailor.rusage, append([]string{res}, argv...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = procAttr()
	var out limitedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return genRun{}, fmt.Errorf("%v: %v\n%s", argv, err, out.String())
	}
	data, err := os.ReadFile(res)
	if err != nil {
		return genRun{}, err
	}
	var ns, rss int64
	var cpu float64
	if _, err := fmt.Sscan(string(data), &ns, &rss, &cpu); err != nil {
		return genRun{}, fmt.Errorf("rusage helper: %q: %v", data, err)
	}
	return genRun{wall: time.Duration(ns), rssKiB: rss, cpu: cpu}, nil
}

// startProcess starts argv in dir with env added and its stderr going to
// errPath; ctx's end kills it.
func startProcess(ctx context.Context, argv []string, dir string, env []string, errPath string) (*exec.Cmd, *os.File, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = procAttr()
	cmd.WaitDelay = 2 * time.Second
	errf, err := os.Create(errPath)
	if err != nil {
		return nil, nil, err
	}
	cmd.Stderr = errf
	if err := cmd.Start(); err != nil {
		errf.Close()
		return nil, nil, err
	}
	return cmd, errf, nil
}

// limitedBuffer keeps the last 8 KiB written to it.
type limitedBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b = append(l.b, p...)
	if len(l.b) > 8<<10 {
		l.b = l.b[len(l.b)-8<<10:]
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}

// generator is one way of generating a spec's server, timed.
type generator struct {
	label string
	argv  func(out string) []string
	cache cacheUse
}

// cacheUse is what tailor's cache folder (TAILOR_CACHE) holds when a
// generator runs.
type cacheUse int

const (
	noCache   cacheUse = iota // not tailor: TAILOR_CACHE left as it is
	coldCache                 // a new, empty directory each run, as on a fresh CI machine
)

// measureGeneration runs every generator on s, interleaved (A B A B …),
// each time into a fresh directory, after one untimed warm-up run each
// (which brings the spec and the generator into the page cache).
func (b *runner) measureGeneration(ctx context.Context, s Spec, gens []generator) (map[string][]genRun, error) {
	return b.measureGenerationRuns(ctx, s, gens, b.cfg.Runs)
}

// measureGenerationRuns is measureGeneration with runs timed runs.
func (b *runner) measureGenerationRuns(ctx context.Context, s Spec, gens []generator, runs int) (map[string][]genRun, error) {
	res := map[string][]genRun{}
	dir := filepath.Join(b.work, "gen")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for i := -1; i < runs; i++ {
		for _, g := range gens {
			out := filepath.Join(dir, fmt.Sprintf("%s-%s-%d", sanitize(g.label), s.Name, i+1))
			cold := out + "-cache"
			os.RemoveAll(out)
			os.RemoveAll(cold)
			var env []string
			switch g.cache {
			case coldCache:
				env = []string{"TAILOR_CACHE=" + cold}
			}
			r, err := b.timeCommand(ctx, g.argv(out), dir, env, 10*time.Minute)
			os.RemoveAll(out)
			os.RemoveAll(cold)
			if err != nil {
				return nil, fmt.Errorf("%s on %s: %w", g.label, s.Name, err)
			}
			if i >= 0 {
				res[g.label] = append(res[g.label], r)
			}
		}
	}
	return res, nil
}

func sanitize(s string) string {
	out := []byte(s)
	for i, c := range out {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			out[i] = '-'
		}
	}
	return string(out)
}

// server is how to run one server under test over stdio.
type server struct {
	label string
	argv  []string
	dir   string
	env   []string
}

// coldRun is one cold start: spawn → initialize answered → tools/list
// answered, and the process's memory once idle after that.
type coldRun struct {
	initialize, list time.Duration
	rssKiB, hwmKiB   int64
	tools            []json.RawMessage
	raw              []byte // the tools/list result(s) as sent
	listBytes        int
}

// settle is how long a server sits idle after tools/list before its
// resident memory is read.
const settle = 300 * time.Millisecond

func (b *runner) coldStart(ctx context.Context, sv server, keepTools bool) (coldRun, error) {
	var r coldRun
	errPath := filepath.Join(b.work, "logs", sanitize(sv.label)+"-cold.stderr")
	s, err := startStdio(ctx, sv.argv, sv.dir, sv.env, errPath, time.Minute)
	if err != nil {
		return r, err
	}
	defer s.Close()
	at, err := s.initialize()
	if err != nil {
		return r, fmt.Errorf("%s: %w (stderr: %s)", sv.label, err, readTail(errPath))
	}
	r.initialize = at.Sub(s.start)
	tools, at, raw, err := s.listTools()
	if err != nil {
		return r, fmt.Errorf("%s: %w (stderr: %s)", sv.label, err, readTail(errPath))
	}
	r.list = at.Sub(s.start)
	r.listBytes = len(raw) - strings.Count(string(raw), "\n")
	if keepTools {
		r.tools, r.raw = tools, raw
	}
	select {
	case <-ctx.Done():
		return r, ctx.Err()
	case <-time.After(settle):
	}
	r.rssKiB, r.hwmKiB, _ = rssKiB(s.cmd.Process.Pid)
	return r, nil
}

func readTail(path string) string {
	b, _ := os.ReadFile(path)
	return tail(string(b), 2000)
}

// measureColdStarts starts each server Runs times, interleaved, after one
// untimed warm-up start each.
func (b *runner) measureColdStarts(ctx context.Context, servers []server) (map[string][]coldRun, error) {
	res := map[string][]coldRun{}
	for i := -1; i < b.cfg.Runs; i++ {
		for _, sv := range servers {
			r, err := b.coldStart(ctx, sv, i == 0)
			if err != nil {
				return nil, err
			}
			if i >= 0 {
				res[sv.label] = append(res[sv.label], r)
			}
		}
	}
	return res, nil
}

// callSeries is one round of timed tools/call (and direct requests).
type callSeries struct {
	calls map[string][]time.Duration // label → each call's round trip
}

// callTarget is a server over stdio and the tool to call on it.
type callTarget struct {
	server
	tool string
	args string // default: the spec's
}

// measureCalls starts every target over stdio, checks one call of each
// returns the backend's answer, warms up, then makes Rounds × Calls calls,
// interleaved one by one (A B direct A B direct …), each a round trip from
// writing the request to reading the last byte of the answer, each after
// callGap of quiet. Returns the rounds and each server's memory after the
// calls.
//
// Why so: an agent calls a tool after seconds of thinking, on a process
// that has been idle, not in a hot loop. Back-to-back blocks of one
// server's calls made its round trips, and above all the direct request
// (a hot keep-alive loop: 30 µs instead of 110), unrealistically cheap;
// calls one by one without the gap let one server's background work
// (Node's GC and JIT, Go's GC) land on the next server's call, doubling
// the p99 of both.
func (b *runner) measureCalls(ctx context.Context, s Spec, targets []callTarget) ([]callSeries, map[string][2]int64, error) {
	type live struct {
		callTarget
		s      *stdioServer
		params string
	}
	var lives []*live
	defer func() {
		for _, l := range lives {
			l.s.Close()
		}
	}()
	for _, t := range targets {
		errPath := filepath.Join(b.work, "logs", sanitize(t.label)+"-"+s.Name+"-calls.stderr")
		srv, err := startStdio(ctx, t.argv, t.dir, t.env, errPath, 30*time.Minute)
		if err != nil {
			return nil, nil, err
		}
		args := t.args
		if args == "" {
			args = s.Args
		}
		l := &live{callTarget: t, s: srv, params: `{"name":"` + t.tool + `","arguments":` + args + `}`}
		lives = append(lives, l)
		if _, err := srv.initialize(); err != nil {
			return nil, nil, fmt.Errorf("%s: %w (stderr: %s)", t.label, err, readTail(errPath))
		}
		res, _, _, err := srv.request("tools/call", l.params)
		if err == nil {
			err = checkCall(res)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s on %s, tool %s: %w (stderr: %s)", t.label, s.Name, t.tool, err, readTail(errPath))
		}
	}
	d := newDirect(b.backend, s)
	defer d.close()
	one := func(l *live) (time.Duration, error) {
		start := time.Now()
		res, at, _, err := l.s.request("tools/call", l.params)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", l.label, err)
		}
		el := at.Sub(start)
		if err := checkCall(res); err != nil {
			return 0, fmt.Errorf("%s: %w", l.label, err)
		}
		return el, nil
	}
	var rounds []callSeries
	for round := -1; round < b.cfg.Rounds; round++ {
		n := b.cfg.Calls
		if round < 0 {
			n = b.cfg.Calls / 5 // warm-up
		}
		cs := callSeries{calls: map[string][]time.Duration{}}
		for i := 0; i < n; i++ {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			for _, l := range lives {
				time.Sleep(callGap)
				el, err := one(l)
				if err != nil {
					return nil, nil, err
				}
				cs.calls[l.label] = append(cs.calls[l.label], el)
			}
			time.Sleep(callGap)
			el, err := d.do()
			if err != nil {
				return nil, nil, err
			}
			cs.calls[labelDirect] = append(cs.calls[labelDirect], el)
		}
		if round >= 0 {
			rounds = append(rounds, cs)
		}
	}
	mem := map[string][2]int64{}
	for _, l := range lives {
		rss, hwm, _ := rssKiB(l.s.cmd.Process.Pid)
		mem[l.label] = [2]int64{rss, hwm}
	}
	return rounds, mem, nil
}

const labelDirect = "direct HTTP request"

// callGap is the quiet before each call.
const callGap = time.Millisecond

// httpTarget is how to run one server over streamable HTTP.
type httpTarget struct {
	label string
	tool  string
	// argvFor and env give the command and the environment variables for
	// a server listening on 127.0.0.1:port.
	argvFor func(port int) []string
	dir     string
	env     func(port int) []string
	// sessions32 also measures 32 sessions, one per client, besides 32
	// clients on one session.
	sessions32 bool
}

// httpRun is one sustained-load run.
type httpRun struct {
	ok, failed int64
	perSecond  float64
	firstErr   error
}

// httpResult is one server's HTTP figures in one round.
type httpResult struct {
	shared httpRun // 32 clients, one session
	many   httpRun // 32 clients, a session each (when the server allows it)
	// secondSession is nil when a second session could be opened beside a
	// first, or why not.
	secondSession error
	rssKiB        int64
}

// measureHTTP runs each target over streamable HTTP Rounds times,
// interleaved, loading it with Clients concurrent clients calling the tool.
func (b *runner) measureHTTP(ctx context.Context, s Spec, targets []httpTarget) (map[string][]httpResult, error) {
	res := map[string][]httpResult{}
	for round := 0; round < b.cfg.Rounds; round++ {
		for _, t := range targets {
			r, err := b.httpRound(ctx, s, t)
			if err != nil {
				return nil, fmt.Errorf("%s over HTTP on %s: %w", t.label, s.Name, err)
			}
			res[t.label] = append(res[t.label], r)
		}
	}
	return res, nil
}

// liveHTTP is a server running over streamable HTTP.
type liveHTTP struct {
	cmd     *exec.Cmd
	url     string
	client  *http.Client
	errPath string
	stop    func()
}

// startHTTP starts t on a free loopback port and waits until it listens.
func (b *runner) startHTTP(ctx context.Context, s Spec, t httpTarget, what string) (*liveHTTP, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	errPath := filepath.Join(b.work, "logs", sanitize(t.label)+"-"+s.Name+"-"+what+".stderr")
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	cmd, errf, err := startProcess(ctx, t.argvFor(port), t.dir, t.env(port), errPath)
	if err != nil {
		cancel()
		return nil, err
	}
	tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute, DisableCompression: true}
	l := &liveHTTP{
		cmd: cmd, url: "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp", errPath: errPath,
		client: &http.Client{Transport: tr, Timeout: 30 * time.Second},
		stop: func() {
			tr.CloseIdleConnections()
			cancel()
			cmd.Wait()
			errf.Close()
		},
	}
	if err := waitListening(ctx, port, time.Minute); err != nil {
		l.stop()
		return nil, fmt.Errorf("%w (stderr: %s)", err, readTail(errPath))
	}
	return l, nil
}

// call makes one tools/call on h and checks the answer.
func call(ctx context.Context, h *httpSession, id int64, params string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, _, err := h.post(ctx, id, "tools/call", params)
	if err == nil {
		err = checkCall(res)
	}
	return err
}

// probeHTTP checks that t serves over streamable HTTP: a session, a call,
// and, a moment later, another call.
func (b *runner) probeHTTP(ctx context.Context, s Spec, t httpTarget) error {
	l, err := b.startHTTP(ctx, s, t, "probe")
	if err != nil {
		return err
	}
	defer l.stop()
	h, err := openHTTPSession(ctx, l.client, l.url)
	if err == nil {
		err = call(ctx, h, 2, t.params(s), 10*time.Second)
	}
	if err == nil {
		time.Sleep(300 * time.Millisecond)
		err = call(ctx, h, 3, t.params(s), 10*time.Second)
	}
	if err != nil {
		return fmt.Errorf("%w (stderr: %s)", err, readTail(l.errPath))
	}
	return nil
}

func (t httpTarget) params(s Spec) string {
	return `{"name":"` + t.tool + `","arguments":` + s.Args + `}`
}

func (b *runner) httpRound(ctx context.Context, s Spec, t httpTarget) (httpResult, error) {
	var r httpResult
	l, err := b.startHTTP(ctx, s, t, "http")
	if err != nil {
		return r, err
	}
	defer l.stop()
	params := t.params(s)
	first, err := openHTTPSession(ctx, l.client, l.url)
	if err == nil {
		err = call(ctx, first, 2, params, 10*time.Second)
	}
	if err != nil {
		return r, fmt.Errorf("%w (stderr: %s)", err, readTail(l.errPath))
	}
	r.shared = b.load(ctx, []*httpSession{first}, params)
	if r.shared.firstErr != nil && r.shared.ok == 0 {
		return r, fmt.Errorf("load: %w (stderr: %s)", r.shared.firstErr, readTail(l.errPath))
	}
	// Can a second client have a session while the first has one, and do
	// both still get their answers?
	second, err := openHTTPSession(ctx, l.client, l.url)
	if err == nil {
		err = call(ctx, first, 3, params, 5*time.Second)
		if err != nil {
			err = fmt.Errorf("after a second session opened, a call on the first: %w", err)
		}
	}
	if err == nil {
		err = call(ctx, second, 4, params, 5*time.Second)
	}
	if err != nil {
		r.secondSession = err
	} else if t.sessions32 {
		sessions := []*httpSession{first, second}
		for len(sessions) < b.cfg.Clients {
			h, err := openHTTPSession(ctx, l.client, l.url)
			if err != nil {
				return r, fmt.Errorf("session %d: %w", len(sessions)+1, err)
			}
			sessions = append(sessions, h)
		}
		r.many = b.load(ctx, sessions, params)
	}
	r.rssKiB, _, _ = rssKiB(l.cmd.Process.Pid)
	return r, nil
}

// load runs Clients workers calling the tool as fast as answers come, for
// a warm-up and then the measured duration; worker i uses session i mod n.
func (b *runner) load(ctx context.Context, sessions []*httpSession, params string) httpRun {
	return b.run(ctx, func(w int, n int64) error {
		h := sessions[w%len(sessions)]
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		res, _, err := h.post(rctx, int64(w+1)*1_000_000_000+n, "tools/call", params)
		if err == nil {
			err = checkCall(res)
		}
		return err
	})
}

// run runs Clients workers, each doing op (worker w's n-th time, from 1)
// as fast as it returns, for a warm-up and then the measured duration,
// and counts what ended in the measured duration.
func (b *runner) run(ctx context.Context, op func(w int, n int64) error) httpRun {
	var ok, failed atomic.Int64
	var firstErr atomic.Pointer[error]
	warmEnd := time.Now().Add(b.cfg.Warmup)
	end := warmEnd.Add(b.cfg.Duration)
	var wg sync.WaitGroup
	for w := 0; w < b.cfg.Clients; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for n := int64(1); ; n++ {
				if time.Now().After(end) || ctx.Err() != nil {
					return
				}
				err := op(w, n)
				done := time.Now()
				if done.Before(warmEnd) || done.After(end) {
					continue
				}
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, &err)
					continue
				}
				ok.Add(1)
			}
		}(w)
	}
	wg.Wait()
	r := httpRun{ok: ok.Load(), failed: failed.Load()}
	r.perSecond = float64(r.ok) / b.cfg.Duration.Seconds()
	if p := firstErr.Load(); p != nil {
		r.firstErr = *p
	}
	return r
}
