package hashsort

import "golang.org/x/sys/cpu"

var hasAVX2 = cpu.X86.HasAVX2

// compactAVX2 writes the values of table[:n] that are not 0 to dst, in
// order, four slots at a time, and returns how many it wrote; n is a
// multiple of 4. Each store writes four values, so dst must have room for
// three past the last value kept. perm[m] is the VPERMD index vector that
// gathers the 64-bit lanes set in the mask m to the low lanes.
//
//go:noescape
func compactAVX2(dst, table *uint64, n int, perm *[16][8]uint32) int

// compactPerm is compactAVX2's table of lane gathers.
var compactPerm = func() (p [16][8]uint32) {
	for m := range p {
		k := 0
		for l := range 4 {
			if m&(1<<l) != 0 {
				p[m][2*k], p[m][2*k+1] = uint32(2*l), uint32(2*l+1)
				k++
			}
		}
	}
	return p
}()

// compactRun writes the values of table that are not 0 to dst from k on,
// as compactNonZero does, four slots at a time where the CPU has AVX2; it
// returns the next k and how many slots it went through. dst must have
// room for three past the last value kept.
func compactRun(dst []uint64, k int, table []uint64) (int, int) {
	n := len(table) &^ 3
	if !hasAVX2 || n == 0 {
		return k, 0
	}
	_ = dst[k]
	return k + compactAVX2(&dst[k], &table[0], n, &compactPerm), n
}
