package verify

import "golang.org/x/sys/cpu"

var (
	hasAVX2 = cpu.X86.HasAVX2
	// hasAVX512: the CPU and the OS support the AVX-512 foundation.
	hasAVX512 = cpu.X86.HasAVX512F
)

// intersectVector is intersectAtLeast's loop four values of each list at
// a time (blocks of eight with wide, on AVX-512): it counts the values
// common to a[:i] and b[:j] (and some of the values after each) while
// eight of each are left, and stops early once i+j-2n passes slack.
//
//go:noescape
func intersectVector(a, b []uint64, slack int, wide bool) (n, i, j int)

// intersectRun runs intersectVector where the CPU has AVX2, with blocks
// of eight where it has AVX-512; elsewhere it leaves all to the Go loop.
func intersectRun(a, b []uint64, slack int) (n, i, j int) {
	if !hasAVX2 {
		return 0, 0, 0
	}
	return intersectVector(a, b, slack, hasAVX512)
}
