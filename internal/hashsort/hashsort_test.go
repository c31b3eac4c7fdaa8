package hashsort

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSortMatchesSlicesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	var s Sorter
	inputs := map[string]func(n int) []uint64{
		"uniform": func(n int) []uint64 {
			a := make([]uint64, n)
			for i := range a {
				a[i] = r.Uint64()
			}
			return a
		},
		// Not uniform: every value in one leading-bits bucket, and many
		// repeats, so buckets are large.
		"skewed": func(n int) []uint64 {
			a := make([]uint64, n)
			for i := range a {
				a[i] = r.Uint64N(1000)
			}
			return a
		},
		"sorted-desc": func(n int) []uint64 {
			a := make([]uint64, n)
			for i := range a {
				a[i] = uint64(n-i) << 40
			}
			return a
		},
	}
	for name, gen := range inputs {
		for _, n := range []int{0, 1, 2, 17, 63, 64, 65, 100, 1000, 4097, 100000} {
			a := gen(n)
			want := slices.Clone(a)
			slices.Sort(want)
			s.Sort(a)
			if !slices.Equal(a, want) {
				t.Fatalf("%s n=%d: not sorted like slices.Sort", name, n)
			}
		}
	}
}

// Values that share their top bits (a part of hashes cut by them) are
// sorted, and spread by the bits after those: the buckets stay small.
func TestSortShared(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for _, top := range []int{0, 8, 16, 40, 60} {
		for _, n := range []int{0, 5, 64, 1000, 70000} {
			a := make([]uint64, n)
			prefix := r.Uint64() &^ (^uint64(0) >> top)
			for i := range a {
				a[i] = prefix | r.Uint64()>>top
			}
			want := slices.Clone(a)
			slices.Sort(want)
			var s Sorter
			s.SortShared(a, top)
			if !slices.Equal(a, want) {
				t.Fatalf("top=%d n=%d: not sorted like slices.Sort", top, n)
			}
		}
	}
}

func BenchmarkSort(b *testing.B) {
	for _, n := range []int{100, 1000, 10000, 100000} {
		r := rand.New(rand.NewPCG(1, uint64(n)))
		src := make([]uint64, n)
		for i := range src {
			src[i] = r.Uint64()
		}
		a := make([]uint64, n)
		b.Run("hashsort/"+itoa(n), func(b *testing.B) {
			var s Sorter
			b.SetBytes(int64(8 * n))
			b.ReportAllocs()
			for b.Loop() {
				copy(a, src)
				s.Sort(a)
			}
		})
		b.Run("slices/"+itoa(n), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				copy(a, src)
				slices.Sort(a)
			}
		})
	}
}

func itoa(n int) string {
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		n /= 10
		if n == 0 {
			return s
		}
	}
}
