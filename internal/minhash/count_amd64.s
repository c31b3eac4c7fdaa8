#include "textflag.h"

// func countAVX512(hs *uint64, n int, bins *uint64, filled *bool, m uint64, table *uint64, nb, tbytes uint64, st *countState) int
//
// OPH.countSum's loop over n hashes: each lowers the minimum of its bin
// (bins[h·m >> 64]) and marks the bin filled, then goes into the table of
// buckets of eight slots, one cache line each, at the bucket h·nb >> 64
// of the nb. One compare of the eight slots with h and one test
// for empty ones give, without a branch on what they find, the bucket
// with h in its first empty slot unless h is there (the slots of a bucket
// fill in order, so the first that holds h or is empty is h's own when it
// is there, written again, and else the first empty one), which is stored
// whole (the table holds each value once: tallyAVX512 counts and sums
// them at the end): the next load of a bucket
// just written then takes the store's 64 bytes as they are, where after a
// store of one slot it waited (BenchmarkOPHSignatureCountSum at 1,000
// values: 4.5 µs, 3.9 µs so). A bucket with neither goes on
// to the next (the last to the first), each step taken from
// st.budget; when that runs out the loop stops, st.crowded set. The hash
// 0 (the empty slot's) sets st.zero instead. With st.prefetch set, the
// bucket of the hash 16 ahead is asked for first (PREFETCHT0), from its top
// 32 bits (the bucket or the one before it). It returns how many hashes it
// binned.
TEXT ·countAVX512(SB), NOSPLIT, $0-80
	MOVQ hs+0(FP), SI
	MOVQ bins+16(FP), R9
	MOVQ filled+24(FP), R11
	MOVQ table+40(FP), DI
	MOVQ nb+48(FP), CX
	MOVQ st+64(FP), R10
	XORQ R14, R14     // the hashes before R14 have one 16 ahead to prefetch
	CMPQ 24(R10), $0  // st.prefetch
	JEQ  start
	MOVQ n+8(FP), R14
	SUBQ $16, R14

start:
	XORQ BX, BX

loop:
	CMPQ    BX, n+8(FP)
	JGE     done
	CMPQ    BX, R14
	JGE     take
	MOVQ    128(SI)(BX*8), R12
	SHRQ    $32, R12
	IMULQ   CX, R12
	SHRQ    $32, R12       // the bucket, or the one before it
	SHLQ    $6, R12
	PREFETCHT0 (DI)(R12*1)

take:
	MOVQ    (SI)(BX*8), DX // h (MULX's source)
	MULXQ   m+32(FP), AX, R12 // R12: the bin
	MOVQ    (R9)(R12*8), R10
	CMPQ    DX, R10
	CMOVQCS DX, R10
	MOVQ    R10, (R9)(R12*8)
	MOVB    $1, (R11)(R12*1)
	INCQ    BX
	TESTQ   DX, DX
	JZ      zero
	MULXQ   CX, AX, R8
	SHLQ    $6, R8         // the bucket's byte offset
	VPBROADCASTQ DX, Z1

probe:
	LEAQ      (DI)(R8*1), R13
	VMOVDQU64 (R13), Z0
	VPCMPEQQ  Z1, Z0, K1
	VPTESTNMQ Z0, Z0, K2
	KORB      K1, K2, K3
	KMOVB     K3, R10
	BLSIL     R10, R10       // h's slot, or else the first empty one
	JZ        over
	KMOVB     R10, K3
	VMOVDQA64 Z1, K3, Z0
	VMOVDQU64 Z0, (R13)      // the whole bucket
	JMP       loop

over:
	MOVQ st+64(FP), R10
	DECQ 8(R10)
	JS   crowded
	ADDQ $64, R8
	CMPQ R8, tbytes+56(FP)
	JLT  probe
	XORQ R8, R8
	JMP  probe

zero:
	MOVQ st+64(FP), R10
	MOVQ $1, 0(R10)
	JMP  loop

crowded:
	MOVQ $1, 16(R10)

done:
	MOVQ BX, ret+72(FP)
	VZEROUPPER
	RET

// func tallyAVX512(table *uint64, n int) (count, sum uint64)
//
// The values of table[:n] that are not 0 (n a multiple of 8): how many,
// from a test of each eight, and their sum, from the sums of each lane
// (an empty slot adds 0). Each eight are set to 0 as they are read.
TEXT ·tallyAVX512(SB), NOSPLIT, $0-32
	MOVQ   table+0(FP), SI
	MOVQ   n+8(FP), CX
	XORQ   AX, AX
	XORQ   BX, BX
	VPXORQ Z1, Z1, Z1
	VPXORQ Z3, Z3, Z3

tloop:
	CMPQ      BX, CX
	JGE       tdone
	VMOVDQU64 (SI)(BX*8), Z0
	VMOVDQU64 Z3, (SI)(BX*8)
	VPTESTMQ  Z0, Z0, K1
	VPADDQ    Z0, Z1, Z1
	KMOVB     K1, DX
	POPCNTL   DX, DX
	ADDQ      DX, AX
	ADDQ      $8, BX
	JMP       tloop

tdone:
	VEXTRACTI64X4 $1, Z1, Y2
	VPADDQ        Y2, Y1, Y1
	VEXTRACTI128  $1, Y1, X2
	VPADDQ        X2, X1, X1
	VPSHUFD       $0x4e, X1, X2
	VPADDQ        X2, X1, X1
	VMOVQ         X1, DX
	MOVQ          AX, count+16(FP)
	MOVQ          DX, sum+24(FP)
	VZEROUPPER
	RET

// func agreementsAVX512(a, b *byte, n int) (done, differ int)
//
// The half bytes of a[:done] and b[:done] that differ, 64 bytes at a time
// (done is n rounded down to 64): a^b tested against 0x0f and 0xf0 in
// each byte gives the masks of the low and high halves that differ.
TEXT ·agreementsAVX512(SB), NOSPLIT, $0-40
	MOVQ         a+0(FP), SI
	MOVQ         b+8(FP), DI
	MOVQ         n+16(FP), CX
	ANDQ         $-64, CX
	MOVL         $0x0f0f0f0f, AX
	VPBROADCASTD AX, Z10
	MOVL         $0xf0f0f0f0, AX
	VPBROADCASTD AX, Z11
	XORQ         AX, AX
	XORQ         BX, BX

aloop:
	CMPQ      BX, CX
	JGE       adone
	VMOVDQU8  (SI)(BX*1), Z0
	VPXORQ    (DI)(BX*1), Z0, Z0
	VPTESTMB  Z10, Z0, K1
	VPTESTMB  Z11, Z0, K2
	KMOVQ     K1, DX
	POPCNTQ   DX, DX
	ADDQ      DX, AX
	KMOVQ     K2, DX
	POPCNTQ   DX, DX
	ADDQ      DX, AX
	ADDQ      $64, BX
	JMP       aloop

adone:
	MOVQ CX, done+24(FP)
	MOVQ AX, differ+32(FP)
	VZEROUPPER
	RET
