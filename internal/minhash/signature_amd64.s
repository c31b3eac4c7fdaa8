#include "textflag.h"

// func signatureAVX512(a, b, sig *uint64, n int, set *uint64, m int)
//
// sig[i] = min(sig[i], min over j < m of a[i]*set[j] + b[i] (mod 2^64)), for
// i < n, n a multiple of 8. Blocks of 32 functions keep a, b and the four
// running minima in registers while the set streams past; a last block of 8
// handles the rest.
TEXT ·signatureAVX512(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ sig+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ set+32(FP), R8
	MOVQ m+40(FP), R9

block32:
	CMPQ CX, $32
	JLT  block8
	VMOVDQU64 (SI), Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 128(SI), Z2
	VMOVDQU64 192(SI), Z3
	VMOVDQU64 (DI), Z4
	VMOVDQU64 64(DI), Z5
	VMOVDQU64 128(DI), Z6
	VMOVDQU64 192(DI), Z7
	VMOVDQU64 (DX), Z8
	VMOVDQU64 64(DX), Z9
	VMOVDQU64 128(DX), Z10
	VMOVDQU64 192(DX), Z11
	MOVQ R8, R10
	MOVQ R9, R11

loop32:
	TESTQ R11, R11
	JZ    done32
	VPBROADCASTQ (R10), Z12
	VPMULLQ Z12, Z0, Z13
	VPMULLQ Z12, Z1, Z14
	VPMULLQ Z12, Z2, Z15
	VPMULLQ Z12, Z3, Z16
	VPADDQ  Z4, Z13, Z13
	VPADDQ  Z5, Z14, Z14
	VPADDQ  Z6, Z15, Z15
	VPADDQ  Z7, Z16, Z16
	VPMINUQ Z13, Z8, Z8
	VPMINUQ Z14, Z9, Z9
	VPMINUQ Z15, Z10, Z10
	VPMINUQ Z16, Z11, Z11
	ADDQ $8, R10
	DECQ R11
	JMP  loop32

done32:
	VMOVDQU64 Z8, (DX)
	VMOVDQU64 Z9, 64(DX)
	VMOVDQU64 Z10, 128(DX)
	VMOVDQU64 Z11, 192(DX)
	ADDQ $256, SI
	ADDQ $256, DI
	ADDQ $256, DX
	SUBQ $32, CX
	JMP  block32

block8:
	CMPQ CX, $8
	JLT  end
	VMOVDQU64 (SI), Z0
	VMOVDQU64 (DI), Z4
	VMOVDQU64 (DX), Z8
	MOVQ R8, R10
	MOVQ R9, R11

loop8:
	TESTQ R11, R11
	JZ    done8
	VPBROADCASTQ (R10), Z12
	VPMULLQ Z12, Z0, Z13
	VPADDQ  Z4, Z13, Z13
	VPMINUQ Z13, Z8, Z8
	ADDQ $8, R10
	DECQ R11
	JMP  loop8

done8:
	VMOVDQU64 Z8, (DX)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, DX
	SUBQ $8, CX
	JMP  block8

end:
	VZEROUPPER
	RET
