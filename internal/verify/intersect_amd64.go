package verify

import "golang.org/x/sys/cpu"

var hasAVX2 = cpu.X86.HasAVX2

// intersectAVX2 is intersectAtLeast's loop four values of each list at a
// time: it counts the values common to a[:i] and b[:j] (and some of the
// four after each) while four of each are left, and stops early once
// i+j-2n passes slack.
//
//go:noescape
func intersectAVX2(a, b []uint64, slack int) (n, i, j int)

// intersectRun runs intersectAVX2 where the CPU has AVX2; elsewhere it
// leaves all to the Go loop.
func intersectRun(a, b []uint64, slack int) (n, i, j int) {
	if !hasAVX2 {
		return 0, 0, 0
	}
	return intersectAVX2(a, b, slack)
}
