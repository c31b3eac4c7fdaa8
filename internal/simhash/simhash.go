// Package simhash computes Charikar's SimHash fingerprints of weighted
// feature sets and the Hamming distance between them.
//
// A document is a set of distinct features (64-bit shingle hashes), each with
// a weight. Every feature is turned into f pseudo-random bits; an f-counter
// vector starts at zero and each feature adds its weight to counter i when
// its bit i is 1 and subtracts it when the bit is 0, once per distinct
// feature. Bit i of the fingerprint is 1 when counter i ends above zero, 0
// when it ends at or below zero (a tie gives 0, so the empty document is all
// zeros). For two weighted vectors u, v at angle θ each bit differs with
// probability close to θ/π (Charikar 2002: the bits are signs of random ±1
// projections, nearly Gaussian when no single feature dominates), so the
// Hamming distance of the fingerprints estimates the angle.
//
// # Feature bits
//
// The bits of a feature must be independent of the bits of every other
// feature: a weak hash (FNV-1 of short words) puts unrelated documents
// within a few bits of each other. Feature h gets its first 64 bits from
// Mix(h ^ k0) and, for f = 128, the next 64 from Mix(h ^ k1), where Mix is
// the SplitMix64 finaliser (a bijection whose every output bit depends on
// every input bit) and k0, k1 are drawn from the seed. Shingle hashes are
// already well mixed; mixing them again costs a few nanoseconds and protects
// against upstream programs that write weaker hashes.
//
// # Bit order
//
// Fingerprint bit 0 is the most significant bit of Hi, as the fingerprint is
// written in hexadecimal from left to right; a 64-bit fingerprint lives in
// Hi with Lo zero. A 128-bit fingerprint is Hi then Lo.
package simhash

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/neardup/neardup/internal/mix"
)

// Fingerprint is a SimHash fingerprint of up to 128 bits, left-aligned: a
// 64-bit fingerprint is Hi, with Lo zero.
type Fingerprint struct {
	Hi, Lo uint64
}

// Distance returns the Hamming distance of two fingerprints.
func Distance(a, b Fingerprint) int {
	return bits.OnesCount64(a.Hi^b.Hi) + bits.OnesCount64(a.Lo^b.Lo)
}

// Distance64 returns the Hamming distance of two 64-bit fingerprints.
func Distance64(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// Mix is the SplitMix64 finaliser, a bijection of the 64-bit words.
func Mix(x uint64) uint64 { return mix.SplitMix(x) }

// Keys returns the two keys that the seed gives the feature bits.
func Keys(seed uint64) (k0, k1 uint64) {
	return Mix(seed ^ 0x243f6a8885a308d3), Mix(seed ^ 0xa4093822299f31d0)
}

// Sketcher accumulates weighted features into a fingerprint. The zero value
// is not usable; make one with New. A Sketcher is not safe for concurrent
// use.
//
// Features come either with a count (AddCount: the weight is a function of
// the count) or with an arbitrary weight (Add). Counted features are grouped
// by count, and each group counts, for every bit position, how many of its
// features have that bit set, in eight bit-planes: adding a feature is a
// ripple-carry add of its 64 bits into the planes, about twenty word
// operations instead of 64 floating-point additions. The counts are folded
// into the counters with the group's weight when the fingerprint is taken.
type Sketcher struct {
	f      int
	weight Weight
	k0, k1 uint64
	acc    [128]float64
	used   uint32 // bit c: group c holds features
	groups [maxGroup]group
}

// maxGroup bounds the counts that are grouped; features with larger counts
// go through the floating-point path.
const maxGroup = 16

// group counts the bits of the features that share one count.
type group struct {
	n      int64        // features in the group
	planes [2][8]uint64 // bit j of each position's count, per word
	pn     int          // features in the planes (at most 255)
	ones   [128]int64   // counts folded out of the planes
}

// New returns a Sketcher of f bits (64 or 128) whose feature bits are drawn
// from seed, weighing counted features by weight (which must not be IDF:
// IDF weights are given to Add).
func New(f int, seed uint64, weight Weight) (*Sketcher, error) {
	if f != 64 && f != 128 {
		return nil, fmt.Errorf("fingerprint length %d: want 64 or 128", f)
	}
	s := &Sketcher{f: f, weight: weight}
	s.k0, s.k1 = Keys(seed)
	return s, nil
}

// Bits returns f.
func (s *Sketcher) Bits() int { return s.f }

// Reset clears the counters for a new document.
func (s *Sketcher) Reset() {
	clear(s.acc[:s.f])
	for u := s.used; u != 0; u &= u - 1 {
		g := &s.groups[bits.TrailingZeros32(u)]
		g.n, g.pn = 0, 0
		g.planes = [2][8]uint64{}
		clear(g.ones[:s.f])
	}
	s.used = 0
}

// Add adds one distinct feature with its weight. A weight may be any finite
// number; a zero weight changes nothing.
func (s *Sketcher) Add(h uint64, w float64) {
	wb := math.Float64bits(w)
	addBits(&s.acc, Mix(h^s.k0), wb, 0)
	if s.f == 128 {
		addBits(&s.acc, Mix(h^s.k1), wb, 64)
	}
}

// AddCount adds one distinct feature that occurs count (≥ 1) times, weighed
// by the Sketcher's weight.
func (s *Sketcher) AddCount(h uint64, count uint32) {
	if count >= maxGroup || s.weight == IDF {
		s.Add(h, s.weight.Of(count))
		return
	}
	c := count
	if s.weight == Binary {
		c = 1
	}
	g := &s.groups[c]
	s.used |= 1 << c
	if g.pn == 255 {
		g.fold(s.f)
	}
	g.n++
	g.pn++
	addPlanes(&g.planes[0], Mix(h^s.k0))
	if s.f == 128 {
		addPlanes(&g.planes[1], Mix(h^s.k1))
	}
}

// addPlanes adds 1 to the count of every position where x has a 1 bit: plane
// j holds bit j of the counts, and the carry ripples through the eight
// planes (counts stay below 256: the group is folded before).
func addPlanes(p *[8]uint64, x uint64) {
	c := x
	t := p[0] & c
	p[0] ^= c
	c = t
	t = p[1] & c
	p[1] ^= c
	c = t
	t = p[2] & c
	p[2] ^= c
	c = t
	t = p[3] & c
	p[3] ^= c
	c = t
	t = p[4] & c
	p[4] ^= c
	c = t
	t = p[5] & c
	p[5] ^= c
	c = t
	t = p[6] & c
	p[6] ^= c
	c = t
	p[7] ^= c
}

// fold moves the counts held in the planes into ones and clears the planes.
func (g *group) fold(f int) {
	depth := bits.Len(uint(g.pn))
	for w := 0; w < f/64; w++ {
		ones := (*[64]int64)(g.ones[64*w : 64*w+64])
		for j := 0; j < depth; j++ {
			p := g.planes[w][j]
			for i := range ones {
				ones[i] += int64(p>>(63-i)&1) << j
			}
		}
	}
	g.planes = [2][8]uint64{}
	g.pn = 0
}

// addBits adds +w to acc[off+i] where bit 63-i of x is 1 and -w where it is
// 0, without branches: flipping the sign bit of w is an exclusive or.
func addBits(acc *[128]float64, x, wb uint64, off int) {
	a := (*[64]float64)(acc[off : off+64])
	for i := 0; i < 64; i += 4 {
		y := ^x << i
		a[i] += math.Float64frombits(wb ^ y&(1<<63))
		a[i+1] += math.Float64frombits(wb ^ y<<1&(1<<63))
		a[i+2] += math.Float64frombits(wb ^ y<<2&(1<<63))
		a[i+3] += math.Float64frombits(wb ^ y<<3&(1<<63))
	}
}

// Fingerprint returns the fingerprint of the features added since the last
// Reset.
func (s *Sketcher) Fingerprint() Fingerprint {
	acc := s.acc
	for u := s.used; u != 0; u &= u - 1 {
		c := bits.TrailingZeros32(u)
		g := &s.groups[c]
		if g.pn > 0 {
			g.fold(s.f)
		}
		w := s.weight.Of(uint32(c))
		for i := 0; i < s.f; i++ {
			// Each feature adds +w where its bit is 1 and -w where it
			// is 0: w·(ones - (n - ones)).
			acc[i] += w * float64(2*g.ones[i]-g.n)
		}
	}
	fp := Fingerprint{Hi: signBits(&acc, 0)}
	if s.f == 128 {
		fp.Lo = signBits(&acc, 64)
	}
	return fp
}

// signBits returns the word whose bit 63-i is 1 when acc[off+i] > 0.
func signBits(acc *[128]float64, off int) uint64 {
	a := (*[64]float64)(acc[off : off+64])
	var v uint64
	for i := range a {
		// A positive number's bits are above 0 and below the sign bit;
		// subtracting 1 sets the top bit for +0 and keeps it for negative
		// numbers (-0 never arises from sums that start at +0).
		pos := (math.Float64bits(a[i])-1)>>63 ^ 1
		v |= pos << (63 - i)
	}
	return v
}

// Sum returns the fingerprint of the features hashes with weights (of the
// same length).
func (s *Sketcher) Sum(hashes []uint64, weights []float64) Fingerprint {
	s.Reset()
	weights = weights[:len(hashes)]
	for i, h := range hashes {
		s.Add(h, weights[i])
	}
	return s.Fingerprint()
}

// SumCounts returns the fingerprint of the features hashes with counts (of
// the same length), weighed by the Sketcher's weight.
func (s *Sketcher) SumCounts(hashes []uint64, counts []uint32) Fingerprint {
	s.Reset()
	counts = counts[:len(hashes)]
	for i, h := range hashes {
		s.AddCount(h, counts[i])
	}
	return s.Fingerprint()
}
