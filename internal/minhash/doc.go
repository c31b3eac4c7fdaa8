// Package minhash computes MinHash signatures and Broder's bottom-s and MOD_m
// samples of sets of 64-bit shingle hashes, and estimates resemblance
// (Jaccard similarity) and containment from them.
//
// # The hash family of the classic signature
//
// Signature position i holds min over x in S of h_i(x), with
//
//	h_i(x) = a_i·M(x) + b_i  (mod 2^64),  a_i odd
//
// where M is a bijective 64-bit mixer applied once per shingle and (a_i, b_i)
// are drawn from the seed by SplitMix64. Each h_i is a bijection of the
// 64-bit words, so it is a permutation of the shingle hashes. M makes the
// inputs uniform whatever they are (a user's own shingle records may hold
// consecutive numbers, for which a bare multiply-add is biased by 0.05), and
// for uniform inputs the order that an odd multiplier plus an offset induces
// is, for the purpose of taking a minimum, as good as a random one: the tests
// measure the estimator's bias (under 0.01) and its spread (within 15% of
// sqrt(J(1-J)/n)) over many random set pairs, and the independence of
// positions. It costs one multiplication and one addition per shingle and
// position, which the inner loop keeps in registers (32 positions at a time
// in AVX-512 registers where the CPU has them).
//
// # One-permutation hashing
//
// Method oph hashes each shingle once (a 64-bit mixer keyed by the seed),
// puts it in one of n bins by its high bits and keeps the minimum per bin;
// empty bins are filled by optimal densification (Shrivastava 2017): bin j
// takes the value of the first non-empty bin in a sequence of bins drawn from
// a hash of (j, attempt), the same for every set. O(|S| + n) per set.
package minhash
