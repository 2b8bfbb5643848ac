package widgets

import (
	"math"
	"strconv"
	"strings"
)

// niceStep returns the smallest step of the form {1, 2, 5} × 10^k that
// divides span into at most maxTicks−1 intervals.
func niceStep(span float64, maxTicks int) float64 {
	if maxTicks < 2 {
		maxTicks = 2
	}
	if !(span > 0) || math.IsInf(span, 0) {
		return 1
	}
	raw := span / float64(maxTicks-1)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw*(1-1e-9) {
			return m * mag
		}
	}
	return 10 * mag
}

// appendTicks appends to dst the multiples of step within [lo, hi].
func appendTicks(dst []float64, lo, hi, step float64) []float64 {
	if !(step > 0) || hi < lo {
		return dst
	}
	first := math.Ceil(lo/step - 1e-9)
	for i := 0; i < 1000; i++ {
		v := (first + float64(i)) * step
		if v > hi+step*1e-9 {
			break
		}
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		dst = append(dst, v)
	}
	return dst
}

// niceRange widens [lo, hi] to multiples of a nice step giving at most
// maxTicks ticks; an empty or flat range is widened around its value.
func niceRange(lo, hi float64, maxTicks int) (nlo, nhi, step float64) {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		lo, hi = 0, 1
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi == lo {
		d := math.Abs(lo) * 0.1
		if d == 0 {
			d = 1
		}
		lo, hi = lo-d, hi+d
	}
	step = niceStep(hi-lo, maxTicks)
	nlo = math.Floor(lo/step+1e-9) * step
	nhi = math.Ceil(hi/step-1e-9) * step
	// Widening can add an interval; retry with a larger step if too many.
	if int(math.Round((nhi-nlo)/step))+1 > maxTicks && maxTicks >= 2 {
		step = niceStep(nhi-nlo, maxTicks)
		nlo = math.Floor(lo/step+1e-9) * step
		nhi = math.Ceil(hi/step-1e-9) * step
	}
	return nlo, nhi, step
}

// formatTick formats v for an axis whose ticks are step apart: just enough
// decimals to tell ticks apart, and k/M suffixes for large round values.
func formatTick(v, step float64) string {
	if v == 0 {
		return "0"
	}
	av := math.Abs(v)
	switch {
	case av >= 1e6 && step >= 1e5:
		return trimFloat(v/1e6, decimals(step/1e6)) + "M"
	case av >= 1e4 && step >= 1e3:
		return trimFloat(v/1e3, decimals(step/1e3)) + "k"
	}
	return trimFloat(v, decimals(step))
}

// decimals is how many decimals show a multiple of step exactly (≤ 6).
func decimals(step float64) int {
	if !(step > 0) {
		return 0
	}
	d := 0
	for d < 6 {
		scaled := step * math.Pow(10, float64(d))
		if math.Abs(scaled-math.Round(scaled)) < 1e-6*scaled {
			break
		}
		d++
	}
	return d
}

func trimFloat(v float64, dec int) string {
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// appendLogTicks appends tick values (not logarithms) for a log axis over
// [lo, hi] (both > 0): decades, plus 2× and 5× when fewer than three
// decades show, and plain nice ticks when not even two marks would show.
func appendLogTicks(dst []float64, lo, hi float64, maxTicks int) []float64 {
	if !(lo > 0) || !(hi >= lo) {
		return dst
	}
	e0, e1 := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	mults := []float64{1}
	if math.Log10(hi/lo) <= 2.5 {
		mults = []float64{1, 2, 5}
	}
	start := len(dst)
	for e := e0; e <= e1; e++ {
		for _, m := range mults {
			v := m * math.Pow(10, e)
			if v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
				dst = append(dst, v)
			}
		}
	}
	n := len(dst) - start
	if n < 2 {
		dst = dst[:start]
		return appendTicks(dst, lo, hi, niceStep(hi-lo, maxTicks))
	}
	// Too many for the space: keep every k-th.
	if maxTicks >= 2 && n > maxTicks {
		k := (n + maxTicks - 1) / maxTicks
		j := start
		for i := start; i < len(dst); i += k {
			dst[j] = dst[i]
			j++
		}
		dst = dst[:j]
	}
	return dst
}

// formatLogTick formats a tick value of a log axis.
func formatLogTick(v float64) string {
	av := math.Abs(v)
	switch {
	case av >= 1e6:
		return strconv.FormatFloat(v, 'g', 3, 64)
	case av >= 1e4:
		return trimFloat(v/1e3, 1) + "k"
	case av >= 1:
		return trimFloat(v, 2)
	case av >= 1e-3:
		return trimFloat(v, 4)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}
