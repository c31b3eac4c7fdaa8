package verify

import (
	"math/bits"
	"slices"
)

// Bounds from counts by leading bits. Most candidate pairs of a dedup are
// below the threshold, and a merge of their sets stops only once the
// values that went unmatched leave too few to reach need
// (intersectAtLeast): two thirds of the way through at Jaccard 0.7, for
// most of verify's time. A set's histogram counts its values by their
// leading bits, in as many parts as the largest power of two not above
// its size (one or two values a part). Two sets have in common at most,
// in each part, the fewer of their two counts: the sum of those minima is
// an upper bound on their intersection, taken in one pass over a byte a
// part, and a pair it leaves below need is not merged. On make speed's
// corpus this leaves out 88 % of the merges that stop early, 79 % of the
// values the merges went through.

// minHist is the fewest values a set has a histogram for.
const minHist = 64

// appendHist appends to dst the histogram of set (ascending): its values
// counted in 2^L parts by their leading L bits, for the largest 2^L not
// above len(set); nothing when set is smaller than minHist, or a part
// has more than 255 values (not uniform hashes: no bound is taken).
func appendHist(dst []uint8, set []uint64) []uint8 {
	if len(set) < minHist {
		return dst
	}
	l := bits.Len(uint(len(set))) - 1
	start := len(dst)
	dst = slices.Grow(dst, 1<<l)[:start+1<<l]
	h := dst[start:]
	clear(h)
	shift := 64 - l
	for _, x := range set {
		k := x >> shift
		if h[k] == 255 {
			return dst[:start]
		}
		h[k]++
	}
	return dst
}

// histBytes is the length of the histogram of a set of n values, at most.
func histBytes(n int) int {
	if n < minHist {
		return 0
	}
	return 1 << (bits.Len(uint(n)) - 1)
}

// histBound returns an upper bound on the intersection of two sets from
// their histograms (appendHist), when it has one: both have a histogram,
// in as many parts or one in twice as many (its pairs of parts are summed).
// Sets of a pair at a threshold of 0.5 or more differ in size by less
// than that.
func histBound(a, b []uint8) (int, bool) {
	if len(a) < len(b) {
		a, b = b, a
	}
	switch {
	case len(b) == 0:
		return 0, false
	case len(a) == len(b):
		return histMin(a, b), true
	case len(a) == 2*len(b):
		return histMinHalf(a, b), true
	}
	return 0, false
}

// histMinGo is histMin's loop: the sum of the minima of a[k] and b[k].
func histMinGo(a, b []uint8) int {
	s := 0
	for k, x := range a {
		s += int(min(x, b[k]))
	}
	return s
}

// histMinHalfGo is histMinHalf's loop: the sum of the minima of
// a[2k]+a[2k+1] and b[k].
func histMinHalfGo(a, b []uint8) int {
	s := 0
	for k, y := range b {
		s += min(int(a[2*k])+int(a[2*k+1]), int(y))
	}
	return s
}
