#include "textflag.h"

// func setInsertAVX512(a *uint64, n int, table *uint64, nb uint64, over *uint64, maxOver, ahead int) (done, nover, placed int, zero bool)
//
// appendBuckets' first loop: each value of a[:n] goes into the bucket of
// eight slots (a cache line) h·nb >> 64 of table. One compare of the
// eight slots with h and one test for empty ones give, without a branch
// on what they find, the bucket with h in its first empty slot unless h
// is there, stored whole (see appendBuckets): the slots of a bucket fill
// in order, so the first of those that hold h or are empty is h's own
// when it is there (written again) and the first empty one when it is
// not. A full bucket without h
// sends h to over, until maxOver are there: then the loop stops, done
// short of n. placed counts the values put in a slot. The value 0 (the
// empty slot's) sets zero instead. Each value before ahead first asks for
// the bucket of the value 16 after it (PREFETCHT0), from its top 32 bits
// (the bucket or the one before it).
TEXT ·setInsertAVX512(SB), NOSPLIT, $0-81
	MOVQ a+0(FP), SI
	XORQ R8, R8           // placed
	MOVQ table+16(FP), DI
	MOVQ nb+24(FP), CX
	MOVQ over+32(FP), R9
	MOVQ maxOver+40(FP), R11
	XORQ BX, BX           // done
	XORQ R12, R12         // nover
	XORQ R14, R14         // zero
	KXORB K7, K7, K7      // 0

loop:
	CMPQ         BX, n+8(FP)
	JGE          done
	CMPQ         BX, ahead+48(FP)
	JGE          take
	MOVQ         128(SI)(BX*8), AX
	SHRQ         $32, AX
	IMULQ        CX, AX
	SHRQ         $32, AX
	SHLQ         $6, AX
	PREFETCHT0   (DI)(AX*1)

take:
	MOVQ         (SI)(BX*8), DX // h (MULX's source)
	INCQ         BX
	TESTQ        DX, DX
	JZ           zero
	MULXQ        CX, AX, R10
	SHLQ         $6, R10
	ADDQ         DI, R10  // the bucket
	VPBROADCASTQ DX, Z1
	VMOVDQU64    (R10), Z0
	VPCMPEQQ     Z1, Z0, K1
	VPTESTNMQ    Z0, Z0, K2
	KORB         K1, K2, K3
	KMOVB        K3, R13
	BLSIL        R13, R13 // h's slot, or else the first empty one
	JZ           full
	KMOVB        R13, K3
	VMOVDQA64    Z1, K3, Z0
	VMOVDQU64    Z0, (R10)
	KTESTB       K1, K7   // CF: no slot held h
	ADCQ         $0, R8
	JMP          loop

full:
	CMPQ R12, R11
	JGE  crowded
	MOVQ DX, (R9)(R12*8)
	INCQ R12
	JMP  loop

zero:
	MOVL $1, R14
	JMP  loop

crowded:
	DECQ BX

done:
	MOVQ BX, done+56(FP)
	MOVQ R12, nover+64(FP)
	MOVQ R8, placed+72(FP)
	MOVB R14, zero+80(FP)
	VZEROUPPER
	RET

// STEP is a step of the network on the lanes of v, into w: each lane
// and its partner (the permutation p) give it the smaller of the two, or
// the larger in the lanes of the mask k.
#define STEP(p, k, v, w) \
	VPERMQ  v, p, Z3; \
	VPMINUQ Z3, v, w; \
	VPMAXUQ Z3, v, k, w

// func setEmitAVX512(table *uint64, nb int, dst *uint64, net *sortNet) int
//
// appendBuckets' second loop: the values of each of the nb buckets of
// table, sorted by a bitonic network of six steps on the eight lanes
// (net: each step's partner lanes, and which lanes take the larger of the
// two), empty slots made the largest value so that they sort last, then
// all eight stored and the count of values kept; each bucket is emptied
// as it is read. It returns how many it wrote to dst, which has room for
// eight past the last.
TEXT ·setEmitAVX512(SB), NOSPLIT, $0-40
	MOVQ       table+0(FP), SI
	MOVQ       nb+8(FP), CX
	MOVQ       dst+16(FP), DI
	MOVQ       net+24(FP), R8
	VMOVDQU64  0(R8), Z20
	VMOVDQU64  64(R8), Z21
	VMOVDQU64  128(R8), Z22
	VMOVDQU64  192(R8), Z23
	VMOVDQU64  256(R8), Z24
	VMOVDQU64  320(R8), Z25
	KMOVB      384(R8), K1
	KMOVB      385(R8), K2
	KMOVB      386(R8), K3
	KMOVB      387(R8), K4
	KMOVB      388(R8), K5
	KMOVB      389(R8), K6
	VPTERNLOGQ $0xff, Z31, Z31, Z31
	VPXORQ     Z30, Z30, Z30
	XORQ       AX, AX

eloop:
	TESTQ     CX, CX
	JZ        edone
	VMOVDQU64 (SI), Z0
	VMOVDQU64 Z30, (SI)
	VPTESTMQ  Z0, Z0, K7
	VPBLENDMQ Z0, Z31, K7, Z2
	STEP(Z20, K1, Z2, Z4)
	STEP(Z21, K2, Z4, Z2)
	STEP(Z22, K3, Z2, Z4)
	STEP(Z23, K4, Z4, Z2)
	STEP(Z24, K5, Z2, Z4)
	STEP(Z25, K6, Z4, Z2)
	VMOVDQU64 Z2, (DI)(AX*8)
	KMOVB     K7, DX
	POPCNTL   DX, DX
	ADDQ      DX, AX
	ADDQ      $64, SI
	DECQ      CX
	JMP       eloop

edone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET
