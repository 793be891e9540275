package hugeheap

import "testing"

func TestRegion(t *testing.T) {
	for _, c := range []struct {
		size int64
		want int
	}{
		{0, 0},
		{minInput - 1, 0},       // small inputs: the collection costs more than it saves
		{minInput, 16 << 20},    // 256 KiB of spec, 16 MiB of heap
		{4164836, 4164836 * 64}, // stripe
		{16 << 20, maxRegion},   // capped
		{1 << 40, maxRegion},    // no overflow
	} {
		if got := Region(c.size); got != c.want {
			t.Errorf("Region(%d) = %d, want %d", c.size, got, c.want)
		}
	}
}
