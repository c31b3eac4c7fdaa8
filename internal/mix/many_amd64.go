package mix

import "golang.org/x/sys/cpu"

// hasAVX512: the CPU and the OS support the AVX-512 foundation and its
// quadword multiplication (VPMULLQ, AVX512DQ).
var hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

//go:noescape
func murmurXorAVX512(dst, src *uint64, n int, key uint64)

//go:noescape
func windowAVX512(dst, units *uint64, n int, pows *uint64, k int, add, key uint64)

// murmurXorVector does MurmurXor's first values, a multiple of 16, with
// AVX-512 where the CPU has it, and returns how many it did.
func murmurXorVector(dst, src []uint64, key uint64) int {
	n := len(src) &^ 15
	if !hasAVX512 || n == 0 {
		return 0
	}
	murmurXorAVX512(&dst[0], &src[0], n, key)
	return n
}

// windowVector does Window's first windows, a multiple of 16, with AVX-512
// where the CPU has it, and returns how many it did.
func windowVector(dst, units []uint64, k int, base, add, key uint64) int {
	n := len(dst) &^ 15
	if !hasAVX512 || n == 0 {
		return 0
	}
	var pows [MaxWindow]uint64
	p := uint64(1)
	for t := k - 1; t >= 0; t-- {
		pows[t] = p
		p *= base
	}
	windowAVX512(&dst[0], &units[0], n, &pows[0], k, add, key)
	return n
}
