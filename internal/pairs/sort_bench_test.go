package pairs

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func BenchmarkSortEntries(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	src := make([]entry, 1<<21)
	for i := range src {
		src[i] = entry{key: key128{uint64(r.IntN(18)), r.Uint64()}, doc: uint32(r.IntN(100000))}
	}
	a := make([]entry, len(src))
	b.Run("scatter", func(b *testing.B) {
		for b.Loop() {
			copy(a, src)
			sortEntries(a, 1)
		}
	})
	b.Run("pdqsort", func(b *testing.B) {
		for b.Loop() {
			copy(a, src)
			slices.SortFunc(a, compareEntries)
		}
	})
}
