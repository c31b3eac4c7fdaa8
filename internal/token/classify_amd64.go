package token

import "golang.org/x/sys/cpu"

var hasAVX2 = cpu.X86.HasAVX2

// classify64AVX2 returns the masks of the 64 bytes at p: bit i of alnum is
// set when byte i is an ASCII letter or digit, bit i of high when it is
// 0x80 or above.
//
//go:noescape
func classify64AVX2(p *byte) (alnum, high uint64)

// classify64 is classify64AVX2 of block (64 bytes) where the CPU has AVX2;
// ok is false where it has not.
func classify64(block []byte) (alnum, high uint64, ok bool) {
	if !hasAVX2 {
		return 0, 0, false
	}
	alnum, high = classify64AVX2(&block[0])
	return alnum, high, true
}
