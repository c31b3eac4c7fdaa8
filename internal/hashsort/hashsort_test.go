package hashsort

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/internal/testutil"
)

// inputs are the kinds of values the sorts are tested on, drawn from r (in
// the order of their names, for the same values every run):
// uniform ones, values with repeats (and 0), values that all share their
// leading bits (buckets and runs of full slots are large), and the largest
// values (runs of full slots reach the table's end).
func inputs(r *rand.Rand) map[string]func(n int) []uint64 {
	gen := func(f func(a []uint64, i int) uint64) func(n int) []uint64 {
		return func(n int) []uint64 {
			a := make([]uint64, n)
			for i := range a {
				a[i] = f(a, i)
			}
			return a
		}
	}
	return map[string]func(n int) []uint64{
		"uniform": gen(func([]uint64, int) uint64 { return r.Uint64() }),
		"repeats": gen(func(a []uint64, i int) uint64 {
			if i > 0 && r.IntN(3) == 0 {
				return a[r.IntN(i)]
			}
			return r.Uint64()
		}),
		"zeros": gen(func([]uint64, int) uint64 {
			if r.IntN(5) == 0 {
				return 0
			}
			return r.Uint64()
		}),
		"skewed":      gen(func([]uint64, int) uint64 { return r.Uint64N(1000) }),
		"sorted-desc": gen(func(a []uint64, i int) uint64 { return uint64(len(a)-i) << 40 }),
		"top":         gen(func([]uint64, int) uint64 { return ^uint64(0) - r.Uint64N(1<<20) }),
	}
}

func TestSortMatchesSlicesSort(t *testing.T) {
	var s Sorter
	inputs := inputs(rand.New(rand.NewPCG(7, 11)))
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		gen := inputs[name]
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
	for _, n := range []int{100, 1000, 3000, 10000, 100000, 1000000} {
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

// AppendDistinct keeps each value of a sorted slice once, as
// slices.Compact does, after what dst held: values repeated at random, none,
// all one value, the extremes of the range.
func TestAppendDistinct(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 3, 100, 2500} {
		for _, repeat := range []int{0, 3, 10} {
			a := make([]uint64, n)
			for i := range a {
				switch {
				case repeat == 10:
					a[i] = 1 << 63
				case i > 0 && r.IntN(10) < repeat:
					a[i] = a[r.IntN(i)]
				case i%7 == 0:
					a[i] = ^uint64(0) - uint64(r.IntN(2))
				default:
					a[i] = r.Uint64()
				}
			}
			slices.Sort(a)
			dst := []uint64{42}
			got := AppendDistinct(dst, a)
			want := append([]uint64{42}, slices.Compact(slices.Clone(a))...)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d repeat=%d: %d values, want %d", n, repeat, len(got), len(want))
			}
		}
	}
}

// BenchmarkAppendDistinct: the distinct values of 2,500 sorted hashes of
// which a fifth repeat, as a document's shingles do, without a branch on
// repeats and with one.
func BenchmarkAppendDistinct(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	src := make([]uint64, 2500)
	for i := range src {
		if i > 0 && r.IntN(10) < 2 {
			src[i] = src[r.IntN(i)]
		} else {
			src[i] = r.Uint64()
		}
	}
	slices.Sort(src)
	var dst []uint64
	b.Run("branchless", func(b *testing.B) {
		for b.Loop() {
			dst = AppendDistinct(dst[:0], src)
		}
	})
	b.Run("branch", func(b *testing.B) {
		for b.Loop() {
			dst = dst[:0]
			for i, h := range src {
				if i == 0 || h != src[i-1] {
					dst = append(dst, h)
				}
			}
		}
	})
}

// AppendSet gives what slices.Sort and slices.Compact give, after what dst
// held, for every kind of inputs (values that share their leading bits make
// the table give up and sort) and every small size.
// With AVX-512 both tables are tried (the bucket table, and the ordered
// table of the other CPUs); uniform values of a thousand or more turn
// some away from full buckets.
func TestAppendSet(t *testing.T) { testutil.Vector(t, &hasAVX512, testAppendSet) }

func testAppendSet(t *testing.T) {
	inputs := inputs(rand.New(rand.NewPCG(8, 12)))
	var s Sorter
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		gen := inputs[name]
		for _, n := range []int{0, 1, 2, 17, 63, 64, 65, 100, 1000, 4097, 100000} {
			a := gen(n)
			want := slices.Clone(a)
			slices.Sort(want)
			want = append([]uint64{7}, slices.Compact(want)...)
			before := Crowded()
			if got := s.AppendSet([]uint64{7}, a); !slices.Equal(got, want) {
				t.Fatalf("%s n=%d: AppendSet gave %d values, want %d (sorted, each once)", name, n, len(got), len(want))
			}
			// Uniform values never crowd the table; a thousand values
			// under 1000, or all within 2^20 of the top, always do.
			switch crowded := Crowded() - before; {
			case (name == "uniform" || name == "repeats") && crowded != 0:
				t.Fatalf("%s n=%d: counted as crowded", name, n)
			case (name == "skewed" || name == "top") && n >= 1000 && crowded != 1:
				t.Fatalf("%s n=%d: crowded counted %d times, want once", name, n, crowded)
			}
		}
	}
}

// BenchmarkSet compares AppendSet with what it replaces, Sort and
// AppendDistinct, on uniform values of which one in ten repeats another.
func BenchmarkSet(b *testing.B) {
	for _, n := range []int{100, 1000, 3000, 10000, 100000, 1000000} {
		r := rand.New(rand.NewPCG(1, uint64(n)))
		src := make([]uint64, n)
		for i := range src {
			src[i] = r.Uint64()
			if i > 0 && r.IntN(10) == 0 {
				src[i] = src[r.IntN(i)]
			}
		}
		a := make([]uint64, n)
		dst := make([]uint64, 0, n+1)
		b.Run("set/"+itoa(n), func(b *testing.B) {
			var s Sorter
			b.SetBytes(int64(8 * n))
			b.ReportAllocs()
			for b.Loop() {
				copy(a, src)
				dst = s.AppendSet(dst[:0], a)
			}
		})
		b.Run("sort+distinct/"+itoa(n), func(b *testing.B) {
			var s Sorter
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				copy(a, src)
				s.Sort(a)
				dst = AppendDistinct(dst[:0], a)
			}
		})
	}
}

// TestCompactNonZero: the values of a table that are not 0, in order, with
// the vector loop and without, for tables of every length up to a few
// vectors and every share of empty slots, into a slice with just the room
// compactNonZero asks for (three values past the last).
func TestCompactNonZero(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, vector := range []bool{true, false} {
		if vector && !hasAVX2 {
			continue
		}
		had := hasAVX2
		hasAVX2 = vector
		for n := range 70 {
			for _, empty := range []int{0, 1, 2, 3, 4} { // in fourths
				table := make([]uint64, n)
				var want []uint64
				for i := range table {
					if r.IntN(4) >= empty {
						table[i] = r.Uint64() | 1
						want = append(want, table[i])
					}
				}
				dst := make([]uint64, 2+len(want)+3)
				dst[0], dst[1] = 5, 6
				k := compactNonZero(dst, 2, table)
				if got := dst[2:k]; !slices.Equal(got, want) || dst[0] != 5 || dst[1] != 6 {
					t.Fatalf("vector %v, n=%d, %d/4 empty: got %x, want %x", vector, n, empty, dst[:k], want)
				}
			}
		}
		hasAVX2 = had
	}
}
