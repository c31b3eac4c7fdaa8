#include "textflag.h"

// func dfsAVX512(slots *uint64, hs *uint64, n int, out *uint64, mul, shift, b, cmask uint64)
//
// dfMap.DF of each of hs[:n] into out, without a branch on where in its
// bucket a hash is: the bucket's eight slots with their counts masked off
// are compared with the hash's key at once, and its empty slots tested;
// the first slot that is either gives the answer, 0 when it is empty.
// A hash with neither, or whose count field is all ones, gets ^0: it is
// in the map of the overflow (appendDFs looks it up).
TEXT ·dfsAVX512(SB), NOSPLIT, $0-64
	MOVQ         slots+0(FP), DI
	MOVQ         hs+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         out+24(FP), R8
	MOVQ         mul+32(FP), R12
	MOVQ         shift+40(FP), R13
	MOVQ         b+48(FP), R14
	MOVQ         cmask+56(FP), R15
	VPBROADCASTQ R15, Z30
	XORQ         BX, BX

loop:
	CMPQ         BX, CX
	JGE          done
	MOVQ         (SI)(BX*8), AX
	IMULQ        R12, AX           // x
	SHRXQ        R13, AX, DX       // its bucket
	SHLQ         $6, DX
	ADDQ         DI, DX
	SHLXQ        R14, AX, AX       // its key
	VPBROADCASTQ AX, Z1
	VMOVDQU64    (DX), Z0
	VPANDNQ      Z0, Z30, Z2       // the slots' keys
	VPCMPEQQ     Z1, Z2, K1
	VPTESTNMQ    Z0, Z0, K2
	KORB         K1, K2, K3
	KMOVB        K3, AX
	TZCNTL       AX, AX            // the first of either: 32 for none
	CMPL         AX, $8
	JAE          over
	KMOVB        K2, R9
	BTL          AX, R9
	JCS          empty
	MOVQ         (DX)(AX*8), R10
	ANDQ         R15, R10
	CMPQ         R10, R15
	JEQ          over
	MOVQ         R10, (R8)(BX*8)
	INCQ         BX
	JMP          loop

empty:
	MOVQ $0, (R8)(BX*8)
	INCQ BX
	JMP  loop

over:
	MOVQ $-1, (R8)(BX*8)
	INCQ BX
	JMP  loop

done:
	VZEROUPPER
	RET

// func prefetchBuckets(slots *uint64, hs *uint64, n int, mul, shift uint64)
//
// A prefetch of the bucket of each of hs[:n]: unlike a load (dfMap.touch),
// it is done once issued, so many more misses are under way at once.
TEXT ·prefetchBuckets(SB), NOSPLIT, $0-40
	MOVQ slots+0(FP), DI
	MOVQ hs+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ mul+24(FP), R12
	MOVQ shift+32(FP), R13
	XORQ BX, BX

ploop:
	CMPQ       BX, CX
	JGE        pdone
	MOVQ       (SI)(BX*8), AX
	IMULQ      R12, AX
	SHRXQ      R13, AX, DX
	SHLQ       $6, DX
	PREFETCHT0 (DI)(DX*1)
	INCQ       BX
	JMP        ploop

pdone:
	RET
