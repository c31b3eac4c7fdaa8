package token

import (
	"math/bits"
	"slices"

	"golang.org/x/sys/cpu"
)

// hasSpanVector: the CPU has what asciiSpansAVX512 uses (AVX-512 with
// VBMI2's VPCOMPRESSB).
var hasSpanVector = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI2 && cpu.X86.HasPOPCNT

//go:noescape
func asciiSpansAVX512(firsts, lasts uint64, base int, dst *span)

// appendASCIISpans appends to spans the spans of the tokens of a block at
// base whose first bytes are the bits of firsts and last bytes those of
// lasts, all at once where the CPU can; ok is false where it can't.
func appendASCIISpans(spans []span, firsts, lasts uint64, base int) (out []span, ok bool) {
	if !hasSpanVector {
		return spans, false
	}
	n, k := len(spans), bits.OnesCount64(firsts)
	// The stores write eight spans at a time: room for seven more.
	spans = slices.Grow(spans, k+7)
	asciiSpansAVX512(firsts, lasts, base, &spans[:n+1][n])
	return spans[:n+k], true
}
