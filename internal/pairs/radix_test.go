package pairs

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// radixSort sorts as slices.Sort does: pairs of ranks of several widths,
// values whose bytes differ in three places (the parts' passes end in the
// scratch) and in all eight, with repeats, values all alike, and short
// lists.
func TestRadixSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		n    int
		mask uint64
	}{{0, 0}, {1, 0xffff}, {2, 0xffff}, {1000, 0}, {1000, 0xff}, {5000, 0xffff}, {5000, 0xffffff}, {100000, 1<<20 - 1}, {3000, ^uint64(0)}, {3000, 0xffffff0000}} {
		a := make([]uint64, c.n)
		for i := range a {
			x, y := rng.Uint64()&c.mask, rng.Uint64()&c.mask
			a[i] = x<<32 | y&0xffffffff
			if c.mask == ^uint64(0) || c.mask == 0xffffff0000 {
				// Values of their own: all eight bytes, or three.
				a[i] = rng.Uint64() & c.mask
			}
			if i > 0 && rng.IntN(4) == 0 {
				a[i] = a[rng.IntN(i)]
			}
		}
		want := slices.Sorted(slices.Values(a))
		radixSort(a, make([]uint64, len(a)))
		if !slices.Equal(a, want) {
			t.Errorf("n=%d mask=%x: not sorted as slices.Sort sorts", c.n, c.mask)
		}
	}
}

// BenchmarkSortRanked sorts 5 million pairs of ranks below 2^16 (the
// default dedup job's, about) with radixSort and with slices.Sort.
func BenchmarkSortRanked(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]uint64, 5_000_000)
	for i := range src {
		x, y := rng.Uint64N(1<<16), rng.Uint64N(1<<16)
		src[i] = min(x, y)<<32 | max(x, y)
	}
	a, tmp := make([]uint64, len(src)), make([]uint64, len(src))
	b.Run("radix", func(b *testing.B) {
		for b.Loop() {
			copy(a, src)
			radixSort(a, tmp)
		}
	})
	b.Run("slices.Sort", func(b *testing.B) {
		for b.Loop() {
			copy(a, src)
			slices.Sort(a)
		}
	})
}
