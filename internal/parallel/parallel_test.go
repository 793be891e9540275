package parallel_test

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/tailormcp/tailor/internal/parallel"
)

func TestForCallsEachIndexOnce(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		prev := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 2, 3, 100, 1000} {
			calls := make([]atomic.Int32, n)
			parallel.For(n, func(i int) { calls[i].Add(1) })
			for i := range calls {
				if c := calls[i].Load(); c != 1 {
					t.Fatalf("GOMAXPROCS %d, n %d: index %d called %d times", procs, n, i, c)
				}
			}
		}
		runtime.GOMAXPROCS(prev)
	}
}

func TestForRaisesAPanicInTheCaller(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	defer func() {
		if r := recover(); r != "job 37" {
			t.Errorf("recovered %v, want the job's panic", r)
		}
	}()
	parallel.For(100, func(i int) {
		if i == 37 {
			panic("job 37")
		}
	})
	t.Error("For returned after a job panicked")
}
