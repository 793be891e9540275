// Package hugeheap lets a burst of allocation grow the heap in 2 MiB
// pages. On Linux a first touch of fresh memory costs a page fault per
// 4 KiB page, and in a virtual machine each fault is dear: generating from
// a 4 MB spec touches about 100 MB of new heap, and the faults were about
// 30 % of `tailor generate`'s wall time on stripe and 45 % on kubernetes.
// Many kernels (transparent_hugepage=madvise, a common default) give huge
// pages only to memory that asks for them, and Go's runtime asks for none
// for its heap; this package asks for the heap a burst is about to use.
//
// It is for bursts: a batch run (generate, check, diff, lint, init) or a
// server's start-up. A huge page is resident whole, so the peak RSS grows
// (stripe's generation: 96 to 104–111 MiB), which a run that ends in a
// second can spend; a server that runs for weeks should not, so it
// withdraws the advice when its start-up ends (Withdraw).
// GODEBUG=disablethp=1, Go's own switch for huge pages, turns it off.
package hugeheap

import "sync"

const (
	// perInputByte is how much heap a run is expected to touch per byte
	// of its input: stripe's 4.2 MB of YAML and kubernetes' 4.0 MB of
	// JSON touch 100–190 MB of address space, and a 4 MB spec asks for
	// 256 MiB. Heap beyond the region grows in 4 KiB pages as before, so
	// a low guess loses time, never memory; untouched, the region costs
	// no memory.
	perInputByte = 64
	// minInput is the smallest input worth it: from 256 KB of spec the
	// runs measured 13–35 % faster; at 60–150 KB they came out even, the
	// collection that hands the region back to the heap (a few ms) costing
	// what the faults saved.
	minInput = 256 << 10
	// maxRegion bounds the address space Reserve asks for.
	maxRegion = 512 << 20
)

var (
	mu       sync.Mutex
	asked    bool
	reserved int
)

// ForInput prepares the heap for a run that reads an input of size bytes
// (see Reserve).
func ForInput(size int64) int { return Reserve(Region(size)) }

// Reserve asks for huge pages for the next n bytes of heap the process
// grows by. It asks once per process: the region stays the heap's for
// good, and a later run reuses it. It reports how many bytes of heap
// address space ask for huge pages (0 where the kernel gives them without
// asking, gives none, or nothing was asked for yet).
func Reserve(n int) int {
	n = min(n, maxRegion)
	mu.Lock()
	defer mu.Unlock()
	if n > 0 && !asked && wanted() {
		asked = true
		if advise(n) {
			reserved = n
		}
	}
	return reserved
}

// Withdraw takes the advice back from the region Reserve asked for, for a
// process that keeps running after its burst: the pages already huge stay
// until the runtime returns them, and the heap grows in 4 KiB pages from
// then on, so that the kernel does not fill sparse 2 MiB ranges of a
// long-lived heap (khugepaged collapses a range with a single page in
// use). Reserve asks no more after it.
func Withdraw() {
	mu.Lock()
	defer mu.Unlock()
	asked = true
	unadvise() // also what a Reserve that failed part-way advised
	reserved = 0
}

// Applies reports whether this system gives huge pages only on request
// and ForInput may ask (see wanted).
func Applies() bool { return wanted() }

// Reserved is what ForInput reserved in this process.
func Reserved() int {
	mu.Lock()
	defer mu.Unlock()
	return reserved
}

// Region is the heap asked for ahead of an input of size bytes.
func Region(size int64) int {
	if size < minInput {
		return 0
	}
	return int(min(size*perInputByte, maxRegion))
}
