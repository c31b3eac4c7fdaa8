package verify

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/internal/testutil"
)

// TestHistBound: for pairs of sets of every size from just under minHist
// to a few thousand, sharing from none to all of their values, the bound
// is at least the intersection, and is the sum of the parts' minima
// computed value by value; with the vector code and without. Sets that
// differ in size by more than twice the parts have none.
func TestHistBound(t *testing.T) {
	testutil.Vector(t, &hasAVX512BW, func(t *testing.T) {
		r := rand.New(rand.NewPCG(6, 7))
		for range 3000 {
			na := 60 + r.IntN(3000)
			nb := max(1, int(float64(na)*(0.3+r.Float64())))
			share := r.Float64()
			a, b := make([]uint64, 0, na), make([]uint64, 0, nb)
			for len(a) < na || len(b) < nb {
				v := r.Uint64()
				if r.Float64() < share && len(a) < na && len(b) < nb {
					a, b = append(a, v), append(b, v)
				} else if r.IntN(2) == 0 && len(a) < na {
					a = append(a, v)
				} else if len(b) < nb {
					b = append(b, v)
				}
			}
			slices.Sort(a)
			slices.Sort(b)
			ha, hb := appendHist(nil, a), appendHist(nil, b)
			if len(ha) != histBytes(na) || len(hb) != histBytes(nb) {
				t.Fatalf("histograms of %d and %d values: %d and %d bytes", na, nb, len(ha), len(hb))
			}
			bound, ok := histBound(ha, hb)
			want, wantOK := refHistBound(a, b)
			if ok != wantOK || ok && bound != want {
				t.Fatalf("%d and %d values: bound %d, %v; by each value %d, %v", na, nb, bound, ok, want, wantOK)
			}
			if n := intersect(a, b); ok && bound < n {
				t.Fatalf("%d and %d values: bound %d below their intersection %d", na, nb, bound, n)
			}
		}
	})
}

// refHistBound is histBound from the sets: the parts of the smaller, the
// values of each counted in it.
func refHistBound(a, b []uint64) (int, bool) {
	pa, pb := histBytes(len(a)), histBytes(len(b))
	p := min(pa, pb)
	if p == 0 || max(pa, pb) > 2*p {
		return 0, false
	}
	count := func(set []uint64) []int {
		c := make([]int, p)
		for _, x := range set {
			c[x/(^uint64(0)/uint64(p)+1)]++
		}
		return c
	}
	ca, cb := count(a), count(b)
	s := 0
	for k := range ca {
		s += min(ca[k], cb[k])
	}
	return s, true
}

// A part of more than 255 values gives no histogram.
func TestHistCrowded(t *testing.T) {
	set := make([]uint64, 300)
	for i := range set {
		set[i] = uint64(i)
	}
	if h := appendHist([]uint8{9}, set); len(h) != 1 {
		t.Fatalf("300 values in one part: a histogram of %d bytes", len(h)-1)
	}
}
