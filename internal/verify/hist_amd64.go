package verify

import "golang.org/x/sys/cpu"

// hasAVX512BW: the CPU and the OS also support AVX-512's byte and word
// instructions.
var hasAVX512BW = hasAVX512 && cpu.X86.HasAVX512BW

//go:noescape
func histMinAVX512(a, b *uint8, n int) int

//go:noescape
func histMinHalfAVX512(a, b *uint8, n int) int

// histMin is the sum of the minima of a[k] and b[k] (the same length, a
// multiple of 64), 64 at a time with AVX-512.
func histMin(a, b []uint8) int {
	if !hasAVX512BW {
		return histMinGo(a, b)
	}
	return histMinAVX512(&a[0], &b[0], len(a))
}

// histMinHalf is the sum of the minima of a[2k]+a[2k+1] and b[k] (b a
// multiple of 64 long, a twice as long), 64 of b at a time with AVX-512.
func histMinHalf(a, b []uint8) int {
	if !hasAVX512BW {
		return histMinHalfGo(a, b)
	}
	_ = a[2*len(b)-1]
	return histMinHalfAVX512(&a[0], &b[0], len(b))
}
