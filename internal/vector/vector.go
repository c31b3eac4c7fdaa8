// Package vector reads the dense vectors that documents may carry (an
// embedding per document) and sketches them for the Hamming join: the
// hyperplane fingerprint of Charikar (2002), whose bits are the signs of
// the dot products with Gaussian random vectors, so that two vectors at
// angle θ differ in each bit with probability θ/π; the Hamming radius that
// keeps the pairs at a cosine (Radius); and the exact cosine that verify
// --cosine writes. For the Euclidean distance it makes the p-stable
// hashes of Datar et al. (pstable.go), their banding for a distance, and
// the exact distance that verify --euclidean scores.
//
// # Random vectors
//
// The random vectors are never stored: they are made again from the seed.
// Gaussian number n (n = 0, 1, …) of a seed is Box–Muller over the
// SplitMix64 sequence of the key k = Mix(seed ^ 0x6a09e667f3bcc908):
// output i (i = 1, 2, …) is Mix(k + i·0x9e3779b97f4a7c15), Mix the
// SplitMix64 finaliser. Pair p takes outputs x1 = 2p+1 and x2 = 2p+2,
// u1 = ((x1>>11)+1)·2⁻⁵³ in (0, 1], u2 = (x2>>11)·2⁻⁵³, R = √(−2 ln u1);
// Gaussian 2p is R·cos(2π·u2) and 2p+1 is R·sin(2π·u2). Component j of
// random vector r is Gaussian number j·128 + (r mod 128) of the seed xor
// q·0x9e3779b97f4a7c15, q = ⌊r/128⌋ (the seed itself for the first 128),
// so that a shorter fingerprint is the first bits of a longer one, and the
// vectors of a dimension are the first components of those of a larger
// one.
//
// # Bit order
//
// Bit r of the fingerprint is 1 when the dot product with random vector r
// is above zero (a zero vector is all zeros). Bit r is bit 63 − (r mod 64)
// of word ⌊r/64⌋, so that bit 0 is the most significant bit of Hi, as in
// package simhash, and the fingerprints are written as SimHash
// fingerprints are (record.AppendBitSketch), in f/4 hex digits.
package vector

import (
	"fmt"
	"math"
	"slices"

	"github.com/neardup/neardup/internal/mix"
)

// HammingBits is the longest fingerprint that is searched by Hamming
// distance (band --hamming, index, cluster): a SimHash fingerprint's.
// Longer ones are banded (band --cosine).
const HammingBits = 128

// MaxBits is the longest fingerprint.
const MaxBits = 8192

// MaxPlaneValues bounds the random vectors: bits × dim of them, 8 bytes
// each, 1 GiB.
const MaxPlaneValues = 1 << 27

// MaxDim is the most components a vector may have: the random vectors of
// 128 bits then take 64 MiB.
const MaxDim = 1 << 16

// Scheme names the random vectors in the sketch header (vectors=).
const Scheme = "splitmix64-boxmuller"

const (
	keySalt = 0x6a09e667f3bcc908
	gamma   = 0x9e3779b97f4a7c15
)

// Gaussian returns Gaussian number n of seed (see the package comment).
func Gaussian(seed, n uint64) float64 {
	k := mix.SplitMix(seed ^ keySalt)
	p := n / 2
	x1 := mix.SplitMix(k + (2*p+1)*gamma)
	x2 := mix.SplitMix(k + (2*p+2)*gamma)
	u1 := float64((x1>>11)+1) * 0x1p-53
	u2 := float64(x2>>11) * 0x1p-53
	r := math.Sqrt(-2 * math.Log(u1))
	if n%2 == 0 {
		return r * math.Cos(2*math.Pi*u2)
	}
	return r * math.Sin(2*math.Pi*u2)
}

// Hyperplanes are the bits random vectors of dim components of a seed,
// held component by component. They are read-only: workers share them.
type Hyperplanes struct {
	bits, dim int
	g         []float64 // component j of vector r at j*bits + r
}

// NewHyperplanes returns the random vectors of a fingerprint of bits bits
// (a multiple of 64, at most MaxBits) of vectors of dim components; bits ×
// dim is at most MaxPlaneValues (CheckPlanes).
func NewHyperplanes(bits, dim int, seed uint64) *Hyperplanes {
	h := &Hyperplanes{bits: bits, dim: dim, g: make([]float64, bits*dim)}
	for j := range dim {
		for r := range bits {
			q := uint64(r / HammingBits)
			h.g[j*bits+r] = Gaussian(seed^(q*gamma), uint64(j)*HammingBits+uint64(r%HammingBits))
		}
	}
	return h
}

// CheckPlanes refuses a fingerprint of bits bits of vectors of dim
// components whose random vectors would hold more than MaxPlaneValues.
func CheckPlanes(bits, dim int) error {
	if bits*dim > MaxPlaneValues {
		return fmt.Errorf("%d-bit fingerprints of %d components need %d MiB of random vectors, more than the %d MiB allowed: use fewer bits", bits, dim, bits*dim*8>>20, MaxPlaneValues*8>>20)
	}
	return nil
}

// Bits returns the fingerprint length.
func (h *Hyperplanes) Bits() int { return h.bits }

// Dim returns the dimension of the vectors.
func (h *Hyperplanes) Dim() int { return h.dim }

// Words appends the fingerprint of v, which has Dim components, as Bits/64
// words; dots is scratch space of Bits values, returned for reuse.
func (h *Hyperplanes) Words(dst []uint64, dots []float64, v []float64) ([]uint64, []float64) {
	dots = slices.Grow(dots[:0], h.bits)[:h.bits]
	clear(dots)
	n := len(dst)
	dst = slices.Grow(dst, h.bits/64)[:n+h.bits/64]
	words := dst[n:]
	for j, x := range v {
		if x == 0 {
			continue
		}
		row := h.g[j*h.bits : (j+1)*h.bits]
		for r, g := range row {
			// The conversion rounds the product, so that no machine
			// fuses it with the sum (FMA): the bits are the same on all.
			dots[r] += float64(x * g)
		}
	}
	clear(words)
	for r, d := range dots {
		if d > 0 {
			words[r/64] |= 1 << (63 - r%64)
		}
	}
	return dst, dots
}

// NonZero returns the number of components of v that are not zero: the
// size of its sketch record (0, for the zero vector, is an empty document,
// which band leaves without keys).
func NonZero(v []float64) int {
	n := 0
	for _, x := range v {
		if x != 0 {
			n++
		}
	}
	return n
}

// Cosine returns the cosine similarity of a and b (of one length), 0 when
// either is the zero vector, clamped to [-1, 1].
func Cosine(a, b []float64) float64 {
	var ab, aa, bb float64
	for i, x := range a {
		y := b[i]
		ab += x * y
		aa += x * x
		bb += y * y
	}
	return cosine(ab, aa, bb)
}

// CosineBits is Cosine of two vectors held as the bits of their
// components (math.Float64bits), as verify holds them.
func CosineBits(a, b []uint64) float64 {
	var ab, aa, bb float64
	for i, xb := range a {
		x, y := math.Float64frombits(xb), math.Float64frombits(b[i])
		ab += x * y
		aa += x * x
		bb += y * y
	}
	return cosine(ab, aa, bb)
}

func cosine(ab, aa, bb float64) float64 {
	if aa == 0 || bb == 0 {
		return 0
	}
	return max(-1, min(1, ab/(math.Sqrt(aa)*math.Sqrt(bb))))
}
