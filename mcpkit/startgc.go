package mcpkit

import (
	"context"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/gcpace"
	"github.com/tailormcp/tailor/internal/hugeheap"
)

// How a generated server's garbage collector is set, unless the user set
// GOGC or GOMEMLIMIT (then it is left alone).
//
// Start-up is a burst of allocation that is nearly all garbage: registering
// the tools, then encoding the first tools/list, which go-sdk does twice
// into buffers that grow by doubling (kubernetes: 10.6 MB of JSON, ~100 MB
// allocated). With the default GOGC the collector ran several times during
// that burst, marking a heap that was about to die, and took a quarter of
// the CPU of a cold start. So while the process starts, the collector waits
// (bounded by startLimit); once the first tools/list answer is written, or
// after startWindow, it is switched on and the burst's memory is returned to
// the OS at once instead of minutes later. Measured on kubernetes: cold
// start to tools/list answered 255 → 170 ms, idle resident memory after it
// 68 → 43 MiB (measured when this was introduced).
//
// Serving, the live heap is small and nearly constant (the schemas are
// constants in the binary, not heap), while every call allocates garbage;
// collections are what the slowest calls wait behind. servingPercent
// collects at 4× the live heap instead of 2×: fewer collections for the
// slowest calls to wait behind (at 5×, the p99 of a tool call's overhead
// went from 1.09–1.17 ms to 0.70–0.79 ms, A/B, interleaved), for ~12 MiB
// more resident memory under load. Not higher: between collections the
// freed heap goes back to the OS and comes back page by page, and the
// larger the heap, the more of every call runs on memory that is not yet
// mapped or cached. With each call after 1 ms of quiet, as an agent
// calls, 5× made the median round trip 1.10× that of a go-sdk server
// collecting at 2×, where 3× and 4× made it 1.00× (6 fresh runs of 2000
// calls each, interleaved, bench's petstore server); 3× did not lower it
// further and collects half again as often.
//
// The gate is per process: the first server of a process starts it, later
// ones (tests, tailor serve in one binary) find it done.
const (
	startWindow = 5 * time.Second
	// startLimit bounds the heap while the collector waits: a start-up
	// peaks far below it (kubernetes, 738 tools: 91 MiB resident), and a
	// small container is not pushed over its memory limit by the wait.
	startLimit     = 256 << 20
	servingPercent = 300
)

// startGate is the start-up collector setting of this process.
var startGate struct {
	once   sync.Once
	active atomic.Bool
	limit  int64 // the memory limit before start-up
}

// beginStartup holds the collector back until endStartup (or startWindow).
func beginStartup() {
	startGate.once.Do(func() {
		if gcpace.UserPaced() {
			return
		}
		debug.SetGCPercent(-1)
		startGate.limit = debug.SetMemoryLimit(startLimit)
		startGate.active.Store(true)
		time.AfterFunc(startWindow, endStartup)
	})
}

// endStartup switches the collector on for serving and hands the start-up
// garbage back to the OS. Only the first call does anything.
func endStartup() {
	if !startGate.active.CompareAndSwap(true, false) {
		return
	}
	hugeheap.Withdraw()
	debug.SetGCPercent(servingPercent)
	debug.SetMemoryLimit(startGate.limit)
	debug.FreeOSMemory()
}

// The first tools/list of a large tool set is most of a cold start
// (kubernetes: go-sdk encodes 8 MB of definitions twice, into buffers that
// grow by doubling), and with the collector waiting all of it is fresh
// heap, faulted in 4 KiB at a time. Where the kernel gives huge pages only
// on request, a stdio server whose definitions reach listingMin asks for
// listingPerByte bytes of heap per byte of them in 2 MiB pages
// (internal/hugeheap) for the start-up, and takes the advice back when the
// start-up ends (a long-running heap should grow as Go's does). Measured
// A/B, spawn to tools/list answered by a driver that also parses it:
// kubernetes 565 → 439 ms, stripe 350 → 273 ms, idle resident memory
// +1–2 MiB; a small tool set would gain nothing and pay the collection
// that hands the region to the heap (petstore: +7 ms), hence the
// threshold.
const (
	listingMin     = 1 << 20
	listingPerByte = 32
)

// reserveForListing asks for the first tools/list's heap (see above).
func reserveForListing(k *Runtime) {
	if k.cfg.Selection.Dynamic || !startGate.active.Load() {
		return // the start lists five meta-tools, or GOGC/GOMEMLIMIT is the user's
	}
	if n := listingBytes(k.tools); n >= listingMin {
		hugeheap.Reserve(n * listingPerByte)
	}
}

// listingBytes is about the size of the tools' definitions in tools/list.
func listingBytes(tools []*entry) int {
	n := 0
	for _, e := range tools {
		n += len(e.tool.InputSchema) + len(e.tool.OutputSchema) + len(e.tool.Description)
	}
	return n
}

// listWatch ends the start-up once the answer to the first tools/list has
// been written: listed is set by a middleware when tools/list was handled,
// and the next write on the stdio stream is its answer (stdio answers in
// order).
type listWatch struct {
	w      io.Writer
	listed *atomic.Bool
}

func (lw listWatch) Write(p []byte) (int, error) {
	n, err := lw.w.Write(p)
	if lw.listed.Load() && startGate.active.Load() {
		go endStartup()
	}
	return n, err
}

func (listWatch) Close() error { return nil }

// noteListed sets listed once a tools/list request has been answered.
func noteListed(listed *atomic.Bool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/list" {
				listed.Store(true)
			}
			return res, err
		}
	}
}
