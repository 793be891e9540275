package gcpace

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestLimit(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		u    Usage
		want uint64
	}{
		{Usage{Live: 0, Runtime: 5 * mib}, 29 * mib},        // a small heap: GOGC=100 is the tighter bound
		{Usage{Live: 30 * mib, Runtime: 6 * mib}, 60 * mib}, // Headroom past the live heap
		{Usage{Live: 48 * mib, Runtime: 6 * mib}, 78 * mib}, // from here, half the live heap
		{Usage{Live: 200 * mib, Runtime: 10 * mib}, 310 * mib},
	} {
		if got := Limit(c.u); got != c.want {
			t.Errorf("Limit(%+v) = %d MiB, want %d MiB", c.u, got/mib, c.want/mib)
		}
	}
}

func TestReadUsage(t *testing.T) {
	keep := make([][]byte, 64)
	for i := range keep {
		keep[i] = make([]byte, 1<<20)
	}
	runtime.GC()
	u := readUsage()
	if u.Live < 64<<20 || u.Live > 80<<20 {
		t.Errorf("live heap %d MiB, holding 64", u.Live>>20)
	}
	if u.Runtime == 0 || u.Runtime > 64<<20 {
		t.Errorf("runtime memory %d MiB", u.Runtime>>20)
	}
	runtime.KeepAlive(keep)
}

// TestStartFollowsTheLiveHeap runs the pacing in this process: after a
// collection the memory limit is the live heap's Limit, and it follows
// the live heap when that shrinks.
func TestStartFollowsTheLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	Start()
	keep := make([][]byte, 96)
	for i := range keep {
		keep[i] = make([]byte, 1<<20)
	}
	big := waitLimit(t, func(l int64) bool { return l >= 96<<20+96<<19 && l < 200<<20 })
	keep = keep[:8]
	clear(keep[8:cap(keep)])
	small := waitLimit(t, func(l int64) bool { return l < big && l < 64<<20 })
	t.Logf("limit with 96 MiB live: %d MiB; with 8: %d MiB", big>>20, small>>20)
	runtime.KeepAlive(keep)
}

// waitLimit collects until the memory limit satisfies ok (the pacing
// runs on the cleanup goroutine, after the collection) and returns it.
func waitLimit(t *testing.T, ok func(int64) bool) int64 {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		l := debug.SetMemoryLimit(-1)
		if l != math.MaxInt64 && ok(l) {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("memory limit %d MiB after collections", l>>20)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestUserPaced(t *testing.T) {
	for _, c := range []struct {
		gogc, limit string
		want        bool
	}{{"", "", false}, {"200", "", true}, {"off", "", true}, {"", "1GiB", true}} {
		t.Setenv("GOGC", c.gogc)
		t.Setenv("GOMEMLIMIT", c.limit)
		if got := UserPaced(); got != c.want {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: UserPaced() = %v", c.gogc, c.limit, got)
		}
	}
}
