package bench

import (
	"math"
	"slices"
	"time"
)

// Sample is a series of measurements of one figure, one per run.
type Sample []float64

// Median is the middle value (mean of the two middle ones for an even
// count); NaN for an empty sample.
func (s Sample) Median() float64 { return quantile(s, 0.5) }

// Min and Max bound the spread.
func (s Sample) Min() float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	return slices.Min(s)
}

func (s Sample) Max() float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	return slices.Max(s)
}

// quantile returns the q-quantile by linear interpolation between closest
// ranks (the "R-7" definition); NaN for an empty sample.
func quantile(s []float64, q float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	v := slices.Clone(s)
	slices.Sort(v)
	pos := q * float64(len(v)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return v[lo] + (v[hi]-v[lo])*(pos-float64(lo))
}

// durations converts to microseconds.
func micros(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d) / float64(time.Microsecond)
	}
	return out
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
