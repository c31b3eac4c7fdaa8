package shingle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/hashsort"
)

// sortedDistinct is the set appendDistinct must give, ascending.
func sortedDistinct(hashes []uint64) []uint64 {
	s := slices.Clone(hashes)
	slices.Sort(s)
	return slices.Compact(s)
}

// Random hashes with repeats, 0 among them or not, of every size up to a
// few thousand: the distinct values, each once, after what dst held.
func TestAppendDistinct(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var d distinctSet
	for _, n := range []int{0, 1, 2, 3, 10, 100, 1000, 5000} {
		for _, withZero := range []bool{false, true} {
			hashes := make([]uint64, n)
			for i := range hashes {
				if i > 0 && r.IntN(3) == 0 {
					hashes[i] = hashes[r.IntN(i)] // a repeat
				} else {
					hashes[i] = r.Uint64()
				}
			}
			if withZero && n > 0 {
				hashes[r.IntN(n)] = 0
			}
			want := sortedDistinct(hashes)
			got := d.appendDistinct([]uint64{42}, slices.Clone(hashes))
			if got[0] != 42 {
				t.Fatalf("n=%d: what dst held is gone", n)
			}
			got = got[1:]
			// First occurrences, in order (0 last).
			seen := map[uint64]bool{}
			var first []uint64
			for _, h := range hashes {
				if h != 0 && !seen[h] {
					seen[h] = true
					first = append(first, h)
				}
			}
			if withZero && n > 0 {
				first = append(first, 0)
			}
			if !slices.Equal(got, first) {
				t.Fatalf("n=%d zero=%v: got %d values, want the %d distinct ones in the order of first occurrence", n, withZero, len(got), len(first))
			}
			if !slices.Equal(sortedDistinct(got), want) {
				t.Fatalf("n=%d: not the distinct set", n)
			}
		}
	}
}

// Hashes made to share one slot (x·C ≡ k, k small: the top bits are 0)
// would take quadratic time in the table: the set sorts them instead, and
// still gives each distinct value once.
func TestAppendDistinctAdversarial(t *testing.T) {
	// The inverse of the odd multiplier mod 2^64, by Newton's iteration.
	const c = 0x9e3779b97f4a7c15
	inv := uint64(c)
	for range 6 {
		inv *= 2 - c*inv
	}
	if inv*c != 1 {
		t.Fatal("no inverse")
	}
	n := 20000
	hashes := make([]uint64, 2*n)
	for k := range n {
		hashes[k] = uint64(k+1) * inv
		hashes[n+k] = uint64(n-k) * inv // each again
	}
	want := sortedDistinct(hashes)
	var d distinctSet
	got := d.appendDistinct(nil, slices.Clone(hashes))
	if !slices.Equal(got, want) {
		t.Fatalf("got %d values, want the %d distinct ones ascending (sorted after too many probes)", len(got), len(want))
	}
}

// BenchmarkDistinct compares the set with sorting and compacting, on
// hashes of which 40 % repeat, as a document's shingles do. Each n cycles
// through several documents (64 of the smaller sizes), not one: on one,
// repeated thousands of times, the branch predictor learns which hashes
// repeat, and the set took 4 ns a hash against 10 on a crawl's real
// shingles.
func BenchmarkDistinct(b *testing.B) {
	for _, n := range []int{100, 1500, 20000, 200000} {
		r := rand.New(rand.NewPCG(1, uint64(n)))
		docs := make([][]uint64, min(64, max(4, 1<<20/n)))
		for d := range docs {
			src := make([]uint64, n)
			for i := range src {
				if i > 0 && r.IntN(10) < 4 {
					src[i] = src[r.IntN(i)]
				} else {
					src[i] = r.Uint64()
				}
			}
			docs[d] = src
		}
		a := make([]uint64, n)
		b.Run(fmt.Sprintf("sort/n=%d", n), func(b *testing.B) {
			var w Worker
			i := 0
			for b.Loop() {
				copy(a, docs[i%len(docs)])
				i++
				w.sorter.Sort(a)
				_ = slices.Compact(a)
			}
		})
		b.Run(fmt.Sprintf("set/n=%d", n), func(b *testing.B) {
			var d distinctSet
			var dst []uint64
			i := 0
			for b.Loop() {
				copy(a, docs[i%len(docs)])
				i++
				dst = d.appendDistinct(dst[:0], a)
			}
		})
	}
}

// A set that crowds the table is counted, and a run's report names the
// ones counted since it began, and says nothing when there are none.
func TestReportCrowded(t *testing.T) {
	since := hashsort.Crowded()
	var b strings.Builder
	ReportCrowded(&b, "shingle", since)
	if b.Len() != 0 {
		t.Fatalf("nothing crowded, yet: %q", b.String())
	}
	// Hashes whose slots (the top bits of x times the constant) are all
	// one: x is the constant's inverse (mod 2^64) times a value with those
	// top bits. The distinct set gives up its table and sorts them.
	const c = 0x9e3779b97f4a7c15
	inv := uint64(c)
	for range 6 {
		inv *= 2 - c*inv // Newton's step: twice the bits right
	}
	hashes := make([]uint64, 1000)
	for i := range hashes {
		hashes[i] = inv * (0xabcdef<<40 | uint64(i))
	}
	var d distinctSet
	if got := d.appendDistinct(nil, hashes); len(got) != 1000 {
		t.Fatalf("%d distinct, want 1000", len(got))
	}
	ReportCrowded(&b, "shingle", since)
	if want := "shingle: 1 document(s) had shingle hashes that crowded"; !strings.HasPrefix(b.String(), want) {
		t.Fatalf("report %q, want it to start %q", b.String(), want)
	}
}
