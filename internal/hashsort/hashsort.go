// Package hashsort sorts slices of 64-bit hashes. Hashes are close to
// uniformly distributed, so one pass that scatters them into 1 to 2 buckets
// per value by their leading bits, followed by one insertion pass over the
// whole (which moves each value only within its tiny bucket), sorts them in
// linear time. Buckets that turn out large (input that is not uniform) are
// sorted by comparison first, so the worst case stays O(n log n).
package hashsort

import (
	"math/bits"
	"slices"
)

// Sorter keeps scratch space between calls; it is not safe for concurrent
// use.
type Sorter struct {
	tmp    []uint64
	counts []uint32
	table  []uint64 // AppendSet's buckets
	over   []uint64 // the values AppendSet's full buckets turn away
}

// smallSort is the size below which comparison sorting is used directly.
const smallSort = 64

// Sort sorts a in ascending order.
func (s *Sorter) Sort(a []uint64) { s.SortShared(a, 0) }

// SortShared sorts a in ascending order when the top bits of its values
// (top of them) are the same in all: a part of hashes already
// cut by their top bits. The values are spread by the bits after those.
func (s *Sorter) SortShared(a []uint64, top int) {
	n := len(a)
	if n < smallSort {
		insertion(a, a)
		return
	}
	b := bits.Len(uint(n))
	shift := 64 - top - b
	if shift < 0 {
		slices.Sort(a)
		return
	}
	mask := uint64(1)<<b - 1
	nb := 1 << b
	if cap(s.counts) < nb+1 {
		s.counts = make([]uint32, nb+1)
	}
	counts := s.counts[:nb+1]
	clear(counts)
	for _, x := range a {
		counts[x>>shift&mask+1]++
	}
	large := uint32(0) // the largest bucket
	for i := 1; i <= nb; i++ {
		large = max(large, counts[i])
		counts[i] += counts[i-1]
	}
	if cap(s.tmp) < n {
		s.tmp = make([]uint64, n)
	}
	tmp := s.tmp[:n]
	// counts[i] is now the start of bucket i; advance as we place.
	for _, x := range a {
		i := x >> shift & mask
		tmp[counts[i]] = x
		counts[i]++
	}
	// counts[i] is the end of bucket i, the start of bucket i+1.
	if large > 16 {
		// Input that is not uniform: sort the large buckets by comparison
		// so that the insertion below stays linear.
		start := uint32(0)
		for i := 0; i < nb; i++ {
			end := counts[i]
			if end-start > 16 {
				slices.Sort(tmp[start:end])
			}
			start = end
		}
	}
	// Every value is in its bucket, and buckets are in order: one insertion
	// pass moves each value at most across its own (small) bucket. Done
	// while copying back, without a branch per bucket.
	insertion(a, tmp)
}

// insertion sorts src into dst by insertion (dst may be src itself).
func insertion(dst, src []uint64) {
	for i, x := range src {
		j := i
		for j > 0 && dst[j-1] > x {
			dst[j] = dst[j-1]
			j--
		}
		dst[j] = x
	}
}

// AppendDistinct appends to dst the values of a, sorted, each once. The
// loop has no branch on whether a value repeats: a document's shingles
// repeat at random, and the branch mispredicted cost about three times
// what the loop takes without it (BenchmarkAppendDistinct).
func AppendDistinct(dst, a []uint64) []uint64 {
	if len(a) == 0 {
		return dst
	}
	start := len(dst)
	dst = slices.Grow(dst, len(a))[:start+len(a)]
	k := start
	prev := ^a[0]
	for _, x := range a {
		dst[k] = x
		d := x ^ prev
		k += int((d | -d) >> 63) // 1 when x differs from the value before
		prev = x
	}
	return dst[:k]
}
