#include "textflag.h"

// XXH64's primes (xxh.go).
#define PRIME1 $0x9e3779b185ebca87
#define PRIME2 $0xc2b2ae3d27d4eb4f
#define PRIME3 $0x165667b19e3779f9
#define PRIME4 $0x85ebca77c2b2ae63
#define PRIME5 $0x27d4eb2f165667c5

// BCAST broadcasts the constant c to the vector z, through AX.
#define BCAST(c, z) MOVQ c, AX; VPBROADCASTQ AX, z

// The steps of XXH64 for short input (shortTokenHash's) on a group of
// eight lanes, in the registers given: n its lengths, h its hashes, w0 and
// w1 its words, t and t2 scratch, k a mask register for the lanes a step
// applies to. The loop of sixteen spans takes two groups in turns, the
// last eight one.

// PREP reads the eight spans at BX+off, writes their byte of done, and
// gathers the words of the lanes hashed into w0 and w1 (lower-cased where
// ASCII), their lengths into n, and the mask of those lanes into kw
// (through tmp, Z0, Z1, Z2, K3, K6 and K7).
#define PREP(off, n, w0, w1, kw, tmp) \
	LEAQ      off(BX), DX; \
	SHLQ      $4, DX; \
	VMOVDQU64 (DI)(DX*1), Z0; \
	VMOVDQU64 64(DI)(DX*1), Z1; \
	VMOVDQA64 Z0, Z2; \
	VPERMT2Q  Z1, Z18, Z2; \
	VPERMT2Q  Z1, Z19, Z0; \
	VPSUBQ    Z2, Z0, n; \
	VPCMPUQ   $1, Z28, n, kw; \
	VPCMPQ    $5, Z31, Z2, kw, kw; \
	VPCMPQ    $2, Z29, Z2, kw, kw; \
	VPXORQ    Z17, Z0, tmp; \
	VPSUBQ    Z2, tmp, tmp; \
	VPCMPQ    $1, Z31, Z0, K7; \
	VPCMPUQ   $1, Z28, tmp, K7, K7; \
	VPCMPQ    $5, Z31, Z2, K7, K7; \
	VPCMPQ    $2, Z29, Z2, K7, K7; \
	VMOVDQA64 tmp, K7, n; \
	KORB      kw, K7, K6; \
	LEAQ      off(BX), DX; \
	SHRQ      $3, DX; \
	KMOVB     K6, AX; \
	MOVB      AX, (R10)(DX*1); \
	KMOVB     K6, K3; \
	VPXORQ    w0, w0, w0; \
	VPXORQ    w1, w1, w1; \
	VPGATHERQQ (SI)(Z2*1), K6, w0; \
	VPGATHERQQ 8(SI)(Z2*1), K3, w1; \
	VPORQ     Z25, w0, kw, w0; \
	VPORQ     Z25, w1, kw, w1; \
	KORB      kw, K7, kw

// STEP8 takes eight bytes where n ≥ 8.
#define STEP8(n, h, w0, w1, t, t2, k) \
	VPSRLQ    $3, n, t2; \
	VPTESTMQ  t2, t2, k; \
	VPMULLQ   Z21, w0, t; \
	VPROLQ    $31, t, t; \
	VPMULLQ   Z20, t, t; \
	VPXORQ    h, t, t; \
	VPROLQ    $27, t, t; \
	VPMULLQ   Z20, t, t; \
	VPADDQ    Z23, t, t; \
	VMOVDQA64 t, k, h; \
	VMOVDQA64 w1, k, w0

// STEP4 takes four where n & 4.
#define STEP4(n, h, w0, t, t2, k) \
	VPSRLQ    $2, n, t2; \
	VPANDQ    t2, Z30, t2; \
	VPTESTMQ  Z13, t2, k; \
	VPANDQ    Z26, w0, t; \
	VPMULLQ   Z20, t, t; \
	VPXORQ    h, t, t; \
	VPROLQ    $23, t, t; \
	VPMULLQ   Z21, t, t; \
	VPADDQ    Z22, t, t; \
	VMOVDQA64 t, k, h; \
	VPSRLQ    $32, w0, k, w0

// STEP1 takes the byte at bit s of w0 where n & 3 (in r) ≥ c.
#define STEP1(s, c, r, h, w0, t, k) \
	VPCMPUQ   $5, c, r, k; \
	VPSRLQ    $s, w0, t; \
	VPANDQ    Z27, t, t; \
	VPMULLQ   Z24, t, t; \
	VPXORQ    h, t, t; \
	VPROLQ    $11, t, t; \
	VPMULLQ   Z20, t, t; \
	VMOVDQA64 t, k, h

// AVALANCHE mixes h.
#define AVALANCHE(h, t) \
	VPSRLQ    $33, h, t; \
	VPXORQ    t, h, h; \
	VPMULLQ   Z21, h, h; \
	VPSRLQ    $29, h, t; \
	VPXORQ    t, h, h; \
	VPMULLQ   Z22, h, h; \
	VPSRLQ    $32, h, t; \
	VPXORQ    t, h, h

// func shortHashesAVX512(text *byte, tlen int, spans *span, n int, out *uint64, done *uint8) int
//
// AppendHashes' short tokens eight at a time: for each eight spans of
// spans[:n] (n rounded down to 8), the lanes of those that are short
// (fewer than 16 bytes of ASCII letters and digits in text, with 16 bytes
// to load from their start: start ≥ 0, end - start < 16, start + 16 ≤
// tlen) get shortTokenHash of their two words, gathered, each step of
// XXH64 taken or not by a mask of the lanes it applies to; so do those of
// runes that are a token on their own, text[start:^end] (end < 0, with
// the same bounds), their bytes not lower-cased; only those lanes of out
// are written, and the mask of them to the byte of done of the eight. It
// returns how many spans it went through.
TEXT ·shortHashesAVX512(SB), NOSPLIT, $0-56
	MOVQ text+0(FP), SI
	MOVQ tlen+8(FP), R8
	MOVQ spans+16(FP), DI
	MOVQ n+24(FP), CX
	MOVQ out+32(FP), R9
	MOVQ done+40(FP), R10
	ANDQ $-8, CX
	XORQ BX, BX

	BCAST(PRIME1, Z20)
	BCAST(PRIME2, Z21)
	BCAST(PRIME3, Z22)
	BCAST(PRIME4, Z23)
	BCAST(PRIME5, Z24)
	BCAST($0x2020202020202020, Z25)
	BCAST($0xffffffff, Z26)
	BCAST($0xff, Z27)
	BCAST($16, Z28)
	SUBQ $16, R8
	VPBROADCASTQ R8, Z29              // the last start with 16 bytes to load
	BCAST($3, Z30)
	VPXORQ Z31, Z31, Z31
	VPTERNLOGQ $0xff, Z17, Z17, Z17   // all ones
	// The lanes' order of starts and of ends in two vectors of spans.
	MOVQ $0x0e0c0a0806040200, AX
	VMOVQ AX, X18
	VPMOVZXBQ X18, Z18
	MOVQ $0x0f0d0b0907050301, AX
	VMOVQ AX, X19
	VPMOVZXBQ X19, Z19
	VPSRLQ $1, Z30, Z13               // 1
	VPADDQ Z13, Z13, Z15              // 2

	// Sixteen spans at a time, two groups of eight whose steps go in
	// turns: each group's hashes are a chain of dependent multiplies,
	// and a second chain beside it fills the time the first waits.
loop2:
	MOVQ CX, DX
	SUBQ BX, DX
	CMPQ DX, $16
	JLT  loop
	PREP(0, Z3, Z10, Z11, K1, Z4)
	PREP(8, Z5, Z6, Z7, K2, Z16)
	VPADDQ Z24, Z3, Z9
	VPADDQ Z24, Z5, Z4
	STEP8(Z3, Z9, Z10, Z11, Z14, Z12, K4)
	STEP8(Z5, Z4, Z6, Z7, Z8, Z16, K5)
	STEP4(Z3, Z9, Z10, Z14, Z12, K4)
	STEP4(Z5, Z4, Z6, Z8, Z16, K5)
	VPANDQ Z30, Z3, Z12
	VPANDQ Z30, Z5, Z16
	STEP1(0, Z13, Z12, Z9, Z10, Z14, K4)
	STEP1(0, Z13, Z16, Z4, Z6, Z8, K5)
	STEP1(8, Z15, Z12, Z9, Z10, Z14, K4)
	STEP1(8, Z15, Z16, Z4, Z6, Z8, K5)
	STEP1(16, Z30, Z12, Z9, Z10, Z14, K4)
	STEP1(16, Z30, Z16, Z4, Z6, Z8, K5)
	AVALANCHE(Z9, Z14)
	AVALANCHE(Z4, Z8)
	VMOVDQU64 Z9, K1, (R9)(BX*8)
	VMOVDQU64 Z4, K2, 64(R9)(BX*8)
	ADDQ $16, BX
	JMP  loop2

loop:
	// The last eight, if any.
	CMPQ BX, CX
	JGE  done
	PREP(0, Z3, Z10, Z11, K1, Z4)
	VPADDQ Z24, Z3, Z9
	STEP8(Z3, Z9, Z10, Z11, Z14, Z12, K4)
	STEP4(Z3, Z9, Z10, Z14, Z12, K4)
	VPANDQ Z30, Z3, Z12
	STEP1(0, Z13, Z12, Z9, Z10, Z14, K4)
	STEP1(8, Z15, Z12, Z9, Z10, Z14, K4)
	STEP1(16, Z30, Z12, Z9, Z10, Z14, K4)
	AVALANCHE(Z9, Z14)
	VMOVDQU64 Z9, K1, (R9)(BX*8)
	ADDQ $8, BX
	JMP  loop

done:
	MOVQ BX, ret+48(FP)
	VZEROUPPER
	RET
