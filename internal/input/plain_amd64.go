package input

import "golang.org/x/sys/cpu"

// hasAVX2: the CPU and the OS support AVX2.
var hasAVX2 = cpu.X86.HasAVX2

//go:noescape
func plainEndAVX2(b *byte, n int) int

// plainRun returns how many bytes from the start of b are plain (not '"',
// '\\' or a control character) as far as plainEndAVX2 looked, 32 at a
// time, where the CPU has AVX2; plainEnd goes on from there.
func plainRun(b []byte) int {
	if !hasAVX2 || len(b) < 32 {
		return 0
	}
	return plainEndAVX2(&b[0], len(b))
}
