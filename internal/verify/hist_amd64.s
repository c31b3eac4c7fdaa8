#include "textflag.h"

// func histMinAVX512(a, b *uint8, n int) int
//
// The sum of the minima of a[k] and b[k], k < n (a multiple of 64): the
// minima of 64 bytes at once (VPMINUB), summed in groups of eight into
// the lanes (VPSADBW against 0), the lanes summed at the end.
TEXT ·histMinAVX512(SB), NOSPLIT, $0-32
	MOVQ   a+0(FP), SI
	MOVQ   b+8(FP), DI
	MOVQ   n+16(FP), CX
	XORQ   BX, BX
	VPXORQ Z1, Z1, Z1
	VPXORQ Z31, Z31, Z31

loop:
	CMPQ      BX, CX
	JGE       done
	VMOVDQU8  (SI)(BX*1), Z0
	VPMINUB   (DI)(BX*1), Z0, Z0
	VPSADBW   Z31, Z0, Z0
	VPADDQ    Z0, Z1, Z1
	ADDQ      $64, BX
	JMP       loop

done:
	VEXTRACTI64X4 $1, Z1, Y2
	VPADDQ        Y2, Y1, Y1
	VEXTRACTI128  $1, Y1, X2
	VPADDQ        X2, X1, X1
	VPSHUFD       $0x4e, X1, X2
	VPADDQ        X2, X1, X1
	VMOVQ         X1, AX
	MOVQ          AX, ret+24(FP)
	VZEROUPPER
	RET

// func histMinHalfAVX512(a, b *uint8, n int) int
//
// The sum of the minima of a[2k]+a[2k+1] and b[k], k < n (a multiple of
// 64): 128 bytes of a summed by pairs into 64 words (VPMADDUBSW by 1s,
// at most 510), against 64 bytes of b widened to words (VPMOVZXBW), the
// minima (VPMINUW) summed by pairs into doublewords (VPMADDWD by 1s).
TEXT ·histMinHalfAVX512(SB), NOSPLIT, $0-32
	MOVQ         a+0(FP), SI
	MOVQ         b+8(FP), DI
	MOVQ         n+16(FP), CX
	XORQ         BX, BX
	VPXORQ       Z4, Z4, Z4
	MOVL         $0x01010101, AX
	VPBROADCASTD AX, Z30           // bytes of 1
	MOVL         $0x00010001, AX
	VPBROADCASTD AX, Z29           // words of 1

hloop:
	CMPQ       BX, CX
	JGE        hdone
	VMOVDQU8   (SI)(BX*2), Z0
	VMOVDQU8   64(SI)(BX*2), Z1
	VPMADDUBSW Z30, Z0, Z0
	VPMADDUBSW Z30, Z1, Z1
	VPMOVZXBW  (DI)(BX*1), Z2
	VPMOVZXBW  32(DI)(BX*1), Z3
	VPMINUW    Z2, Z0, Z0
	VPMINUW    Z3, Z1, Z1
	VPMADDWD   Z29, Z0, Z0
	VPMADDWD   Z29, Z1, Z1
	VPADDD     Z0, Z4, Z4
	VPADDD     Z1, Z4, Z4
	ADDQ       $64, BX
	JMP        hloop

hdone:
	VEXTRACTI64X4 $1, Z4, Y5
	VPADDD        Y5, Y4, Y4
	VEXTRACTI128  $1, Y4, X5
	VPADDD        X5, X4, X4
	VPSHUFD       $0x4e, X4, X5
	VPADDD        X5, X4, X4
	VPSHUFD       $0xb1, X4, X5
	VPADDD        X5, X4, X4
	VMOVD         X4, AX
	MOVQ          AX, ret+24(FP)
	VZEROUPPER
	RET
