package shingle

import (
	"math/bits"
	"slices"

	"github.com/neardup/neardup/internal/hashsort"
)

// distinctSet removes repeated hashes without sorting them: a table of
// open addressing, cleared for each document. A sketch that is the
// minimum of functions over the set (MinHash, one-permutation hashing)
// needs the distinct hashes and their number, not their order, and this
// takes about half the time of hashsort and a compaction (shingle --sketch
// on real text; BenchmarkDistinct).
type distinctSet struct {
	table  []uint64
	sorter hashsort.Sorter
}

// appendDistinct appends to dst the distinct values of hashes, in the order
// of their first occurrence, or ascending when the hashes are not uniform
// enough for the table (more than hashsort.MaxProbes probes a value).
// hashes is left in no particular order.
func (d *distinctSet) appendDistinct(dst, hashes []uint64) []uint64 {
	n := len(hashes)
	if n < 2 {
		return append(dst, hashes...)
	}
	b := bits.Len(uint(2*n - 1)) // a table of 2n to 4n slots
	if cap(d.table) < 1<<b {
		d.table = make([]uint64, 1<<b)
	}
	table := d.table[:1<<b]
	clear(table)
	mask := uint64(len(table) - 1)
	shift := 64 - b
	start := len(dst)
	// 0 marks an empty slot: the hash 0 is kept apart.
	zero := false
	budget := hashsort.MaxProbes * n
	for _, x := range hashes {
		if x == 0 {
			zero = true
			continue
		}
		// The top bits of x times an odd constant: the slot depends on
		// all of x, whatever bits of it vary.
		i := (x * 0x9e3779b97f4a7c15) >> shift
		for {
			v := table[i]
			if v == x {
				break
			}
			if v == 0 {
				table[i] = x
				dst = append(dst, x)
				break
			}
			if budget--; budget < 0 {
				hashsort.NoteCrowded()
				d.sorter.Sort(hashes)
				return append(dst[:start], slices.Compact(hashes)...)
			}
			i = (i + 1) & mask
		}
	}
	if zero {
		dst = append(dst, 0)
	}
	return dst
}
