#include "textflag.h"

// func intersectVector(a, b []uint64, slack int, wide bool) (n, i, j int)
//
// Two ways to take four values of each list at a time. Lockstep: where the
// lists agree (near-duplicates, the pairs verify mostly gets), the four of
// each are equal in turn, counted and passed at once; at the first lane
// that differs the lanes before it are counted and the smaller of the two
// values that differ moves on alone, which brings the lists back in step
// past a value the other lacks. Blocks (Schlegel, Willhalm and Lehner's
// merge): each value of a's block is compared with the four of b's (b's
// rotated three times), and a value is in each list once, so the count of
// a's lanes that match is the block's share of the intersection; the block
// whose last value is the smaller moves on (both when they are equal), by
// SETcc, without a branch, which would be mispredicted half the time on
// lists that differ. Four values that differ in lockstep in a row, with no
// four equal between them, switch to block steps, 8 at first, twice as
// many each time up to 1024 until four are equal again: lists that share
// little spend their time in blocks, near-duplicates in lockstep. Either
// way a value counted is never met again (a value is in each list once),
// and the values left to match lie in a[i:] and b[j:]: when i+j-2n passes
// slack, fewer than need are common (intersectAtLeast), and the loop stops.
//
// wide (AVX-512) makes the blocks eight values of each list: each of a's
// eight is compared with b's eight rotated seven times (VALIGNQ), the
// masks of the eight compares or'ed. Lockstep stays at four (at eight it
// lost to four on lists that differ in one value of ten: a list moves on by
// one value at each that differs, and a load of 64 bytes from there
// crosses a cache line each time). The loop runs while eight values of
// each list are left.
//
// R13 is the mode: above 0 the block steps left to take; else minus the
// values that differed in lockstep since four were last equal. back holds
// the block steps of the next switch. R14 is wide.
TEXT ·intersectVector(SB), NOSPLIT, $8-88
	MOVQ    a_base+0(FP), SI
	MOVQ    a_len+8(FP), R8
	MOVQ    b_base+24(FP), DI
	MOVQ    b_len+32(FP), R9
	MOVQ    slack+48(FP), R10
	MOVBQZX wide+56(FP), R14
	XORQ    AX, AX  // n
	XORQ    BX, BX  // i
	XORQ    CX, CX  // j
	XORQ    R13, R13
	MOVQ    $8, back-8(SP)
	SUBQ    $8, R8  // the last i with eight values from it
	SUBQ    $8, R9

loop:
	CMPQ    BX, R8
	JGT     done
	CMPQ    CX, R9
	JGT     done
	CMPQ    R13, $0
	JGT     block

	// Lockstep.
	VMOVDQU   (SI)(BX*8), Y0
	VMOVDQU   (DI)(CX*8), Y1
	VPCMPEQQ  Y0, Y1, Y2
	VMOVMSKPD Y2, DX
	CMPL      DX, $15
	JNE       differ
	ADDQ      $4, AX
	ADDQ      $4, BX
	ADDQ      $4, CX
	XORL      R13, R13
	MOVQ      $8, back-8(SP)
	JMP       loop

differ:
	NOTL DX
	BSFL DX, DX              // the first lane that differs
	ADDQ DX, AX
	ADDQ DX, BX
	ADDQ DX, CX
	MOVQ (SI)(BX*8), R11
	MOVQ (DI)(CX*8), R12
	CMPQ R11, R12
	JHI  bmoves              // a's value > b's (unsigned): b's moves on
	INCQ BX
	JMP  moved

bmoves:
	INCQ CX

moved:
	DECQ    R13
	CMPQ    R13, $-4
	JGT     check
	MOVQ    back-8(SP), R13
	LEAQ    (R13)(R13*1), R11
	MOVQ    $1024, R12
	CMPQ    R11, R12
	CMOVQGT R12, R11
	MOVQ    R11, back-8(SP)
	JMP     check

block:
	DECQ    R13
	TESTQ   R14, R14
	JNZ     block8
	VMOVDQU (SI)(BX*8), Y0
	VMOVDQU (DI)(CX*8), Y1
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
	CMPQ      DX, R11
	MOVL      $0, DX            // (MOV leaves the flags)
	MOVL      $0, R11
	SETLS     DX                // a's last ≤ b's (unsigned)
	SETCC     R11               // a's last ≥ b's
	LEAQ      (BX)(DX*4), BX
	LEAQ      (CX)(R11*4), CX
	JMP       check

block8:
	VMOVDQU64 (SI)(BX*8), Z0
	VMOVDQU64 (DI)(CX*8), Z1
	VPCMPEQQ  Z1, Z0, K1
	VALIGNQ   $1, Z1, Z1, Z2
	VPCMPEQQ  Z2, Z0, K2
	VALIGNQ   $2, Z1, Z1, Z3
	VPCMPEQQ  Z3, Z0, K3
	VALIGNQ   $3, Z1, Z1, Z4
	VPCMPEQQ  Z4, Z0, K4
	VALIGNQ   $4, Z1, Z1, Z5
	VPCMPEQQ  Z5, Z0, K5
	VALIGNQ   $5, Z1, Z1, Z6
	VPCMPEQQ  Z6, Z0, K6
	VALIGNQ   $6, Z1, Z1, Z7
	VPCMPEQQ  Z7, Z0, K7
	VALIGNQ   $7, Z1, Z1, Z8
	VPCMPEQQ  Z8, Z0, K0
	KORW      K1, K2, K1
	KORW      K3, K4, K3
	KORW      K5, K6, K5
	KORW      K7, K0, K7
	KORW      K1, K3, K1
	KORW      K5, K7, K5
	KORW      K1, K5, K1
	KMOVW     K1, DX
	POPCNTL   DX, DX
	ADDQ      DX, AX
	MOVQ      56(SI)(BX*8), DX  // a's block's last
	MOVQ      56(DI)(CX*8), R11 // b's block's last
	CMPQ      DX, R11
	MOVL      $0, DX            // (MOV leaves the flags)
	MOVL      $0, R11
	SETLS     DX                // a's last ≤ b's (unsigned)
	SETCC     R11               // a's last ≥ b's
	LEAQ      (BX)(DX*8), BX
	LEAQ      (CX)(R11*8), CX

check:
	LEAQ (BX)(CX*1), R12 // unmatched so far: i+j-2n
	SUBQ AX, R12
	SUBQ AX, R12
	CMPQ R12, R10
	JLE  loop

done:
	VZEROUPPER
	MOVQ AX, n+64(FP)
	MOVQ BX, i+72(FP)
	MOVQ CX, j+80(FP)
	RET
