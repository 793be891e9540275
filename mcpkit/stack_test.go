package mcpkit

import (
	"sync"
	"testing"
)

// TestOnWarmStack: f runs to its end before onWarmStack returns, calls at
// once each get a worker, and a panic reaches the caller as it was.
func TestOnWarmStack(t *testing.T) {
	var wg sync.WaitGroup
	want := recurse(200)
	results := make([]int, 200)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			onWarmStack(func() { results[i] = recurse(200) + i })
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r != want+i {
			t.Fatalf("call %d: got %d, want %d", i, r, want+i)
		}
	}
	defer func() {
		if p := recover(); p != "boom" {
			t.Fatalf("recovered %v, want the handler's panic", p)
		}
	}()
	onWarmStack(func() { panic("boom") })
	t.Fatal("onWarmStack returned after a panic")
}

// recurse recurses n frames, as a call's deep stack does.
func recurse(n int) int {
	var pad [64]byte
	pad[n%64] = 1
	if n == 0 {
		return int(pad[0])
	}
	return recurse(n-1) + int(pad[n%64])
}
