package minhash

import "golang.org/x/sys/cpu"

// hasAVX512 says whether the CPU and the OS support the AVX-512 foundation
// and doubleword/quadword instructions (VPMULLQ, VPMINUQ); hasAVX2 whether
// they support AVX2.
var (
	hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ
	hasAVX2   = cpu.X86.HasAVX2
)

//go:noescape
func signatureAVX512(a, b, sig *uint64, n int, set *uint64, m int)

//go:noescape
func signatureAVX2(a, b, sig *uint64, n int, set *uint64, m int)

// signatureVector lowers sig to the minima over set with AVX-512, or else
// AVX2, when the CPU has it and the length allows; it reports whether it
// did.
func (f *Family) signatureVector(sig, set []uint64) bool {
	n := len(f.A)
	if !(hasAVX512 || hasAVX2) || n%8 != 0 || n == 0 || len(set) == 0 || len(sig) < n || len(f.B) < n {
		return false
	}
	if hasAVX512 {
		signatureAVX512(&f.A[0], &f.B[0], &sig[0], n, &set[0], len(set))
	} else {
		signatureAVX2(&f.A[0], &f.B[0], &sig[0], n, &set[0], len(set))
	}
	return true
}
