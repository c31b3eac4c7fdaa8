package minhash

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// b-bit signatures (Li and König, "b-Bit Minwise Hashing", 2010): each value
// of a signature reduced to its low Bits bits (of the value mixed again, so
// that any family's values give uniform bits). Two documents agree on a
// position with probability J + (1-J)/2^Bits, so the agreements still
// estimate J, from a sixteenth of the bytes: enough to tell, with a stated
// error, that a candidate pair is far below a similarity threshold.

// Bits is the bits kept of each value: one hex digit.
const Bits = 4

// AppendBits appends the b-bit values of sig, one a half byte, the first
// in the low half (len(sig) even).
func AppendBits(dst []byte, sig []uint64) []byte {
	for i := 0; i+1 < len(sig); i += 2 {
		dst = append(dst, byte(Mix64(sig[i])&0xf)|byte(Mix64(sig[i+1])&0xf)<<4)
	}
	return dst
}

// agreements counts the positions where two b-bit signatures agree (len(b)
// at least len(a)). Eight bytes at a time, without a branch: in a word of
// a^b, the low bit of each half byte gathers the bits of its half byte, and
// the half bytes that are not 0 are the positions that disagree. 22 ns for
// 128 positions against 83 a byte and two branches at a time
// (BenchmarkAgreements, signatures in cache). With AVX-512, 64 bytes at a
// time (agreementsVector).
func agreements(a, b []byte) int {
	const low = 0x1111111111111111
	i, differ := agreementsVector(a, b[:len(a)])
	for ; i+8 <= len(a); i += 8 {
		x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:])
		x |= x >> 1
		x |= x >> 2
		differ += bits.OnesCount64(x & low)
	}
	for ; i < len(a); i++ {
		x := a[i] ^ b[i]
		x |= x >> 1
		x |= x >> 2
		differ += bits.OnesCount8(x & 0x11)
	}
	return 2*len(a) - differ
}

// FarBelow tells, for the b-bit signatures of n values of two sets of sa
// and sb distinct shingles, whether their Jaccard similarity is below
// least with certainty or beyond doubt: the sizes alone rule it out (J is
// at most min/max), or the signatures agree on so few positions that a
// pair at least that similar would do so with probability under
// FarBelowError.
//
// The bound: at Jaccard J a position agrees with probability p = J +
// (1-J)/2^Bits, and the agreements A of a signature of independent
// positions obey Chernoff's bound P(A <= a) <= exp(-n·KL(a/n ‖ p)). An
// optimally densified one-permutation signature of a set filling F of its
// n bins has only F independent minima, each repeated in its bin and the
// empty bins that copy it: the sum of their squared weights is about
// n²/F + (n-F), so the bound is taken with n_eff = n²/(n²/F + n - F)
// positions (F for the smaller set, its expected filled bins n(1-(1-1/n)^s)).
// A classic signature's positions are independent: densified is false.
func FarBelow(a, b []byte, sa, sb int, least float64, densified bool) bool {
	return farBelow(a, b, sa, sb, least, densified, farBelowLog)
}

// farBelow is FarBelow for an error of exp(-logErr).
func farBelow(a, b []byte, sa, sb int, least float64, densified bool, logErr float64) bool {
	lo, hi := min(sa, sb), max(sa, sb)
	if lo == 0 || hi == 0 {
		return false
	}
	if float64(lo) < least*float64(hi) {
		return true
	}
	n := float64(2 * len(a))
	return effective(n, lo, densified)*divergence(agreements(a, b), n, least) > logErr
}

// divergence is KL(A/n ‖ p) for A agreements of n positions, p the chance
// that a position agrees at Jaccard least; -1 when A/n is p or more (no
// evidence that the pair is below).
func divergence(agreements int, n, least float64) float64 {
	agree := float64(agreements) / n
	p := least + (1-least)/(1<<Bits)
	if agree >= p {
		return -1
	}
	return klBernoulli(agree, p)
}

// effective is n_eff, the independent positions of a signature of n
// values of a set of lo shingles: n, or for a densified one-permutation
// signature n²/(n²/F + n - F), F its expected filled bins.
func effective(n float64, lo int, densified bool) float64 {
	if !densified {
		return n
	}
	f := n * (1 - math.Pow(1-1/n, float64(lo)))
	return n * n / (n*n/f + n - f)
}

// FarJudge is FarBelow for signatures of n values and one least, with its
// logarithms and powers computed once: the divergence at each number of
// agreements, and n_eff at each size up to the first whose expected filled
// bins round to n (n_eff is the same for every larger size). Its answers
// are FarBelow's, bit for bit: the same expressions of the same numbers.
// pairs --bbit judges millions of pairs with one; the logarithms and the
// power took a third of its time.
type FarJudge struct {
	least float64
	// kl[A] is divergence(A, n, least); neff[s] effective(n, s, ...).
	kl, neff []float64
}

// NewFarJudge returns the FarJudge of signatures of n values (2 a byte).
func NewFarJudge(n int, least float64, densified bool) *FarJudge {
	j := &FarJudge{least: least, kl: make([]float64, n+1)}
	fn := float64(n)
	for a := range j.kl {
		j.kl[a] = divergence(a, fn, least)
	}
	for s := 0; ; s++ {
		j.neff = append(j.neff, effective(fn, s, densified))
		if !densified || fn*(1-math.Pow(1-1/fn, float64(s))) == fn {
			break
		}
	}
	return j
}

// Least is the threshold of the judge.
func (j *FarJudge) Least() float64 { return j.least }

// Far is FarBelow(a, b, sa, sb, least, densified) for a and b of the n
// values the judge was made for.
func (j *FarJudge) Far(a, b []byte, sa, sb int) bool {
	lo, hi := min(sa, sb), max(sa, sb)
	if lo == 0 || hi == 0 {
		return false
	}
	if float64(lo) < j.least*float64(hi) {
		return true
	}
	return j.neff[min(lo, len(j.neff)-1)]*j.kl[agreements(a, b)] > farBelowLog
}

// FarBelowError is the bound on the probability that FarBelow rules out a
// pair at the threshold or above: each such pair is dropped with at most
// this probability.
const FarBelowError = 1e-12

var farBelowLog = -math.Log(FarBelowError)

// klBernoulli is the Kullback-Leibler divergence of Bernoulli(q) from
// Bernoulli(p), for 0 <= q < p < 1.
func klBernoulli(q, p float64) float64 {
	d := (1 - q) * math.Log((1-q)/(1-p))
	if q > 0 {
		d += q * math.Log(q/p)
	}
	return d
}

// ContainmentLeast is the least Jaccard similarity of two sets of sa and sb
// shingles one of which is contained at least t in the other: the smaller,
// s, contained in the other, L: J >= t·s / (s + L - t·s).
func ContainmentLeast(sa, sb int, t float64) float64 {
	s, l := float64(min(sa, sb)), float64(max(sa, sb))
	if s == 0 {
		return 0
	}
	return t * s / (s + l - t*s)
}
