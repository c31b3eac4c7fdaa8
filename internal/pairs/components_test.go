package pairs

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// capComponents returns the connected components (as a root per document)
// of the pairs of buckets that verify, every pair of a bucket tried, or
// with maxBucket > 0 the pairs capPairs keeps.
func capComponents(buckets [][]int, n, maxBucket int, verified func(a, b int) bool) []int {
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, b := range buckets {
		capPairs(len(b), bucketCap{max: maxBucket, reps: maxBucket}, nil, func(x, y int) error {
			if verified(b[x], b[y]) {
				parent[find(b[x])] = find(b[y])
			}
			return nil
		})
	}
	roots := make([]int, n)
	for i := range roots {
		roots[i] = find(i)
	}
	return roots
}

// compareComponents counts the components of got and want and the
// documents whose component in got is not their whole component in want.
func compareComponents(got, want []int) (nGot, nWant, split int) {
	count := func(r []int) int {
		m := map[int]bool{}
		for _, x := range r {
			m[x] = true
		}
		return len(m)
	}
	// A document is split off when its got-component is smaller than its
	// want-component.
	size := func(r []int) map[int]int {
		m := map[int]int{}
		for _, x := range r {
			m[x]++
		}
		return m
	}
	sg, sw := size(got), size(want)
	for i := range got {
		if sg[got[i]] < sw[want[i]] {
			split++
		}
	}
	return count(got), count(want), split
}

// TestCapComponents measures how far the clusters of capped pairs are from
// the exact components: 40 groups of 30 variants of a document of 100
// tokens (each variant replaces up to 8 of them), each group one bucket,
// a pair verified at Jaccard >= 0.8, --max-bucket 4: the stars find 41
// components where there are 40, one group of 30 split in two (those of
// its variants that verify with none of its 4 first documents). A chain
// (each document a near-duplicate of the next only) in one bucket is the
// worst case: the representatives reach only their neighbours, 16
// components instead of 1. The figures are in pairs' man page.
func TestCapComponents(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	const groups, size, tokens = 40, 30, 100
	var sets []map[int]bool
	var buckets [][]int
	for g := range groups {
		var b []int
		for range size {
			s := map[int]bool{}
			for i := range tokens {
				s[g*1000+i] = true
			}
			for range rng.IntN(9) {
				delete(s, g*1000+rng.IntN(tokens))
				s[g*1000+500+rng.IntN(400)] = true
			}
			b = append(b, len(sets))
			sets = append(sets, s)
		}
		buckets = append(buckets, b)
	}
	jaccard := func(a, b int) float64 {
		inter := 0
		for x := range sets[a] {
			if sets[b][x] {
				inter++
			}
		}
		return float64(inter) / float64(len(sets[a])+len(sets[b])-inter)
	}
	verified := func(a, b int) bool { return jaccard(a, b) >= 0.8 }
	exact := capComponents(buckets, len(sets), 0, verified)
	capped := capComponents(buckets, len(sets), 4, verified)
	nGot, nWant, split := compareComponents(capped, exact)
	t.Logf("groups of variants: %d components capped, %d exact, %d of %d documents split off", nGot, nWant, split, len(sets))
	if want := fmt.Sprint(41, 40, 30); fmt.Sprint(nGot, nWant, split) != want {
		t.Errorf("groups of variants: components capped, exact, split = %d %d %d; want %s (update pairs' man page)", nGot, nWant, split, want)
	}

	// A chain of 20 documents in one bucket: i verifies with i+1 only.
	chain := []int{}
	for i := range 20 {
		chain = append(chain, i)
	}
	next := func(a, b int) bool { return b == a+1 || a == b+1 }
	exact = capComponents([][]int{chain}, 20, 0, next)
	capped = capComponents([][]int{chain}, 20, 4, next)
	nGot, nWant, split = compareComponents(capped, exact)
	t.Logf("a chain of 20: %d components capped, %d exact, %d documents split off", nGot, nWant, split)
	if want := fmt.Sprint(16, 1, 20); fmt.Sprint(nGot, nWant, split) != want {
		t.Errorf("a chain of 20 with --max-bucket 4: components, exact, split = %d %d %d; want %s", nGot, nWant, split, want)
	}
}
