package hugeheap

import (
	"bytes"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/smaps"
)

func TestGodebugDisablesTHP(t *testing.T) {
	for godebug, want := range map[string]bool{
		"":                             false,
		"disablethp=1":                 true,
		"madvdontneed=1, disablethp=1": true,
		"disablethp=1,disablethp=0":    false, // the last one wins, as in the runtime
		"disablethp=0":                 false,
		"xdisablethp=1":                false,
		"gctrace=1,disablethp=1,foo=2": true,
	} {
		if got := godebugDisablesTHP(godebug); got != want {
			t.Errorf("GODEBUG=%q: disables = %v, want %v", godebug, got, want)
		}
	}
}

// TestAdvisedHeapFaultsHuge checks the promise end to end: after advise,
// the heap's mapping asks for huge pages (VmFlags "hg" in smaps) over the
// whole region, and objects allocated next are backed by huge pages.
func TestAdvisedHeapFaultsHuge(t *testing.T) {
	const n = 64 << 20
	adviseOrSkip(t, n)
	if got := advisedBytes(t); got < n {
		t.Fatalf("%d bytes of the address space ask for huge pages, want at least %d", got, n)
	}
	before := anonHuge(t)
	// Small objects, as a run's parse allocates them, kept live.
	keep := make([][]byte, 0, 1<<16)
	for range 1 << 16 {
		keep = append(keep, make([]byte, 512))
	}
	if after := anonHuge(t); after <= before {
		t.Errorf("32 MiB allocated after advise: AnonHugePages %d kB before, %d kB after; want more (is the kernel short of free huge pages?)", before, after)
	}
	_ = keep
}

// TestWithdrawTakesTheAdviceBack: after unadvise, the region no longer
// asks for huge pages (a long-running process's heap grows as Go's does).
func TestWithdrawTakesTheAdviceBack(t *testing.T) {
	const n = 32 << 20
	adviseOrSkip(t, n)
	before := advisedBytes(t)
	unadvise()
	if after := advisedBytes(t); before-after < n {
		t.Errorf("%d bytes ask for huge pages after withdrawing, %d before: want %d fewer", after, before, n)
	}
}

// TestAdviseCollectsOnce: the chunks advise allocates are garbage from
// birth and never touched, and the collector must not run as they grow the
// heap (under the default GOGC it ran at each doubling, eight times for 256
// MiB; under a server start-up's memory limit, at every chunk past it):
// one collection, the one that hands them back, and the collector's
// settings as they were.
func TestAdviseCollectsOnce(t *testing.T) {
	for _, c := range []struct {
		name    string
		percent int
		limit   int64
	}{
		{"batch run (GOGC=100)", 100, math.MaxInt64},
		{"server start-up (collector off, 32 MiB limit)", -1, 32 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			percent := debug.SetGCPercent(c.percent)
			limit := debug.SetMemoryLimit(c.limit)
			defer func() {
				debug.SetGCPercent(percent)
				debug.SetMemoryLimit(limit)
			}()
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			advise(128 << 20)
			runtime.ReadMemStats(&after)
			if n := after.NumGC - before.NumGC; n != 1 {
				t.Errorf("advising 128 MiB ran %d collections, want 1", n)
			}
			if got := debug.SetGCPercent(c.percent); got != c.percent {
				t.Errorf("GOGC after advise = %d, want %d", got, c.percent)
			}
			if got := debug.SetMemoryLimit(c.limit); got != c.limit {
				t.Errorf("memory limit after advise = %d, want %d", got, c.limit)
			}
		})
	}
}

// adviseOrSkip advises n bytes of heap, where the kernel gives huge pages
// on request only.
func adviseOrSkip(t *testing.T, n int) {
	t.Helper()
	if !wanted() {
		t.Skip("the kernel gives huge pages without asking, or gives none (transparent_hugepage is not madvise)")
	}
	if !advise(n) {
		t.Fatal("madvise(MADV_HUGEPAGE) refused on a madvise-mode kernel")
	}
}

// advisedBytes is how much of this process's address space asks for
// huge pages.
func advisedBytes(t *testing.T) int {
	t.Helper()
	n, err := smaps.FlagBytes(os.Getpid(), "hg")
	if err != nil {
		t.Skip(err)
	}
	return n
}

// anonHuge is the process's AnonHugePages in kB.
func anonHuge(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		t.Skip(err)
	}
	for line := range bytes.Lines(b) {
		if k, ok := bytes.CutPrefix(line, []byte("AnonHugePages:")); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(string(k)), " kB"))
			return n
		}
	}
	t.Skip("no AnonHugePages in smaps_rollup")
	return 0
}
