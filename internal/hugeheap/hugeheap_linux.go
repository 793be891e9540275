package hugeheap

import (
	"bytes"
	"math"
	"os"
	"runtime/debug"
	"strings"
	"syscall"
	"unsafe"
)

// wanted reports whether asking helps and is safe here: the kernel gives
// huge pages only on request, Go's GODEBUG does not turn them off, and
// the kernel does not count mapped-but-untouched memory against a strict
// commit limit (overcommit_memory=2), where a large mapping could fail.
func wanted() bool {
	if godebugDisablesTHP(os.Getenv("GODEBUG")) {
		return false
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !bytes.Contains(mode, []byte("[madvise]")) {
		return false
	}
	commit, err := os.ReadFile("/proc/sys/vm/overcommit_memory")
	return err == nil && strings.TrimSpace(string(commit)) != "2"
}

// godebugDisablesTHP reads GODEBUG as the runtime does: comma-separated
// settings, the last one of a name wins.
func godebugDisablesTHP(godebug string) bool {
	off := false
	for _, kv := range strings.Split(godebug, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(kv), "disablethp="); ok {
			off = v == "1"
		}
	}
	return off
}

// advise has the runtime map n bytes of fresh heap, advises them huge,
// and hands them back to the heap. Early in a process the heap has no
// free range that large, so the runtime maps new address space for the
// chunks, and, fresh memory being zero, touches none of it; the collection
// that frees them returns the untouched pages to the OS as released, so
// the heap's next spans are carved from them, fault in 2 MiB at a time and
// are not zeroed again by the runtime. The advice lives on the mapping,
// which the runtime keeps for the life of the process.
//
// The collector is held off while the chunks are allocated: they are
// garbage from birth and never touched, yet under the default GOGC it ran
// at each doubling of the heap they made (eight times for 256 MiB), and
// under a server start-up's memory limit (mcpkit's startgc.go) at every
// chunk past the limit, on the path of `initialize` (kubernetes: seven
// collections, 11 ms of it). One collection is needed, the one that hands
// them back.
func advise(n int) bool {
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	ok := adviseChunks(n)
	debug.SetMemoryLimit(limit)
	debug.SetGCPercent(percent)
	debug.FreeOSMemory()
	return ok
}

// chunk is the size of the objects the region is asked for in. Not one
// object: the runtime zeroes an object that begins on pages the heap has
// used before (a collection can free some at the end of the heap), and
// zeroing a whole region would fault it all in at once, 4 KiB at a time;
// in chunks, only the few that land on used pages are zeroed.
const chunk = 2 << 20

// advised are the address ranges adviseChunks advised, for unadvise.
var advised []span

type span struct{ start, end uintptr }

//go:noinline
func adviseChunks(n int) bool {
	chunks := make([][]byte, 0, n/chunk)
	for range n / chunk {
		chunks = append(chunks, make([]byte, chunk))
	}
	advised = advised[:0]
	for _, c := range chunks {
		if syscall.Madvise(c, syscall.MADV_HUGEPAGE) != nil {
			return false
		}
		start := uintptr(unsafe.Pointer(unsafe.SliceData(c)))
		if k := len(advised) - 1; k >= 0 && advised[k].end == start {
			advised[k].end += chunk
		} else {
			advised = append(advised, span{start, start + chunk})
		}
	}
	return true
}

// unadvise advises the ranges back to no huge pages. The ranges are
// addresses of the heap's own mapping, which the runtime never unmaps, so
// the call cannot touch another mapping.
func unadvise() {
	for _, r := range advised {
		syscall.Syscall(syscall.SYS_MADVISE, r.start, r.end-r.start, syscall.MADV_NOHUGEPAGE)
	}
	advised = nil
}
