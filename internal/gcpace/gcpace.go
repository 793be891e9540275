// Package gcpace bounds how far a batch run's heap grows past its live
// data, once that data is large.
//
// Go's default pacing (GOGC=100) lets the heap reach twice what the last
// collection found live, and keeps what it freed mapped until the
// scavenger gets to it. For a small heap that is cheap; for a large one it
// is most of a run's peak memory: generating from stripe's 4 MB spec,
// 25–30 MB is live while the spec is decoded and validated, and the
// process peaked at 83–90 MiB. After each collection Start's pacing sets
// a soft memory limit (debug.SetMemoryLimit) of the live heap plus
// Headroom or half the live heap, whichever is more, plus the runtime's
// own memory: the heap grows at most that far before the next collection,
// and memory freed beyond it goes back to the system. Below Headroom of
// live data GOGC=100 is the tighter bound and nothing changes.
//
// The limit follows the live heap, so it never sits below what the run
// holds: a run that needs more memory gets it, one collection later.
// Stripe's peak: 77 MiB instead of 83, for about 4 % more wall time: the
// extra collections and the pages given back and touched again.
//
// Start is for a process that runs one burst and exits (generate, check,
// diff, lint, init); a server keeps Go's default. A GOGC or GOMEMLIMIT in the
// environment is the user's choice and is left alone.
package gcpace

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Headroom is the least the heap may grow past its live data before a
// collection (below it, GOGC=100's doubling is the bound).
const Headroom = 24 << 20

var once sync.Once

// Start paces the collector for the rest of the process (see the package
// comment). It does nothing when GOGC or GOMEMLIMIT is set.
func Start() {
	if UserPaced() {
		return
	}
	once.Do(arm)
}

// UserPaced reports whether the environment sets the collector's pace
// (GOGC or GOMEMLIMIT): then neither a batch run's pacing nor a server's
// start-up (mcpkit/startgc.go) changes it.
func UserPaced() bool {
	return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != ""
}

// sentinel is an object nothing keeps: each collection frees it, and its
// cleanup sets the limit for the next one and allocates the next sentinel.
type sentinel struct{ _ *int } // a pointer: never batched as a tiny object

func arm() {
	runtime.AddCleanup(new(sentinel), func(struct{}) {
		debug.SetMemoryLimit(int64(Limit(readUsage())))
		arm()
	}, struct{}{})
}

// Usage is what the last collection left: the live heap, and the
// runtime's memory that is not heap (its metadata, stacks, buffers).
type Usage struct {
	Live, Runtime uint64
}

// Limit is the memory limit for the next collection after one that left u.
func Limit(u Usage) uint64 {
	return u.Live + max(Headroom, u.Live/2) + u.Runtime
}

var samples = []metrics.Sample{
	{Name: "/gc/heap/live:bytes"},
	{Name: "/memory/classes/total:bytes"},
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/memory/classes/heap/unused:bytes"},
	{Name: "/memory/classes/heap/free:bytes"},
	{Name: "/memory/classes/heap/released:bytes"},
}

// readUsage reads Usage from runtime/metrics into the shared samples.
// Calls never overlap: only a sentinel's cleanup calls it, and one
// sentinel is armed at a time, by the cleanup after its read.
func readUsage() Usage {
	metrics.Read(samples)
	var v [6]uint64
	for i, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	heap := v[2] + v[3] + v[4] + v[5]
	return Usage{Live: v[0], Runtime: v[1] - min(heap, v[1])}
}
