package index

import "golang.org/x/sys/cpu"

// The instructions near can use: AVX-512 with its population count
// (VPOPCNTQ), or POPCNT (math/bits checks for POPCNT at every call, which
// costs the Go loop a third of its speed).
var (
	hasVPOPCNTQ = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VPOPCNTDQ
	hasPOPCNT   = cpu.X86.HasPOPCNT
)

//go:noescape
func nearAVX512(vals []uint64, p uint64, k int) int

//go:noescape
func nearPOPCNT(vals []uint64, p uint64, k int) int

//go:noescape
func nearAnyAVX512(vals, ps []uint64, k int) (int, int)

//go:noescape
func nearAnyPOPCNT(vals, ps []uint64, k int) (int, int)

// near returns the index of the first value of vals within k bits of p, or
// len(vals).
func near(vals []uint64, p uint64, k int) int {
	switch {
	case hasVPOPCNTQ && len(vals) >= 8:
		return nearAVX512(vals, p, k)
	case hasPOPCNT:
		return nearPOPCNT(vals, p, k)
	}
	return nearGo(vals, p, k)
}

// nearAny returns the first query ps[i] with a value within k bits and the
// first such value vals[j]: (i, j); or (len(ps), 0).
func nearAny(vals, ps []uint64, k int) (int, int) {
	switch {
	case hasVPOPCNTQ:
		return nearAnyAVX512(vals, ps, k)
	case hasPOPCNT:
		return nearAnyPOPCNT(vals, ps, k)
	}
	return nearAnyGo(vals, ps, k)
}
