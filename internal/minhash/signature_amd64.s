#include "textflag.h"

// func signatureAVX512(a, b, sig *uint64, n int, set *uint64, m int)
//
// sig[i] = min(sig[i], min over j < m of a[i]*set[j] + b[i] (mod 2^64)), for
// i < n, n a multiple of 8. Blocks of 32 functions keep a, b and the four
// running minima in registers while the set streams past; a block of 16,
// then one of 8, handle the rest. A block of 8 has one running minimum, and
// its loop costs as much as a block of 32's, the vector units waiting on
// the loop's own instructions: two of them were as slow as two of 32, a
// block of 16 is two minima in one loop.
TEXT ·signatureAVX512(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ sig+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ set+32(FP), R8
	MOVQ m+40(FP), R9

block32:
	CMPQ CX, $32
	JLT  block16
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

block16:
	CMPQ CX, $16
	JLT  block8
	VMOVDQU64 (SI), Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 (DI), Z4
	VMOVDQU64 64(DI), Z5
	VMOVDQU64 (DX), Z8
	VMOVDQU64 64(DX), Z9
	MOVQ R8, R10
	MOVQ R9, R11

loop16:
	TESTQ R11, R11
	JZ    done16
	VPBROADCASTQ (R10), Z12
	VPMULLQ Z12, Z0, Z13
	VPMULLQ Z12, Z1, Z14
	VPADDQ  Z4, Z13, Z13
	VPADDQ  Z5, Z14, Z14
	VPMINUQ Z13, Z8, Z8
	VPMINUQ Z14, Z9, Z9
	ADDQ $8, R10
	DECQ R11
	JMP  loop16

done16:
	VMOVDQU64 Z8, (DX)
	VMOVDQU64 Z9, 64(DX)
	ADDQ $128, SI
	ADDQ $128, DI
	ADDQ $128, DX
	SUBQ $16, CX

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

// func signatureAVX2(a, b, sig *uint64, n int, set *uint64, m int)
//
// The same as signatureAVX512 with AVX2, which has neither a 64-bit
// multiply nor an unsigned 64-bit minimum. a·x mod 2^64 is built from
// 32-bit products: lo(a)·lo(x) + (lo(a)·hi(x) + hi(a)·lo(x))·2^32, where
// the two cross products count only mod 2^32: one VPMULLD of a by x with
// its halves swapped gives both, one in each half of a lane (T), and
// (T << 32) + (T & top halves) is their sum in the top half. That is two
// multiplications per four functions, where three VPMULUDQ took 4 % more
// time (BenchmarkSignatureScalarVsVector, AMD EPYC, Zen 3). The minimum
// is a signed comparison of values with their top bit flipped (x ^ 2^63
// orders as signed the way x orders unsigned): b is flipped once (adding
// 2^63 is flipping it), so a·x + (b ^ 2^63) is the flipped value, the
// running minima are kept flipped and flipped back when stored. Blocks of
// 16 functions keep b and the minima in registers (a is read from memory)
// while the set streams past, then a block of 8 keeps all three; n is a
// multiple of 8. Sixteen at a time took 10 to 13 % less time than eight
// (BenchmarkFamilySignature, interleaved runs, AMD EPYC, Zen 3).
TEXT ·signatureAVX2(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ sig+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ set+32(FP), R8
	MOVQ m+40(FP), R9
	VPCMPEQQ Y15, Y15, Y15
	VPSLLQ   $63, Y15, Y15 // the top bit of each lane
	VPCMPEQQ Y14, Y14, Y14
	VPSLLQ   $32, Y14, Y14 // the top half of each lane

	// Blocks of 16 functions: the set's value is broadcast and swapped
	// once for 16, and a is read from memory (the loads are cheap, the
	// registers few): b and the minima of 16 fill eight registers.
block16avx2:
	CMPQ CX, $16
	JLT  block8avx2
	VMOVDQU 0(DI), Y4
	VPXOR   Y15, Y4, Y4
	VMOVDQU 0(DX), Y0
	VPXOR   Y15, Y0, Y0
	VMOVDQU 32(DI), Y5
	VPXOR   Y15, Y5, Y5
	VMOVDQU 32(DX), Y1
	VPXOR   Y15, Y1, Y1
	VMOVDQU 64(DI), Y6
	VPXOR   Y15, Y6, Y6
	VMOVDQU 64(DX), Y2
	VPXOR   Y15, Y2, Y2
	VMOVDQU 96(DI), Y7
	VPXOR   Y15, Y7, Y7
	VMOVDQU 96(DX), Y3
	VPXOR   Y15, Y3, Y3
	MOVQ    R8, R10
	MOVQ    R9, R11

loop16avx2:
	TESTQ R11, R11
	JZ    done16avx2
	VPBROADCASTQ (R10), Y8
	VPSHUFD   $0xb1, Y8, Y9 // x with its halves swapped
	VPMULUDQ  0(SI), Y8, Y10
	VPMULLD   0(SI), Y9, Y11
	VPSLLQ    $32, Y11, Y12
	VPAND     Y14, Y11, Y11
	VPADDQ    Y12, Y10, Y10
	VPADDQ    Y11, Y10, Y10
	VPADDQ    Y4, Y10, Y10
	VPCMPGTQ  Y10, Y0, Y12
	VPBLENDVB Y12, Y10, Y0, Y0
	VPMULUDQ  32(SI), Y8, Y10
	VPMULLD   32(SI), Y9, Y11
	VPSLLQ    $32, Y11, Y12
	VPAND     Y14, Y11, Y11
	VPADDQ    Y12, Y10, Y10
	VPADDQ    Y11, Y10, Y10
	VPADDQ    Y5, Y10, Y10
	VPCMPGTQ  Y10, Y1, Y12
	VPBLENDVB Y12, Y10, Y1, Y1
	VPMULUDQ  64(SI), Y8, Y10
	VPMULLD   64(SI), Y9, Y11
	VPSLLQ    $32, Y11, Y12
	VPAND     Y14, Y11, Y11
	VPADDQ    Y12, Y10, Y10
	VPADDQ    Y11, Y10, Y10
	VPADDQ    Y6, Y10, Y10
	VPCMPGTQ  Y10, Y2, Y12
	VPBLENDVB Y12, Y10, Y2, Y2
	VPMULUDQ  96(SI), Y8, Y10
	VPMULLD   96(SI), Y9, Y11
	VPSLLQ    $32, Y11, Y12
	VPAND     Y14, Y11, Y11
	VPADDQ    Y12, Y10, Y10
	VPADDQ    Y11, Y10, Y10
	VPADDQ    Y7, Y10, Y10
	VPCMPGTQ  Y10, Y3, Y12
	VPBLENDVB Y12, Y10, Y3, Y3
	ADDQ $8, R10
	DECQ R11
	JMP  loop16avx2

done16avx2:
	VPXOR   Y15, Y0, Y0
	VMOVDQU Y0, 0(DX)
	VPXOR   Y15, Y1, Y1
	VMOVDQU Y1, 32(DX)
	VPXOR   Y15, Y2, Y2
	VMOVDQU Y2, 64(DX)
	VPXOR   Y15, Y3, Y3
	VMOVDQU Y3, 96(DX)
	ADDQ $128, SI
	ADDQ $128, DI
	ADDQ $128, DX
	SUBQ $16, CX
	JMP  block16avx2

block8avx2:
	CMPQ CX, $8
	JLT  endavx2
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU (DI), Y4
	VMOVDQU 32(DI), Y5
	VPXOR   Y15, Y4, Y4
	VPXOR   Y15, Y5, Y5
	VMOVDQU (DX), Y6
	VMOVDQU 32(DX), Y7
	VPXOR   Y15, Y6, Y6
	VPXOR   Y15, Y7, Y7
	MOVQ    R8, R10
	MOVQ    R9, R11

loop8avx2:
	TESTQ R11, R11
	JZ    done8avx2
	VPBROADCASTQ (R10), Y8
	VPSHUFD   $0xb1, Y8, Y9 // x with its halves swapped
	VPMULUDQ  Y8, Y0, Y10   // lo(a)·lo(x)
	VPMULLD   Y9, Y0, Y11   // T: lo(a)·hi(x), hi(a)·lo(x) mod 2^32
	VPSLLQ    $32, Y11, Y12
	VPAND     Y14, Y11, Y11
	VPADDQ    Y12, Y10, Y10
	VPADDQ    Y11, Y10, Y10
	VPADDQ    Y4, Y10, Y10
	VPCMPGTQ  Y10, Y6, Y12
	VPBLENDVB Y12, Y10, Y6, Y6
	VPMULUDQ  Y8, Y1, Y13
	VPMULLD   Y9, Y1, Y11
	VPSLLQ    $32, Y11, Y12
	VPAND     Y14, Y11, Y11
	VPADDQ    Y12, Y13, Y13
	VPADDQ    Y11, Y13, Y13
	VPADDQ    Y5, Y13, Y13
	VPCMPGTQ  Y13, Y7, Y12
	VPBLENDVB Y12, Y13, Y7, Y7
	ADDQ $8, R10
	DECQ R11
	JMP  loop8avx2

done8avx2:
	VPXOR   Y15, Y6, Y6
	VPXOR   Y15, Y7, Y7
	VMOVDQU Y6, (DX)
	VMOVDQU Y7, 32(DX)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, DX
	SUBQ $8, CX
	JMP  block8avx2

endavx2:
	VZEROUPPER
	RET
