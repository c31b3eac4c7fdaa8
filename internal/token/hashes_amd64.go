package token

import "golang.org/x/sys/cpu"

// hasHashVector: the CPU has what shortHashesAVX512 uses (AVX-512 with
// its quadword multiply).
var hasHashVector = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

//go:noescape
func shortHashesAVX512(text *byte, tlen int, spans *span, n int, out *uint64, done *uint8) int

// shortHashes writes to out the hashes of the short tokens of spans (those
// shortTokenHash takes, and runes that are a token on their own) eight at
// a time with AVX-512, and returns how many spans it went through: a byte
// of done for each eight says which it hashed (bit i span i of the eight);
// AppendHashes does the others among them, and those after.
func shortHashes(text []byte, spans []span, out []uint64, done []uint8) int {
	if !hasHashVector || len(spans) < 8 || len(text) == 0 {
		return 0
	}
	_ = out[len(spans)-1]
	_ = done[len(spans)/8-1]
	return shortHashesAVX512(&text[0], len(text), &spans[0], len(spans), &out[0], &done[0])
}
