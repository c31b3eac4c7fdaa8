package band

import "golang.org/x/sys/cpu"

// hasDFVector: the CPU has what dfsAVX512 uses (AVX-512, BMI2's shifts).
var hasDFVector = cpu.X86.HasAVX512F && cpu.X86.HasBMI2

//go:noescape
func dfsAVX512(slots *uint64, hs *uint64, n int, out *uint64, mul, shift, b, cmask uint64)

//go:noescape
func prefetchBuckets(slots *uint64, hs *uint64, n int, mul, shift uint64)

// prefetch asks for the bucket of each of hs (prefetchBuckets), where the
// CPU has what dfsVector uses; it tells whether it did.
func (m *dfMap) prefetch(hs []uint64) bool {
	if !hasDFVector || len(hs) == 0 {
		return false
	}
	prefetchBuckets(&m.slots[0], &hs[0], len(hs), m.mul, uint64(m.shift))
	return true
}

// dfsVector writes DF of each of hs to out with AVX-512, ^0 for those in
// the overflow; it tells whether it did.
func (m *dfMap) dfsVector(hs, out []uint64) bool {
	if !hasDFVector || len(hs) == 0 {
		return false
	}
	_ = out[len(hs)-1]
	dfsAVX512(&m.slots[0], &hs[0], len(hs), &out[0], m.mul, uint64(m.shift), uint64(m.b), m.cmask)
	return true
}
