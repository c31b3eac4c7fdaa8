#include "textflag.h"

// func nearAVX512(vals []uint64, p uint64, k int) int
//
// The index of the first value within k bits of p, or len(vals): eight
// values a step (XOR with p, VPOPCNTQ, compare with k), then the last ones
// one at a time with POPCNT.
TEXT ·nearAVX512(SB), NOSPLIT, $0-48
	MOVQ vals_base+0(FP), SI
	MOVQ vals_len+8(FP), CX
	MOVQ p+24(FP), DX
	MOVQ k+32(FP), R8
	VPBROADCASTQ DX, Z0
	VPBROADCASTQ R8, Z1
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-8, R9

loop8:
	CMPQ AX, R9
	JGE  tail
	VPXORQ   (SI)(AX*8), Z0, Z2
	VPOPCNTQ Z2, Z2
	VPCMPUQ  $2, Z1, Z2, K1
	KORTESTW K1, K1
	JNZ      found8
	ADDQ $8, AX
	JMP  loop8

found8:
	KMOVW K1, R10
	BSFL  R10, R10
	ADDQ  R10, AX
	JMP   done

tail:
	CMPQ AX, CX
	JGE  done
	MOVQ    (SI)(AX*8), R10
	XORQ    DX, R10
	POPCNTQ R10, R10
	CMPQ    R10, R8
	JLE     done
	INCQ AX
	JMP  tail

done:
	VZEROUPPER
	MOVQ AX, ret+40(FP)
	RET

// func nearPOPCNT(vals []uint64, p uint64, k int) int
//
// nearAVX512 with POPCNT, four values a step.
TEXT ·nearPOPCNT(SB), NOSPLIT, $0-48
	MOVQ vals_base+0(FP), SI
	MOVQ vals_len+8(FP), CX
	MOVQ p+24(FP), DX
	MOVQ k+32(FP), R8
	XORQ AX, AX
	MOVQ CX, R9
	ANDQ $-4, R9

loop4:
	CMPQ AX, R9
	JGE  tail1
	MOVQ    (SI)(AX*8), R10
	MOVQ    8(SI)(AX*8), R11
	MOVQ    16(SI)(AX*8), R12
	MOVQ    24(SI)(AX*8), R13
	XORQ    DX, R10
	XORQ    DX, R11
	XORQ    DX, R12
	XORQ    DX, R13
	POPCNTQ R10, R10
	POPCNTQ R11, R11
	POPCNTQ R12, R12
	POPCNTQ R13, R13
	CMPQ    R10, R8
	JLE     ret1
	CMPQ    R11, R8
	JLE     found1
	CMPQ    R12, R8
	JLE     found2
	CMPQ    R13, R8
	JLE     found3
	ADDQ $4, AX
	JMP  loop4

found1:
	ADDQ $1, AX
	JMP  ret1

found2:
	ADDQ $2, AX
	JMP  ret1

found3:
	ADDQ $3, AX
	JMP  ret1

tail1:
	CMPQ AX, CX
	JGE  ret1
	MOVQ    (SI)(AX*8), R10
	XORQ    DX, R10
	POPCNTQ R10, R10
	CMPQ    R10, R8
	JLE     ret1
	INCQ AX
	JMP  tail1

ret1:
	MOVQ AX, ret+40(FP)
	RET

// func nearAnyAVX512(vals, ps []uint64, k int) (int, int)
//
// The first query ps[i] with a value within k bits, and the first such
// value vals[j]: (i, j); or (len(ps), 0). For each query, eight values a
// step, the last step masked to the values left.
TEXT ·nearAnyAVX512(SB), NOSPLIT, $0-72
	MOVQ vals_base+0(FP), SI
	MOVQ vals_len+8(FP), CX
	MOVQ ps_base+24(FP), DI
	MOVQ ps_len+32(FP), BX
	MOVQ k+48(FP), R8
	VPBROADCASTQ R8, Z1
	MOVQ CX, R13
	ANDQ $-8, R13
	MOVQ CX, R11
	ANDQ $7, CX
	MOVL $1, R10
	SHLL CX, R10
	DECL R10
	KMOVW R10, K2
	MOVQ R11, CX
	XORQ R12, R12

queries:
	CMPQ R12, BX
	JGE  none
	VPBROADCASTQ (DI)(R12*8), Z0
	XORQ AX, AX

full:
	CMPQ AX, R13
	JGE  part
	VPXORQ   (SI)(AX*8), Z0, Z2
	VPOPCNTQ Z2, Z2
	VPCMPUQ  $2, Z1, Z2, K1
	KORTESTW K1, K1
	JNZ      hit
	ADDQ $8, AX
	JMP  full

part:
	KORTESTW K2, K2
	JZ       next
	VMOVDQU64.Z (SI)(AX*8), K2, Z2
	VPXORQ      Z2, Z0, Z2
	VPOPCNTQ    Z2, Z2
	VPCMPUQ     $2, Z1, Z2, K2, K1
	KORTESTW    K1, K1
	JNZ         hit

next:
	INCQ R12
	JMP  queries

hit:
	KMOVW K1, R10
	BSFL  R10, R10
	ADDQ  R10, AX
	MOVQ  R12, ret+56(FP)
	MOVQ  AX, ret1+64(FP)
	VZEROUPPER
	RET

none:
	MOVQ BX, ret+56(FP)
	MOVQ $0, ret1+64(FP)
	VZEROUPPER
	RET

// func nearAnyPOPCNT(vals, ps []uint64, k int) (int, int)
//
// nearAnyAVX512 with POPCNT, four values a step.
TEXT ·nearAnyPOPCNT(SB), NOSPLIT, $0-72
	MOVQ vals_base+0(FP), SI
	MOVQ vals_len+8(FP), CX
	MOVQ ps_base+24(FP), DI
	MOVQ ps_len+32(FP), BX
	MOVQ k+48(FP), R8
	LEAQ (DI)(BX*8), BX
	MOVQ CX, R9
	ANDQ $-4, R9

anyQueries:
	CMPQ DI, BX
	JGE  anyNone
	MOVQ (DI), DX
	XORQ AX, AX

anyFour:
	CMPQ AX, R9
	JGE  anyOne
	MOVQ    (SI)(AX*8), R10
	MOVQ    8(SI)(AX*8), R11
	MOVQ    16(SI)(AX*8), R12
	MOVQ    24(SI)(AX*8), R13
	XORQ    DX, R10
	XORQ    DX, R11
	XORQ    DX, R12
	XORQ    DX, R13
	POPCNTQ R10, R10
	POPCNTQ R11, R11
	POPCNTQ R12, R12
	POPCNTQ R13, R13
	CMPQ    R10, R8
	JLE     anyHit
	CMPQ    R11, R8
	JLE     anyHit1
	CMPQ    R12, R8
	JLE     anyHit2
	CMPQ    R13, R8
	JLE     anyHit3
	ADDQ $4, AX
	JMP  anyFour

anyOne:
	CMPQ AX, CX
	JGE  anyNext
	MOVQ    (SI)(AX*8), R10
	XORQ    DX, R10
	POPCNTQ R10, R10
	CMPQ    R10, R8
	JLE     anyHit
	INCQ AX
	JMP  anyOne

anyNext:
	ADDQ $8, DI
	JMP  anyQueries

anyHit1:
	ADDQ $1, AX
	JMP  anyHit

anyHit2:
	ADDQ $2, AX
	JMP  anyHit

anyHit3:
	ADDQ $3, AX

anyHit:
	SUBQ ps_base+24(FP), DI
	SHRQ $3, DI
	MOVQ DI, ret+56(FP)
	MOVQ AX, ret1+64(FP)
	RET

anyNone:
	MOVQ ps_len+32(FP), BX
	MOVQ BX, ret+56(FP)
	MOVQ $0, ret1+64(FP)
	RET
