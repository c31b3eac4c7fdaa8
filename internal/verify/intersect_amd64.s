#include "textflag.h"

// func intersectAVX2(a, b []uint64, slack int) (n, i, j int)
//
// Blocks of four values of each list (Schlegel, Willhalm and Lehner's
// merge): each value of a's block is compared with the four of b's (b's
// rotated three times), and a value is in each list once, so the count of
// a's lanes that match is the block's share of the intersection. The block
// whose last value is the smaller moves on (both when they are equal): no
// value of it can match a later block of the other. The moves are made by
// SETcc, without a branch: which list moves on is at random, and a branch
// on it is mispredicted half the time, as in the loop a value at a time.
// A match is counted once its two blocks meet, so the values counted lie
// in a[:i+4] and b[:j+4], and the values left to match in a[i:] and b[j:]:
// when i+j-2n passes slack, fewer than need are common (intersectAtLeast),
// and the loop stops.
TEXT ·intersectAVX2(SB), NOSPLIT, $0-80
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), R8
	MOVQ b_base+24(FP), DI
	MOVQ b_len+32(FP), R9
	MOVQ slack+48(FP), R10
	XORQ AX, AX // n
	XORQ BX, BX // i
	XORQ CX, CX // j
	SUBQ $4, R8 // the last i with four values from it
	SUBQ $4, R9

loop:
	CMPQ      BX, R8
	JGT       done
	CMPQ      CX, R9
	JGT       done
	VMOVDQU   (SI)(BX*8), Y0
	VMOVDQU   (DI)(CX*8), Y1
	VPCMPEQQ  Y0, Y1, Y2
	VPERMQ    $0x39, Y1, Y3
	VPCMPEQQ  Y0, Y3, Y4
	VPERMQ    $0x4e, Y1, Y3
	VPCMPEQQ  Y0, Y3, Y5
	VPERMQ    $0x93, Y1, Y3
	VPCMPEQQ  Y0, Y3, Y6
	VPOR      Y2, Y4, Y2
	VPOR      Y5, Y6, Y5
	VPOR      Y2, Y5, Y2
	VMOVMSKPD Y2, DX
	POPCNTL   DX, DX
	ADDQ      DX, AX
	MOVQ      24(SI)(BX*8), DX  // a's block's last
	MOVQ      24(DI)(CX*8), R11 // b's block's last
	XORL      R12, R12
	XORL      R13, R13
	CMPQ      DX, R11
	SETLS     R12               // a's last ≤ b's (unsigned)
	SETCC     R13               // a's last ≥ b's
	LEAQ      (BX)(R12*4), BX
	LEAQ      (CX)(R13*4), CX
	LEAQ      (BX)(CX*1), R12   // unmatched so far: i+j-2n
	SUBQ      AX, R12
	SUBQ      AX, R12
	CMPQ      R12, R10
	JLE       loop

done:
	VZEROUPPER
	MOVQ AX, n+56(FP)
	MOVQ BX, i+64(FP)
	MOVQ CX, j+72(FP)
	RET
