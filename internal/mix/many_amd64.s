#include "textflag.h"

// MURMUR2 applies Murmur to Z0 and Z5 (Z11, Z12 its two multipliers; Z1
// and Z6 scratch).
#define MURMUR2 \
	VPSRLQ  $33, Z0, Z1 \
	VPSRLQ  $33, Z5, Z6 \
	VPXORQ  Z1, Z0, Z0  \
	VPXORQ  Z6, Z5, Z5  \
	VPMULLQ Z11, Z0, Z0 \
	VPMULLQ Z11, Z5, Z5 \
	VPSRLQ  $33, Z0, Z1 \
	VPSRLQ  $33, Z5, Z6 \
	VPXORQ  Z1, Z0, Z0  \
	VPXORQ  Z6, Z5, Z5  \
	VPMULLQ Z12, Z0, Z0 \
	VPMULLQ Z12, Z5, Z5 \
	VPSRLQ  $33, Z0, Z1 \
	VPSRLQ  $33, Z5, Z6 \
	VPXORQ  Z1, Z0, Z0  \
	VPXORQ  Z6, Z5, Z5

// MIXSTORE writes Murmur(x ^ key) of each lane of Z0 and Z5 (the key in
// Z10) to the sixteen values of dst (DI) from BX, and moves BX on.
#define MIXSTORE \
	VPXORQ    Z10, Z0, Z0       \
	VPXORQ    Z10, Z5, Z5       \
	MURMUR2                     \
	VMOVDQU64 Z0, (DI)(BX*8)    \
	VMOVDQU64 Z5, 64(DI)(BX*8)  \
	ADDQ      $16, BX

#define MULTIPLIERS \
	MOVQ         $0xff51afd7ed558ccd, AX \
	VPBROADCASTQ AX, Z11                 \
	MOVQ         $0xc4ceb9fe1a85ec53, AX \
	VPBROADCASTQ AX, Z12

// func murmurXorAVX512(dst, src *uint64, n int, key uint64)
//
// dst[i] = Murmur(src[i] ^ key) for i < n, n a multiple of 16: two
// vectors of eight at a time, so that one's multiplications run while the
// other's wait.
TEXT ·murmurXorAVX512(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VPBROADCASTQ key+24(FP), Z10
	MULTIPLIERS
	XORQ         BX, BX

mloop:
	CMPQ      BX, CX
	JGE       mdone
	VMOVDQU64 (SI)(BX*8), Z0
	VMOVDQU64 64(SI)(BX*8), Z5
	MIXSTORE
	JMP       mloop

mdone:
	VZEROUPPER
	RET

// func windowAVX512(dst, units *uint64, n int, pows *uint64, k int, add, key uint64)
//
// dst[i] = Murmur((units[i]·pows[0] + … + units[i+k-1]·pows[k-1] + add)
// ^ key) for i < n, n a multiple of 16, k at least 1: sixteen windows at a
// time, each power broadcast once for both vectors of eight.
TEXT ·windowAVX512(SB), NOSPLIT, $0-56
	MOVQ         dst+0(FP), DI
	MOVQ         units+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         pows+24(FP), R8
	MOVQ         k+32(FP), R9
	VPBROADCASTQ add+40(FP), Z9
	VPBROADCASTQ key+48(FP), Z10
	MULTIPLIERS
	XORQ         BX, BX

wloop:
	CMPQ      BX, CX
	JGE       wdone
	VMOVDQA64 Z9, Z0
	VMOVDQA64 Z9, Z5
	LEAQ      (SI)(BX*8), R10 // units[i+t]
	XORQ      R11, R11        // t

wterm:
	VPBROADCASTQ (R8)(R11*8), Z2
	VPMULLQ      (R10), Z2, Z3
	VPMULLQ      64(R10), Z2, Z4
	VPADDQ       Z3, Z0, Z0
	VPADDQ       Z4, Z5, Z5
	ADDQ         $8, R10
	INCQ         R11
	CMPQ         R11, R9
	JLT          wterm

	MIXSTORE
	JMP       wloop

wdone:
	VZEROUPPER
	RET
