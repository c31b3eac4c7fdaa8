package input

import "golang.org/x/sys/cpu"

var hasAVX2 = cpu.X86.HasAVX2

// plainEnd32AVX2 scans the n bytes at p 32 at a time for a byte that ends a
// run of plain bytes ('"', '\\' or below 0x20): it returns the offset of the
// first one in the 32-byte blocks it scanned, or, when they hold none, how
// many bytes they were (n rounded down to a multiple of 32).
//
//go:noescape
func plainEnd32AVX2(p *byte, n int) int

// plainEndVector is plainEnd32AVX2 of b from i where the CPU has AVX2 and
// 32 bytes or more are left, else i: where plainEnd goes on from.
func plainEndVector(b []byte, i int) int {
	if !hasAVX2 || len(b)-i < 32 {
		return i
	}
	return i + plainEnd32AVX2(&b[i], len(b)-i)
}
