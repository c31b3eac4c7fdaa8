package seen

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/neardup/neardup/internal/mix"
)

// Filter is a Bloom filter of 64-bit keys (the n-gram hashes): Bits bits,
// Hashes probe positions a key, derived from the key by double hashing
// (Kirsch and Mitzenmacher 2006): probe i is h1 + i·h2, h1 the key, h2 the
// key mixed again and made odd, mapped into [0, Bits) by the high half of
// its product with Bits (Lemire's multiply-shift, no division). The key is
// a hash already, so no further hashing is needed for h1.
type Filter struct {
	words  []uint64
	bits   uint64
	hashes int
}

// MaxHashes bounds the number of hash functions: past it a filter of any
// false-positive rate worth having is not smaller.
const MaxHashes = 32

// NewFilter returns an empty filter of m bits (m a multiple of 64, at least
// 64) and k hash functions.
func NewFilter(m uint64, k int) *Filter {
	if m < 64 || m%64 != 0 || k < 1 || k > MaxHashes {
		panic(fmt.Sprintf("seen: filter of %d bits and %d hashes", m, k))
	}
	return &Filter{words: make([]uint64, m/64), bits: m, hashes: k}
}

// Bits is the filter's size in bits, Hashes its number of hash functions.
func (f *Filter) Bits() uint64 { return f.bits }
func (f *Filter) Hashes() int  { return f.hashes }

// second is the step of the probes of key h.
func second(h uint64) uint64 { return mix.Murmur(h^0x243f6a8885a308d3) | 1 }

// Has reports whether every probe bit of h is set: h was added, or (with
// the filter's false-positive rate) was not. The loads are independent of
// each other, so that the processor can have them all under way at once.
func (f *Filter) Has(h uint64) bool {
	g, step := h, second(h)
	all := uint64(1)
	for range f.hashes {
		p, _ := bits.Mul64(g, f.bits)
		all &= f.words[p>>6] >> (p & 63)
		g += step
	}
	return all&1 != 0
}

// Add sets the probe bits of h and reports whether one of them was not set
// (h is new to the filter as far as it can tell).
func (f *Filter) Add(h uint64) bool {
	g, step := h, second(h)
	var added uint64
	for range f.hashes {
		p, _ := bits.Mul64(g, f.bits)
		w, b := &f.words[p>>6], uint64(1)<<(p&63)
		added |= ^*w & b
		*w |= b
		g += step
	}
	return added != 0
}

// Ones counts the bits set.
func (f *Filter) Ones() uint64 {
	var n int
	for _, w := range f.words {
		n += bits.OnesCount64(w)
	}
	return uint64(n)
}

// FalsePositiveRate is the chance that a key never added is found, with
// the bits set now: the fraction set to the power of the hash count (each
// probe of an absent key lands on a bit independently, to a very good
// approximation for a filter of thousands of bits or more).
func (f *Filter) FalsePositiveRate() float64 {
	return math.Pow(float64(f.Ones())/float64(f.bits), float64(f.hashes))
}

// EstimatedKeys estimates the number of distinct keys added from the bits
// set, X of m (Swamidass and Baldi 2007): −(m/k)·ln(1 − X/m).
func (f *Filter) EstimatedKeys() float64 {
	x, m := float64(f.Ones()), float64(f.bits)
	if x >= m {
		return math.Inf(1)
	}
	return -m / float64(f.hashes) * math.Log1p(-x/m)
}

// TheoreticalRate is the false-positive rate of a filter of m bits and k
// hash functions holding n distinct keys: (1 − e^(−kn/m))^k.
func TheoreticalRate(m uint64, k int, n float64) float64 {
	return math.Pow(-math.Expm1(-float64(k)*n/float64(m)), float64(k))
}

// Sizing is the size of a filter and what it was sized for.
type Sizing struct {
	// Bits and Hashes are the filter's size and hash count.
	Bits   uint64
	Hashes int
	// Expected is the number of distinct n-grams the filter is for, and
	// Rate its false-positive rate when it holds that many.
	Expected int64
	Rate     float64
}

// ln2 squared: the bits a key of an optimal filter are −ln(p)/ln2².
const ln2sq = math.Ln2 * math.Ln2

// Size sizes a filter from two of: the distinct n-grams it is to hold
// (expected), its false-positive rate at that many (rate), its memory in
// bytes. Expected and rate: m = −n·ln(p)/ln2² bits, k = (m/n)·ln 2. Memory
// and rate: m from the memory, k = −log2(p), and it holds −m·ln2²/ln(p)
// n-grams at that rate. Expected and memory: m from the memory, k =
// (m/n)·ln 2, and the rate follows. The bits are rounded up to whole
// 64-byte blocks (a cache line).
func Size(expected int64, rate float64, memory int64) (Sizing, error) {
	switch {
	case expected > 0 && memory > 0:
		m := roundBits(float64(memory) * 8)
		k := hashCount(float64(m) / float64(expected) * math.Ln2)
		return Sizing{m, k, expected, TheoreticalRate(m, k, float64(expected))}, nil
	case memory > 0:
		m := roundBits(float64(memory) * 8)
		k := hashCount(-math.Log2(rate))
		n := int64(float64(m) * ln2sq / -math.Log(rate))
		return Sizing{m, k, max(n, 1), rate}, nil
	case expected > 0:
		m := roundBits(float64(expected) * -math.Log(rate) / ln2sq)
		k := hashCount(float64(m) / float64(expected) * math.Ln2)
		return Sizing{m, k, expected, TheoreticalRate(m, k, float64(expected))}, nil
	}
	return Sizing{}, fmt.Errorf("nothing to size the filter by")
}

// roundBits rounds a number of bits up to whole blocks of 512.
func roundBits(m float64) uint64 {
	return max(512, uint64(math.Ceil(m/512))*512)
}

// hashCount rounds the optimal number of hash functions to one allowed.
func hashCount(k float64) int {
	return int(min(MaxHashes, max(1, math.Round(k))))
}
