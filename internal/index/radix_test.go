package index

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSortValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 100, 5000, 70000} {
		for _, spread := range []uint64{0, 7, 1 << 20, ^uint64(0)} {
			vals := make([]uint64, n)
			ks := make([]keyed, n)
			for i := range vals {
				vals[i] = rng.Uint64()
				if spread != ^uint64(0) {
					vals[i] = 0xabcd000000000000 + rng.Uint64N(spread+1)
				}
				ks[i] = keyed{vals[i], uint32(i)}
			}
			want := slices.Clone(vals)
			slices.Sort(want)
			sortValues(vals, make([]uint64, n))
			if !slices.Equal(vals, want) {
				t.Fatalf("n=%d spread=%d: not sorted", n, spread)
			}
			sortKeyed(ks, make([]keyed, n))
			for i := range ks {
				if ks[i].v != want[i] || i > 0 && ks[i].v == ks[i-1].v && ks[i].i < ks[i-1].i {
					t.Fatalf("n=%d spread=%d: keyed sort wrong or unstable at %d", n, spread, i)
				}
			}
		}
	}
}

func BenchmarkSortValues(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]uint64, 1<<22)
	for i := range vals {
		vals[i] = rng.Uint64()
	}
	work := make([]uint64, len(vals))
	tmp := make([]uint64, len(vals))
	b.SetBytes(8 << 22)
	for b.Loop() {
		copy(work, vals)
		sortValues(work, tmp)
	}
}
