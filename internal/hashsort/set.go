package hashsort

import (
	"math/bits"
	"slices"
	"sync/atomic"
)

// crowded counts the sets whose values crowded one part of a table of
// hashes (AppendSet's, or another that gives up as it does) so that they
// were sorted instead: the same result in more time, and a sign of values
// that are not uniform hashes, or were chosen to collide.
var crowded atomic.Int64

// Crowded returns how many sets were sorted because their values crowded
// a table, in this process.
func Crowded() int64 { return crowded.Load() }

// NoteCrowded counts one set sorted because its values crowded a table.
func NoteCrowded() { crowded.Add(1) }

// MaxProbes is how many slots the values put in a hash table of open
// addressing (AppendSet's, shingle's distinct set, OPH's count) may look at
// on average before the table is given up for a sort (NoteCrowded): uniform
// hashes in a table at most half full look at about two, but values chosen
// to share their slots (an adversary knows the scheme) would take a time
// quadratic in their number.
const MaxProbes = 8

// slack is how many slots the table has past the last home slot, for the
// values a run of full slots carries past the end.
const slack = 64

// AppendSet appends to dst the distinct values of a, ascending; a is left
// in no particular order. It is what sorting a and keeping each value once
// gives, in one pass instead of two and a compaction: each value goes into
// a table of 2 to 4 slots a value, at the slot its leading bits name, and a
// run of full slots is kept in order as it is probed (an ordered hash table,
// Amble and Knuth, 1974), so the table read from start to end is the sorted
// set, and a repeat is met where it would go. Values that are not uniform
// enough for the table (more than MaxProbes slots looked at a value, or a
// run past its end) are sorted instead. Where the CPU has AVX-512 the
// table is appendBuckets' instead.
func (s *Sorter) AppendSet(dst, a []uint64) []uint64 {
	n := len(a)
	if n < smallSort {
		insertion(a, a)
		return AppendDistinct(dst, a)
	}
	if d, ok := s.appendBuckets(dst, a); ok {
		return d
	}
	b := bits.Len(uint(n)) + 1 // 2^b is 2n to 4n
	shift := 64 - b
	size := 1<<b + slack
	if cap(s.tmp) < size {
		s.tmp = make([]uint64, size)
	}
	table := s.tmp[:size]
	clear(table) // 0 is an empty slot: the value 0 is kept apart
	zero := false
	budget := MaxProbes * n
	for _, x := range a {
		if x == 0 {
			zero = true
			continue
		}
		i := int(x >> shift)
		for {
			if i == size || budget == 0 {
				NoteCrowded()
				clear(table)
				s.Sort(a)
				return AppendDistinct(dst, a)
			}
			budget--
			v := table[i]
			if v == 0 {
				table[i] = x
				break
			}
			if v == x {
				break
			}
			if v > x {
				// x goes here; the larger value moves one slot on.
				table[i], x = x, v
			}
			i++
		}
	}
	start := len(dst)
	// Room for the values and three more (compactRun's stores).
	dst = slices.Grow(dst, n+4)[:start+n+4]
	k := start
	if zero {
		dst[k] = 0
		k++
	}
	return dst[:compactNonZero(dst, k, table)]
}

// compactNonZero writes the values of table that are not 0 to dst from k
// on, in order, and returns where they end; dst must have room for three
// more values past the last.
func compactNonZero(dst []uint64, k int, table []uint64) int {
	k, done := compactRun(dst, k, table)
	// Branch-free: a slot is full or not at random.
	for _, v := range table[done:] {
		dst[k] = v
		k += int((v | -v) >> 63)
	}
	return k
}
