#include "textflag.h"

// The bounds of the signed byte comparisons: '0'-1, '9'+1, 'a'-1, 'z'+1,
// and the case bit. Bytes of 0x80 and above are negative as signed bytes,
// so no comparison with these takes them for a letter or digit.
DATA classifyConsts<>+0(SB)/8, $0x2f2f2f2f2f2f2f2f
DATA classifyConsts<>+8(SB)/8, $0x2f2f2f2f2f2f2f2f
DATA classifyConsts<>+16(SB)/8, $0x2f2f2f2f2f2f2f2f
DATA classifyConsts<>+24(SB)/8, $0x2f2f2f2f2f2f2f2f
DATA classifyConsts<>+32(SB)/8, $0x3a3a3a3a3a3a3a3a
DATA classifyConsts<>+40(SB)/8, $0x3a3a3a3a3a3a3a3a
DATA classifyConsts<>+48(SB)/8, $0x3a3a3a3a3a3a3a3a
DATA classifyConsts<>+56(SB)/8, $0x3a3a3a3a3a3a3a3a
DATA classifyConsts<>+64(SB)/8, $0x6060606060606060
DATA classifyConsts<>+72(SB)/8, $0x6060606060606060
DATA classifyConsts<>+80(SB)/8, $0x6060606060606060
DATA classifyConsts<>+88(SB)/8, $0x6060606060606060
DATA classifyConsts<>+96(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA classifyConsts<>+104(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA classifyConsts<>+112(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA classifyConsts<>+120(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA classifyConsts<>+128(SB)/8, $0x2020202020202020
DATA classifyConsts<>+136(SB)/8, $0x2020202020202020
DATA classifyConsts<>+144(SB)/8, $0x2020202020202020
DATA classifyConsts<>+152(SB)/8, $0x2020202020202020
GLOBL classifyConsts<>(SB), RODATA|NOPTR, $160

// CLASSIFY32 classifies the 32 bytes of Y register in into the masks of
// 32 bits alnum and high (general registers); Y2-Y6 are scratch, Y9, Y11
// and Y12 hold '9'+1, 'z'+1 and the case bit.
#define CLASSIFY32(in, alnum, high) \
	VPCMPGTB  classifyConsts<>+0(SB), in, Y2 \
	VPCMPGTB  in, Y9, Y3 \
	VPAND     Y3, Y2, Y2 \
	VPOR      Y12, in, Y4 \
	VPCMPGTB  classifyConsts<>+64(SB), Y4, Y5 \
	VPCMPGTB  Y4, Y11, Y6 \
	VPAND     Y6, Y5, Y5 \
	VPOR      Y5, Y2, Y2 \
	VPMOVMSKB Y2, alnum \
	VPMOVMSKB in, high

// func classify64AVX2(p *byte) (alnum, high uint64)
//
// Each half of 32 bytes: digit = c > '0'-1 and '9'+1 > c; letter the same
// with c | 0x20 and 'a'-1, 'z'+1; the top bits of the bytes (VPMOVMSKB)
// give the masks.
TEXT ·classify64AVX2(SB), NOSPLIT, $0-24
	MOVQ    p+0(FP), SI
	VMOVDQU classifyConsts<>+32(SB), Y9   // '9'+1
	VMOVDQU classifyConsts<>+96(SB), Y11  // 'z'+1
	VMOVDQU classifyConsts<>+128(SB), Y12 // the case bit
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	CLASSIFY32(Y0, AX, BX)
	CLASSIFY32(Y1, CX, DX)
	SHLQ $32, CX
	ORQ  CX, AX
	SHLQ $32, DX
	ORQ  DX, BX
	MOVQ AX, alnum+8(FP)
	MOVQ BX, high+16(FP)
	VZEROUPPER
	RET
