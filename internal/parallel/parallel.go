// Package parallel runs a stage's independent jobs on every core. The
// stages stay deterministic by construction: each job writes only its own
// index's result, and the caller reads the results in index order, so
// what comes out does not depend on which job finished first.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls fn(i) for every i in [0, n) on up to GOMAXPROCS goroutines
// (the caller's among them) and returns when every call has returned. A
// panic in fn is raised again in the caller, as a loop would raise it.
func For(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		panicked atomic.Pointer[any]
	)
	work := func() {
		defer func() {
			if r := recover(); r != nil {
				panicked.CompareAndSwap(nil, &r)
				next.Store(int64(n)) // the others stop taking jobs
			}
		}()
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			fn(i)
		}
	}
	wg.Add(workers - 1)
	for range workers - 1 {
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
	if r := panicked.Load(); r != nil {
		panic(*r)
	}
}
