package mcpkit

import (
	"testing"
	"unsafe"
)

// TestGrowCallStack: once growCallStack has run, a goroutine can go as
// deep as a tool call does without its stack being copied again (a copy
// moves every variable on it), and without it the same depth does copy
// it (so the test can tell).
func TestGrowCallStack(t *testing.T) {
	moved := func(grow bool) bool {
		done := make(chan bool)
		go func() {
			if grow {
				growCallStack()
			}
			var here byte
			before := uintptr(unsafe.Pointer(&here))
			recurse(200) // ~20 KiB of frames
			done <- uintptr(unsafe.Pointer(&here)) != before
		}()
		return <-done
	}
	if moved(true) {
		t.Error("the stack was copied after growCallStack")
	}
	if !moved(false) {
		t.Error("a goroutine's stack was not copied without growCallStack: the test shows nothing")
	}
}

// recurse recurses n frames, as a call's deep stack does.
//
//go:noinline
func recurse(n int) int {
	var pad [64]byte
	pad[n%64] = 1
	if n == 0 {
		return int(pad[0])
	}
	return recurse(n-1) + int(pad[n%64])
}
