#include "textflag.h"

// The bytes 0 to 63: compressed by a mask, the places of its bits.
DATA spanIota<>+0(SB)/8, $0x0706050403020100
DATA spanIota<>+8(SB)/8, $0x0f0e0d0c0b0a0908
DATA spanIota<>+16(SB)/8, $0x1716151413121110
DATA spanIota<>+24(SB)/8, $0x1f1e1d1c1b1a1918
DATA spanIota<>+32(SB)/8, $0x2726252423222120
DATA spanIota<>+40(SB)/8, $0x2f2e2d2c2b2a2928
DATA spanIota<>+48(SB)/8, $0x3736353433323130
DATA spanIota<>+56(SB)/8, $0x3f3e3d3c3b3a3938
GLOBL spanIota<>(SB), RODATA|NOPTR, $64

// The quadwords of the spans of eight starts (0-7) and ends (8-15): the
// first four spans, then the last four.
DATA spanPairs<>+0(SB)/8, $0
DATA spanPairs<>+8(SB)/8, $8
DATA spanPairs<>+16(SB)/8, $1
DATA spanPairs<>+24(SB)/8, $9
DATA spanPairs<>+32(SB)/8, $2
DATA spanPairs<>+40(SB)/8, $10
DATA spanPairs<>+48(SB)/8, $3
DATA spanPairs<>+56(SB)/8, $11
DATA spanPairs<>+64(SB)/8, $4
DATA spanPairs<>+72(SB)/8, $12
DATA spanPairs<>+80(SB)/8, $5
DATA spanPairs<>+88(SB)/8, $13
DATA spanPairs<>+96(SB)/8, $6
DATA spanPairs<>+104(SB)/8, $14
DATA spanPairs<>+112(SB)/8, $7
DATA spanPairs<>+120(SB)/8, $15
GLOBL spanPairs<>(SB), RODATA|NOPTR, $128

// SPANS8 writes the eight spans of the starts and ends at bytes 8j to
// 8j+7 of Z1 and Z2 (in Z10 and Z11, rotated down to byte 0) to off(DI).
#define SPANS8(off) \
	VPMOVZXBQ X10, Z3; \
	VPMOVZXBQ X11, Z4; \
	VPADDQ    Z6, Z3, Z3; \
	VPADDQ    Z7, Z4, Z4; \
	VMOVDQA64 Z3, Z5; \
	VPERMT2Q  Z4, Z8, Z5; \
	VPERMT2Q  Z4, Z9, Z3; \
	VMOVDQU64 Z5, off(DI); \
	VMOVDQU64 Z3, off+64(DI)

// func asciiSpansAVX512(firsts, lasts uint64, base int, dst *span)
//
// The spans {base + i, base + j + 1} of the bits i of firsts and j of
// lasts, the n-th of one with the n-th of the other (as many of each),
// written to dst in order, eight at a time: up to seven more past them are
// written over.
TEXT ·asciiSpansAVX512(SB), NOSPLIT, $0-32
	MOVQ firsts+0(FP), AX
	MOVQ lasts+8(FP), BX
	MOVQ base+16(FP), CX
	MOVQ dst+24(FP), DI
	KMOVQ AX, K1
	KMOVQ BX, K2
	VMOVDQU64 spanIota<>(SB), Z0
	VPXORQ      Z1, Z1, Z1
	VPXORQ      Z2, Z2, Z2
	VPCOMPRESSB Z0, K1, Z1            // the places of the starts
	VPCOMPRESSB Z0, K2, Z2            // and of the last bytes
	VPBROADCASTQ CX, Z6               // base
	INCQ CX
	VPBROADCASTQ CX, Z7               // base + 1: an end is past its last byte
	VMOVDQU64 spanPairs<>+0(SB), Z8
	VMOVDQU64 spanPairs<>+64(SB), Z9
	POPCNTQ AX, R8
	VMOVDQA64 Z1, Z10
	VMOVDQA64 Z2, Z11
	SPANS8(0)
	CMPQ R8, $8
	JLE  done
	VALIGNQ $1, Z1, Z1, Z10
	VALIGNQ $1, Z2, Z2, Z11
	SPANS8(128)
	CMPQ R8, $16
	JLE  done
	VALIGNQ $2, Z1, Z1, Z10
	VALIGNQ $2, Z2, Z2, Z11
	SPANS8(256)
	CMPQ R8, $24
	JLE  done
	VALIGNQ $3, Z1, Z1, Z10
	VALIGNQ $3, Z2, Z2, Z11
	SPANS8(384)

done:
	VZEROUPPER
	RET
