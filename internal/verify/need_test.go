package verify

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIntersectAtLeast: the count is exact whenever it reaches need, and
// below need otherwise, over sets of every overlap.
func TestIntersectAtLeast(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	early := 0
	for trial := range 3000 {
		share := rng.Float64()
		var a, b []uint64
		for range 1 + rng.IntN(300) {
			v := rng.Uint64N(1 << 20)
			switch f := rng.Float64(); {
			case f < share:
				a, b = append(a, v), append(b, v)
			case f < share+(1-share)/2:
				a = append(a, v)
			default:
				b = append(b, v)
			}
		}
		slices.Sort(a)
		a = slices.Compact(a)
		slices.Sort(b)
		b = slices.Compact(b)
		want := intersect(a, b)
		n := rng.IntN(len(a) + len(b) + 2)
		if trial%10 == 0 {
			n = want
		}
		got := intersectAtLeast(a, b, n)
		if want >= n && got != want || want < n && got >= n {
			t.Fatalf("intersectAtLeast(%d values, %d values, %d) = %d; %d in common", len(a), len(b), n, got, want)
		}
		if got != want {
			early++
		}
	}
	if early < 500 {
		t.Errorf("only %d of 3000 counts stopped early", early)
	}
}

// TestNeed: a pair with fewer common values than need is not written, at
// any threshold, with containment or without.
func TestNeed(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for range 200000 {
		nx, ny := 1+rng.IntN(5000), 1+rng.IntN(5000)
		threshold := rng.Float64()
		if rng.IntN(4) == 0 {
			threshold = float64(rng.IntN(21)) / 20
		}
		containment := rng.IntN(2) == 0
		n := need(nx, ny, threshold, containment)
		inter := rng.IntN(min(nx, ny) + 1)
		j, cab, cba := scoreCounts(inter, nx, ny)
		written := j >= threshold || containment && (cab >= threshold || cba >= threshold)
		if inter < n && written {
			t.Fatalf("need(%d, %d, %g, %v) = %d, but %d in common scores %g %g %g", nx, ny, threshold, containment, n, inter, j, cab, cba)
		}
	}
}
