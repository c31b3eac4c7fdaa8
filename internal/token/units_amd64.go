package token

import "golang.org/x/sys/cpu"

// hasUnitsVector: the CPU has what unitsAVX512 uses (AVX-512 with its
// byte and quadword instructions, VBMI's VPERMI2B, BMI2's PDEP).
var hasUnitsVector = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VBMI && cpu.X86.HasBMI2

//go:noescape
func unitsAVX512(d *uint64, text *byte, n, room int, st *unitState, table *[0x80]byte) (read, wrote int)

// unitsVector runs Units over ASCII text with AVX-512, 64 bytes at a time,
// while text[pos:] has a block of them and d (its length is Units' max)
// has room for its units; it returns the bytes read and the units written
// at d[j:], which must have room for 7 values past max.
func unitsVector(d []uint64, j int, text []byte, pos int, st *unitState) (read, wrote int) {
	if !hasUnitsVector || len(text)-pos < 64 || len(d)-j < 66 {
		return 0, 0
	}
	return unitsAVX512(&d[j], &text[pos], len(text)-pos, len(d)-j, st, &unitRunes)
}
