package spans

import (
	"math/bits"

	"github.com/neardup/neardup/internal/token"
)

// A window's key is two polynomial hashes modulo the Mersenne prime
// p = 2^61-1 of its tokens,
//
//	k0 = Σ v1(t_i)·b1^(n-1-i)   k1 = Σ v2(t_i)·b2^(n-1-i)   (mod p, i = 0…n-1)
//
// with v1 and v2 a token's two independent 64-bit hashes (XXH64 of its
// bytes under two seeds, token.TokenHash) reduced mod p, rolled along the
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
func (k *keyer) appendKeys(dst []key, toks []token.TokenHash) []key {
	r := k.roller()
	for _, t := range toks {
		if w, _, ok := r.push(t); ok {
			dst = append(dst, w)
		}
	}
	return dst
}

// roller rolls the key of the last n tokens of a document along it, taking
// a token at a time: it holds n tokens, whatever the document's length.
type roller struct {
	k      *keyer
	ring   []token.TokenHash
	i      int // the tokens taken
	h0, h1 uint64
}

func (k *keyer) roller() *roller {
	return &roller{k: k, ring: make([]token.TokenHash, k.n)}
}

// reset starts a document.
func (r *roller) reset() { r.i, r.h0, r.h1 = 0, 0, 0 }

// push takes the next token; when it ends a window of n tokens, it returns
// the window's key and the first byte of its first token.
func (r *roller) push(t token.TokenHash) (w key, start int, ok bool) {
	n := r.k.n
	slot := r.i % n
	if r.i >= n {
		out := &r.ring[slot] // token i-n leaves
		r.h0 = reduce(r.h0, mulMod(modP(out.H1), r.k.top1))
		r.h1 = reduce(r.h1, mulMod(modP(out.H2), r.k.top2))
	}
	r.h0 = reduce(mulMod(r.h0, base1), modP(t.H1))
	r.h1 = reduce(mulMod(r.h1, base2), modP(t.H2))
	r.ring[slot] = t
	r.i++
	if r.i < n {
		return w, 0, false
	}
	return key{r.h0, r.h1}, r.ring[r.i%n].Start, true
}
