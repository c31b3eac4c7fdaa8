package pairs

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// BenchmarkSortEntries sorts the band records of about 100,000 and a
// million documents (18 bands), on one core and two, and by pdqsort.
func BenchmarkSortEntries(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1 << 21, 18 << 20} {
		src := make([]entry, n)
		for i := range src {
			src[i] = entry{key: key128{uint64(r.IntN(18)), r.Uint64()}, doc: uint32(r.IntN(n / 18))}
		}
		a := make([]entry, len(src))
		for _, jobs := range []int{1, 2} {
			b.Run(fmt.Sprintf("n=%d/scatter/jobs=%d", n, jobs), func(b *testing.B) {
				for b.Loop() {
					copy(a, src)
					sortEntries(a, jobs)
				}
			})
		}
		if n > 1<<21 {
			continue
		}
		b.Run(fmt.Sprintf("n=%d/pdqsort", n), func(b *testing.B) {
			for b.Loop() {
				copy(a, src)
				slices.SortFunc(a, compareEntries)
			}
		})
	}
}
