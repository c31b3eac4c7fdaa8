// Package mix holds the 64-bit bijective mixers the hashes of neardup are
// built from. Every input bit changes each output bit with probability close
// to 1/2, and distinct inputs give distinct outputs.
package mix

// Murmur is the finaliser of MurmurHash3 (fmix64).
func Murmur(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// SplitMix is the finaliser of SplitMix64.
func SplitMix(x uint64) uint64 {
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// SplitMix64 is the SplitMix64 generator, which draws parameters from
// seeds.
type SplitMix64 uint64

// Next returns the next value.
func (s *SplitMix64) Next() uint64 {
	*s += 0x9e3779b97f4a7c15
	return SplitMix(uint64(*s))
}
