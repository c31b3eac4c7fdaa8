package spans

import (
	"math/bits"

	"github.com/neardup/neardup/internal/shingle"
)

// A window's key is two polynomial hashes modulo the Mersenne prime
// p = 2^61-1 of its tokens,
//
//	k0 = Σ v1(t_i)·b1^(n-1-i)   k1 = Σ v2(t_i)·b2^(n-1-i)   (mod p, i = 0…n-1)
//
// with v1 and v2 a token's two independent 64-bit hashes (XXH64 of its
// bytes under two seeds, shingle.TokenHash) reduced mod p, rolled along the
// tokens of a document in O(1) a token. Two windows of different tokens
// get the same key only if both halves collide: for each half, either two
// different tokens of theirs have hashes equal mod p (at most 2n/2^61 for
// the pair of windows) or the two polynomials, different, agree at the
// base (at most (n-1)/p, the base taken as random): so with probability at
// most (3n/2^61)^2 ≈ 4.5e-33 for n = 50 a pair of windows, and below 3e-13
// for all the pairs of windows of a corpus of 10^10 tokens. This is the
// sense in which the stage is exact (docs/DESIGN.md, "Repeated spans").
const (
	modulus uint64 = 1<<61 - 1
	base1   uint64 = 0x1d8e4e27c47d124f & modulus
	base2   uint64 = 0x0a3b5f8d6e1c7913 & modulus
)

// mulMod returns a·b mod p for a, b < p.
func mulMod(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	// a·b = hi·2^64 + lo = (hi·2^3 + lo>>61)·2^61 + lo&p, and 2^61 ≡ 1.
	return reduce(hi<<3|lo>>61, lo&modulus)
}

// reduce returns x+y mod p for x, y < 2^62.
func reduce(x, y uint64) uint64 {
	s := x + y
	s = s&modulus + s>>61
	if s >= modulus {
		s -= modulus
	}
	return s
}

// modP reduces a 64-bit value mod p.
func modP(x uint64) uint64 { return reduce(x&modulus, x>>61) }

// key is a window's key.
type key struct{ k0, k1 uint64 }

// keyer computes the keys of the windows of n tokens.
type keyer struct {
	n int
	// top1 and top2 are p minus b^(n-1): multiplying by them removes the
	// token leaving the window.
	top1, top2 uint64
}

func newKeyer(n int) keyer {
	p1, p2 := uint64(1), uint64(1)
	for range n - 1 {
		p1, p2 = mulMod(p1, base1), mulMod(p2, base2)
	}
	return keyer{n: n, top1: modulus - p1, top2: modulus - p2}
}

// appendKeys appends the key of each window of n tokens of toks, the window
// at token i at index i: len(toks)-n+1 keys, none when there are fewer than
// n tokens.
func (k *keyer) appendKeys(dst []key, toks []shingle.TokenHash) []key {
	if len(toks) < k.n {
		return dst
	}
	var h0, h1 uint64
	for i := range k.n {
		h0 = reduce(mulMod(h0, base1), modP(toks[i].H1))
		h1 = reduce(mulMod(h1, base2), modP(toks[i].H2))
	}
	dst = append(dst, key{h0, h1})
	for i := k.n; i < len(toks); i++ {
		out := toks[i-k.n]
		h0 = reduce(mulMod(reduce(h0, mulMod(modP(out.H1), k.top1)), base1), modP(toks[i].H1))
		h1 = reduce(mulMod(reduce(h1, mulMod(modP(out.H2), k.top2)), base2), modP(toks[i].H2))
		dst = append(dst, key{h0, h1})
	}
	return dst
}
