// Package hashsort sorts slices of 64-bit hashes. Hashes are close to
// uniformly distributed, so one pass that scatters them into about n buckets
// by their leading bits, followed by an insertion sort of each (tiny)
// bucket, sorts them in linear time. A bucket that turns out large (input
// that is not uniform) is sorted by comparison instead, so the worst case
// stays O(n log n).
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
}

// smallSort is the size below which comparison sorting is used directly.
const smallSort = 64

// Sort sorts a in ascending order.
func (s *Sorter) Sort(a []uint64) {
	n := len(a)
	if n < smallSort {
		insertion(a)
		return
	}
	b := bits.Len(uint(n)) - 1
	shift := 64 - b
	nb := 1 << b
	if cap(s.counts) < nb+1 {
		s.counts = make([]uint32, nb+1)
	}
	counts := s.counts[:nb+1]
	clear(counts)
	for _, x := range a {
		counts[x>>shift+1]++
	}
	for i := 1; i <= nb; i++ {
		counts[i] += counts[i-1]
	}
	if cap(s.tmp) < n {
		s.tmp = make([]uint64, n)
	}
	tmp := s.tmp[:n]
	// counts[i] is now the start of bucket i; advance as we place.
	for _, x := range a {
		i := x >> shift
		tmp[counts[i]] = x
		counts[i]++
	}
	// counts[i] is the end of bucket i, the start of bucket i+1.
	start := uint32(0)
	for i := 0; i < nb; i++ {
		end := counts[i]
		bucket := tmp[start:end]
		switch {
		case len(bucket) < 2:
		case len(bucket) <= 16:
			insertion(bucket)
		default:
			slices.Sort(bucket)
		}
		start = end
	}
	copy(a, tmp)
}

func insertion(a []uint64) {
	for i := 1; i < len(a); i++ {
		x := a[i]
		j := i
		for j > 0 && a[j-1] > x {
			a[j] = a[j-1]
			j--
		}
		a[j] = x
	}
}
