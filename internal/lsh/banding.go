// Package lsh holds locality-sensitive hashing schemes: MinHash banding
// (b bands of r rows; MMDS 3.4) with the choice of b and r from a target
// threshold, and the Hamming-distance table schemes of SimHash.
package lsh

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cespare/xxhash/v2"
)

// Banding splits a signature into B bands of R rows.
type Banding struct {
	B, R int
}

// Rows returns the number of signature values the bands use.
func (b Banding) Rows() int { return b.B * b.R }

// Check reports whether the banding fits a signature of n values.
func (b Banding) Check(n int) error {
	if b.B < 1 || b.R < 1 {
		return fmt.Errorf("bands %d and rows %d must be at least 1", b.B, b.R)
	}
	if b.B*b.R > n {
		return fmt.Errorf("%d bands of %d rows need %d signature values, the signature has %d", b.B, b.R, b.B*b.R, n)
	}
	if b.B > 0xffff {
		return fmt.Errorf("%d bands: at most 65535", b.B)
	}
	return nil
}

// BandHash hashes rows [i·R, (i+1)·R) of sig: XXH64 of the values as 8-byte
// little-endian words. buf is scratch space, returned for reuse.
func (b Banding) BandHash(buf []byte, sig []uint64, i int) (uint64, []byte) {
	buf = buf[:0]
	for _, v := range sig[i*b.R : (i+1)*b.R] {
		buf = binary.LittleEndian.AppendUint64(buf, v)
	}
	return xxhash.Sum64(buf), buf
}

// CandidateProbability is the probability that two sets of Jaccard
// similarity s share at least one band: 1 - (1 - s^r)^b.
func CandidateProbability(s float64, b, r int) float64 {
	return 1 - math.Pow(1-math.Pow(s, float64(r)), float64(b))
}

// Threshold is the similarity where the S-curve rises fastest,
// approximately (1/b)^(1/r).
func Threshold(b, r int) float64 {
	return math.Pow(1/float64(b), 1/float64(r))
}

// Choice is the result of ChooseBanding.
type Choice struct {
	Banding
	// FalsePositiveArea is the integral of the candidate probability below
	// the threshold, FalseNegativeArea that of its complement above it.
	FalsePositiveArea, FalseNegativeArea float64
	// AtThreshold is the candidate probability of a pair exactly at the
	// threshold.
	AtThreshold float64
	// FloorMet says whether AtThreshold reaches the floor asked for.
	FloorMet bool
}

// ChooseBanding picks b and r with b·r ≤ n for a target threshold t: among
// the bandings that make a pair at t a candidate with probability at least
// floor, the one that minimises fpWeight·FP + fnWeight·FN, where FP is the
// area under the S-curve on [0, t] and FN the area above it on [t, 1]. When
// no banding reaches the floor, the one with the highest probability at t.
func ChooseBanding(n int, t, fpWeight, fnWeight, floor float64) Choice {
	var best Choice
	bestCost := math.Inf(1)
	var fallback Choice
	// The false-negative area only adds: a banding whose false-positive
	// area alone costs the best so far or more can't cost less.
	skip := skipCostly && fnWeight >= 0 && fpWeight >= 0
	for b := 1; b <= n && b <= 0xffff; b++ {
		for r := 1; b*r <= n; r++ {
			c := Choice{Banding: Banding{b, r}, AtThreshold: CandidateProbability(t, b, r)}
			if c.AtThreshold > fallback.AtThreshold {
				fallback = c
			}
			if c.AtThreshold < floor {
				continue
			}
			area, costly := falsePositiveArea(b, r, t, fpWeight, bestCost, skip)
			if costly {
				continue
			}
			c.FalsePositiveArea = area
			c.FalseNegativeArea = falseNegativeArea(b, r, t)
			cost := fpWeight*c.FalsePositiveArea + fnWeight*c.FalseNegativeArea
			if cost < bestCost {
				best, bestCost = c, cost
			}
		}
	}
	if math.IsInf(bestCost, 1) {
		b, r := fallback.B, fallback.R
		fallback.FalsePositiveArea, _ = falsePositiveArea(b, r, t, 0, 0, false)
		fallback.FalseNegativeArea = falseNegativeArea(b, r, t)
		return fallback
	}
	best.FloorMet = true
	return best
}

// falseNegativeArea is the area above banding (b, r)'s S-curve on [t, 1].
func falseNegativeArea(b, r int, t float64) float64 {
	return integrate(func(s float64) float64 { return 1 - CandidateProbability(s, b, r) }, t, 1)
}

// skipCostly has ChooseBanding pass over a banding whose false-positive
// area alone costs more than the best so far (251 of 257 at n = 128),
// without integrating its false-negative area, nor all of its own; the
// tests turn it off.
var skipCostly = true

// simpsonN is the number of intervals of integrate.
const simpsonN = 200

// integrate is Simpson's rule with simpsonN intervals.
func integrate(f func(float64) float64, a, b float64) float64 {
	h := (b - a) / simpsonN
	sum := f(a) + f(b)
	for i := 1; i < simpsonN; i++ {
		sum += simpsonTerm(f, a, h, i)
	}
	return sum * h / 3
}

// simpsonTerm is term i of integrate's sum, 0 < i < simpsonN.
func simpsonTerm(f func(float64) float64, a, h float64, i int) float64 {
	w := 2.0
	if i%2 == 1 {
		w = 4
	}
	return w * f(a+float64(i)*h)
}

// falsePositiveArea returns the area under banding (b, r)'s S-curve on
// [0, t], bit for bit as integrate gives it; when skip, it may instead stop
// as soon as it knows that weight (≥ 0) times it is at least bound, and say
// so (costly), with the area not given. Each of the 257 bandings of 128
// values that meet the floor at 0.8 took 201 evaluations of the curve, two
// powers each: 2.4 ms of every run that chooses a banding, now 1.1. The
// terms are taken from the top, where the curve is highest, sixteen at a
// time, and summed in integrate's order, as many as are known: a sum that
// leaves out terms of 0 or more is never above the whole, rounding being
// monotone, so a part that reaches the bound says that the whole does.
func falsePositiveArea(b, r int, t, weight, bound float64, skip bool) (area float64, costly bool) {
	f := func(s float64) float64 { return CandidateProbability(s, b, r) }
	h := t / simpsonN
	ends := f(0) + f(t)
	var terms [simpsonN]float64 // terms[from:] are known
	for from := simpsonN; from > 1; {
		next := 1
		if skip {
			next = max(from-16, 1)
		}
		for i := next; i < from; i++ {
			terms[i] = simpsonTerm(f, 0, h, i)
		}
		from = next
		sum := ends
		for _, v := range terms[from:] {
			sum += v
		}
		area = sum * h / 3
		if skip && weight*area >= bound {
			return area, true
		}
	}
	return area, false
}

// Amplify returns the banding of n hashes, each of which two items agree on
// with probability p, that makes them a candidate pair with probability at
// least floor (MMDS 3.6.3, the AND of r rows, the OR of b bands): the
// most rows a band, r, which makes the fewest far pairs candidates, and as
// many bands as fit, b = n/r; and that probability, 1 − (1 − p^r)^b. ok is
// false when even one row a band falls short; it then returns b = n, r = 1.
func Amplify(n int, p, floor float64) (banding Banding, prob float64, ok bool) {
	for r := n; r >= 1; r-- {
		b := min(n/r, 0xffff)
		if prob = CandidateProbability(p, b, r); prob >= floor {
			return Banding{B: b, R: r}, prob, true
		}
	}
	b := min(n, 0xffff)
	return Banding{B: b, R: 1}, CandidateProbability(p, b, 1), false
}

// BitBandHash hashes bits [i·R, (i+1)·R) of a fingerprint held in words,
// bit 0 the most significant of words[0] (a hyperplane fingerprint's
// order): XXH64 of the band's bits, left-aligned in 8-byte little-endian
// words whose bits past the band are 0. buf is scratch space, returned for
// reuse.
func (b Banding) BitBandHash(buf []byte, words []uint64, i int) (uint64, []byte) {
	buf = buf[:0]
	for pos, end := i*b.R, (i+1)*b.R; pos < end; pos += 64 {
		buf = binary.LittleEndian.AppendUint64(buf, bitsAt(words, pos, min(64, end-pos)))
	}
	return xxhash.Sum64(buf), buf
}

// bitsAt returns the n bits (1 to 64) of words from bit pos on,
// left-aligned, the rest 0.
func bitsAt(words []uint64, pos, n int) uint64 {
	w, o := pos/64, uint(pos%64)
	x := words[w] << o
	if o > 0 && w+1 < len(words) {
		x |= words[w+1] >> (64 - o)
	}
	return x & (^uint64(0) << uint(64-n))
}
