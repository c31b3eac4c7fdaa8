package verify

import "golang.org/x/sys/cpu"

var (
	hasAVX2 = cpu.X86.HasAVX2
	// hasAVX512: the CPU and the OS support the AVX-512 foundation.
	hasAVX512 = cpu.X86.HasAVX512F
)

// intersectAVX2 is intersectAtLeast's loop four values of each list at a
// time: it counts the values common to a[:i] and b[:j] (and some of the
// four after each) while four of each are left, and stops early once
// i+j-2n passes slack.
//
//go:noescape
func intersectAVX2(a, b []uint64, slack int) (n, i, j int)

// intersectAVX512 is intersectAVX2 eight values of each list at a time.
//
//go:noescape
func intersectAVX512(a, b []uint64, slack int) (n, i, j int)

// intersectRun runs intersectAVX512 where the CPU has AVX-512,
// intersectAVX2 where it has AVX2; elsewhere it leaves all to the Go loop.
func intersectRun(a, b []uint64, slack int) (n, i, j int) {
	switch {
	case hasAVX512:
		return intersectAVX512(a, b, slack)
	case hasAVX2:
		return intersectAVX2(a, b, slack)
	}
	return 0, 0, 0
}
