package record

import "golang.org/x/sys/cpu"

var hasAVX2 = cpu.X86.HasAVX2

// hasAVX512Unescape: the CPU has what unescapeAVX512 uses (AVX-512's byte
// instructions and VBMI2's VPCOMPRESSB).
var hasAVX512Unescape = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI2 && cpu.X86.HasPOPCNT

// unescapeAVX2 unescapes src into dst as Unescape does, 32 bytes at a time,
// while 65 bytes or more of src are left; it returns how many bytes it wrote
// and how many of src it read. dst must have room for len(src) bytes.
// steps[c] is what a backslash and c become: the byte written first and
// how many bytes are written (1 for an escape, 2 for a backslash that
// stands for itself, written before c).
//
//go:noescape
func unescapeAVX2(dst *byte, src []byte, steps *[256][2]byte) (written, read int)

// unescapeAVX512 is unescapeAVX2 64 bytes at a time, with AVX-512 and
// VBMI2.
//
//go:noescape
func unescapeAVX512(dst *byte, src []byte) (written, read int)

// unescapeRun is unescapeAVX512 or unescapeAVX2 where the CPU has them,
// else nothing done.
func unescapeRun(dst, src []byte) (written, read int) {
	if !hasAVX2 || len(src) < 65 {
		return 0, 0
	}
	_ = dst[len(src)-1]
	if hasAVX512Unescape {
		return unescapeAVX512(&dst[0], src)
	}
	return unescapeAVX2(&dst[0], src, &unescapeSteps)
}
