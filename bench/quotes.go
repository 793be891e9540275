package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// The quote store's cost over streamable HTTP: quote + confirm pairs per
// second, N clients on one session, with quotes in a Redis (a local
// redis-server the benchmark starts, as replicas would share one) beside
// the default in-process store. A small spec and overlay of their own
// (quoteSpec, quoteOverlay): the quote tool reads a price, the confirm
// tool carries it out with one POST; the loopback backend answers both.

const quoteSpec = `openapi: 3.0.3
info: {title: Bench quotes, version: "1"}
servers: [{url: "http://localhost"}]
paths:
  /items/{item_id}/price:
    get:
      operationId: priceItem
      parameters:
        - {name: item_id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: the price
          content: {application/json: {schema: {type: object}}}
  /items/{item_id}/claims:
    post:
      operationId: claimItem
      parameters:
        - {name: item_id, in: path, required: true, schema: {type: string}}
        - {name: Idempotency-Key, in: header, schema: {type: string}}
      responses:
        "201":
          description: claimed
          content: {application/json: {schema: {type: object}}}
`

const quoteOverlay = `tailor: 1
tools:
  quote_item:
    operation: priceItem
    quote: {ttl: 10m}
    description: Prices an item; changes nothing and returns a quote_id for claim_item.
  claim_item:
    confirms: quote_item
    description: Carries out a quote of quote_item.
    steps:
      - name: claim
        operation: claimItem
        args:
          item_id: "{{.quote.args.item_id}}"
          Idempotency-Key: "{{.quote.id}}"
`

const (
	labelQuotesRedis  = "tailor, Redis quote store"
	labelQuotesMemory = "memory store"
)

// measureQuotes generates and builds the quote server, then runs rounds of
// pair load on the memory store and on Redis, alternately.
func (b *runner) measureQuotes(ctx context.Context) error {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		b.report.note("The Redis quote store was not measured: redis-server is not installed (apt-get install redis-server).")
		return nil
	}
	dir := filepath.Join(b.tailor.mod, "benchquotes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	spec, overlay := filepath.Join(dir, "openapi.yaml"), filepath.Join(dir, "overlay.yaml")
	if err := os.WriteFile(spec, []byte(quoteSpec), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(overlay, []byte(quoteOverlay), 0o644); err != nil {
		return err
	}
	b.logf("quote store: generating and building the quote server")
	if _, err := run(ctx, b.tailor.mod, []string{"TAILOR_CACHE=off"}, b.tailor.cli, "generate", "--spec", spec, "--overlay", overlay,
		"--out", dir, "--package", "benchquotes", "--name", "benchquotes", "--main", "--import-path", modPath+"/benchquotes", "-q"); err != nil {
		return err
	}
	bin := filepath.Join(b.work, "bin", "benchquotes")
	if _, err := run(ctx, b.tailor.mod, goEnv, "go", "build", "-o", bin, "./benchquotes/cmd/benchquotes"); err != nil {
		return err
	}
	b.settle(bin)
	redisURL, stopRedis, err := b.startRedis(ctx, redisBin)
	if err != nil {
		return err
	}
	defer stopRedis()

	res := map[string][]httpRun{}
	for round := 0; round < b.cfg.Rounds; round++ {
		for _, target := range []struct {
			label string
			args  []string
		}{{labelQuotesMemory, nil}, {labelQuotesRedis, []string{"--quote-store", redisURL, "--quote-store-prefix", fmt.Sprint("bench", round)}}} {
			b.logf("quote store: %s, %d clients, %s", target.label, b.cfg.Clients, b.cfg.Duration)
			r, err := b.quoteRound(ctx, bin, target.label, target.args)
			if err != nil {
				return fmt.Errorf("quote pairs, %s: %w", target.label, err)
			}
			res[target.label] = append(res[target.label], r)
		}
	}
	get := func(label string) Sample {
		var out Sample
		for _, r := range res[label] {
			out = append(out, r.perSecond)
		}
		return out
	}
	b.report.info(Row{Figure: fmt.Sprintf("quote + confirm pairs per second, streamable HTTP, %d concurrent clients: Redis quote store (tailor column) beside the memory store", b.cfg.Clients),
		Spec: "benchquotes", Unit: "pairs/s", Tailor: get(labelQuotesRedis), Other: get(labelQuotesMemory), OtherLabel: labelQuotesMemory})
	for _, label := range []string{labelQuotesMemory, labelQuotesRedis} {
		for _, r := range res[label] {
			if r.failed > 0 {
				b.report.note(fmt.Sprintf("quote pairs, %s: %d of %d pairs failed (not counted); the first: %v", label, r.failed, r.failed+r.ok, r.firstErr))
				break
			}
		}
	}
	return nil
}

// startRedis runs a redis-server on a free loopback port, without
// persistence, until stop.
func (b *runner) startRedis(ctx context.Context, bin string) (url string, stop func(), err error) {
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	cmd, errf, err := startProcess(ctx, []string{bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", b.work},
		b.work, nil, filepath.Join(b.work, "logs", "redis-server.stderr"))
	if err != nil {
		cancel()
		return "", nil, err
	}
	stop = func() { cancel(); cmd.Wait(); errf.Close() }
	if err := waitListening(ctx, port, 20*time.Second); err != nil {
		stop()
		return "", nil, err
	}
	return fmt.Sprintf("redis://127.0.0.1:%d/0", port), stop, nil
}

// quoteRound starts the quote server with args and runs Clients workers,
// each making quote + confirm pairs on one shared session, for a warm-up
// and then the measured duration.
func (b *runner) quoteRound(ctx context.Context, bin, label string, args []string) (httpRun, error) {
	var r httpRun
	t := httpTarget{label: label, dir: b.work,
		argvFor: func(port int) []string {
			return append([]string{bin, "--http", fmt.Sprintf("127.0.0.1:%d", port)}, args...)
		},
		env: func(int) []string { return []string{"BENCHQUOTES_BASE_URL=" + b.backend.URL} },
	}
	l, err := b.startHTTP(ctx, Spec{Name: "benchquotes"}, t, "quotes")
	if err != nil {
		return r, err
	}
	defer l.stop()
	h, err := openHTTPSession(ctx, l.client, l.url)
	if err != nil {
		return r, fmt.Errorf("%w (stderr: %s)", err, readTail(l.errPath))
	}
	if err := pair(ctx, h, 2); err != nil {
		return r, fmt.Errorf("%w (stderr: %s)", err, readTail(l.errPath))
	}
	r = b.run(ctx, func(w int, n int64) error { return pair(ctx, h, int64(w+1)*1_000_000_000+2*n) })
	if r.ok == 0 {
		return r, fmt.Errorf("no pair succeeded: %v (stderr: %s)", r.firstErr, readTail(l.errPath))
	}
	return r, nil
}

// pair makes a quote and carries it out, checking both answers.
func pair(ctx context.Context, h *httpSession, id int64) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	raw, _, err := h.post(ctx, id, "tools/call", `{"name":"quote_item","arguments":{"item_id":"it_1"}}`)
	if err != nil {
		return err
	}
	var q struct {
		IsError    bool `json:"isError"`
		Structured struct {
			QuoteID string `json:"quote_id"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &q); err != nil || q.IsError || q.Structured.QuoteID == "" {
		return fmt.Errorf("quote_item: no quote (%v): %.300s", err, raw)
	}
	raw, _, err = h.post(ctx, id+1, "tools/call", `{"name":"claim_item","arguments":{"quote_id":"`+q.Structured.QuoteID+`"}}`)
	if err != nil {
		return err
	}
	return checkCall(raw)
}
