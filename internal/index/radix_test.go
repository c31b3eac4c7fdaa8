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

func TestSorterWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var s sorter
	for _, n := range []int{0, 1, 2, 10, 1000, 50000} {
		for _, prefix := range []int{1, 7, 20, 33, 64} {
			for _, crowd := range []bool{false, true} {
				vals := make([]uint64, n)
				for i := range vals {
					vals[i] = rng.Uint64() >> rng.IntN(3)
					if crowd {
						// All agree on their top 40 bits.
						vals[i] = 0xabcdef1234<<24 | vals[i]>>40
					}
				}
				want := slices.Clone(vals)
				slices.Sort(want)
				got := s.words(vals, make([]uint64, n), prefix)
				shift := uint(64 - prefix)
				for i := 1; i < n; i++ {
					if got[i-1]>>shift > got[i]>>shift {
						t.Fatalf("n=%d prefix=%d crowd=%v: out of order at %d", n, prefix, crowd, i)
					}
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Fatalf("n=%d prefix=%d crowd=%v: not the values given", n, prefix, crowd)
				}
			}
		}
	}
}
