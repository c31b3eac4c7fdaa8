package pairs

import (
	"math/bits"

	"github.com/neardup/neardup/internal/bbit"
	"github.com/neardup/neardup/internal/mix"
)

// recentPairs remembers the pairs of documents tried last, in a table of
// slots addressed by a hash of the pair, with what the b-bit judge said of
// each: a pair that two documents' keys make in band after band (the
// variants of a page share most of their buckets) is judged and held
// once, its later tries counted as the first was (tried, set aside). A
// slot holds the last pair that fell in it; the pairs are kept whole, so a
// pair is never mistaken for another, and one forgotten is only tried again.
type recentPairs struct {
	pairs   []uint64 // a<<32 | b, with a < b: 0 is no pair
	verdict []uint8  // the counts the judge added (judged)
	shift   uint
}

// The verdicts: what a pair's judging added to the counts.
const (
	judgedKept uint8 = iota
	judgedUnsigned
	judgedBySize
	judgedBySignature
)

// recentSlotBytes is the memory of a slot.
const recentSlotBytes = 9

// newRecentPairs makes a table for about n tries: a power of two slots
// from 2^12 to 2^19 (4.5 MiB).
func newRecentPairs(n int) *recentPairs {
	b := min(max(bits.Len(uint(n/4)), 12), 19)
	return &recentPairs{pairs: make([]uint64, 1<<b), verdict: make([]uint8, 1<<b), shift: uint(64 - b)}
}

// bytes is the table's memory.
func (r *recentPairs) bytes() int64 { return int64(len(r.pairs)) * recentSlotBytes }

// slot returns the slot of pair p and whether it holds p.
func (r *recentPairs) slot(p uint64) (int, bool) {
	i := int(mix.Murmur(p) >> r.shift)
	return i, r.pairs[i] == p
}

// judged returns the verdict of the counts c added judging a pair, from
// before.
func judged(before, c *bbit.Counts) uint8 {
	switch {
	case c.BySize > before.BySize:
		return judgedBySize
	case c.BySignature > before.BySignature:
		return judgedBySignature
	case c.Unsigned > before.Unsigned:
		return judgedUnsigned
	}
	return judgedKept
}

// replay counts a pair judged before as it was counted then, and tells
// whether it was set aside.
func replay(c *bbit.Counts, v uint8) (far bool) {
	c.Pairs++
	switch v {
	case judgedUnsigned:
		c.Unsigned++
	case judgedBySize:
		c.BySize++
		return true
	case judgedBySignature:
		c.BySignature++
		return true
	}
	return false
}
