#include "textflag.h"

// func unescapeAVX2(dst *byte, src []byte, steps *[256][2]byte) (written, read int)
//
// Each turn takes a window of 32 bytes of src and the mask of its
// backslashes. A window without one is copied whole. Otherwise each
// backslash in turn (lowest first) has the bytes before it copied, by a
// 32-byte store that later ones overwrite, then what it and the byte after
// it become; a backslash that was that byte is passed over. Text in TSV has
// a backslash every 18 bytes or so: stepping through the mask, not loading
// again after each, keeps the loads and compares out of the chain from one
// backslash to the next.
TEXT ·unescapeAVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src_base+8(FP), SI
	MOVQ src_len+16(FP), CX
	MOVQ steps+32(FP), R12
	MOVQ DI, R9
	MOVQ SI, R10
	LEAQ -65(SI)(CX*1), R11 // the last start of a turn: 65 bytes left
	MOVL $0x5c, AX
	MOVQ AX, X1
	VPBROADCASTB X1, Y1
	XORQ R14, R14

loop:
	CMPQ SI, R11
	JHI  done
	VMOVDQU   (SI), Y0
	VPCMPEQB  Y1, Y0, Y2
	VPMOVMSKB Y2, AX
	TESTL     AX, AX
	JNZ       escapes
	VMOVDQU   Y0, (DI)
	ADDQ      $32, SI
	ADDQ      $32, DI
	JMP       loop

escapes:
	XORQ CX, CX // pos: the window's bytes done

next:
	BSFL AX, BX      // p: the lowest backslash left
	LEAL -1(AX), R13
	ANDL R13, AX
	CMPQ BX, CX
	JLT  skip        // the escaped byte of the backslash before
	VMOVDQU (SI)(CX*1), Y3
	VMOVDQU Y3, (DI)
	MOVQ    BX, R13
	SUBQ    CX, R13
	ADDQ    R13, DI
	MOVBLZX 1(SI)(BX*1), DX
	MOVWLZX (R12)(DX*2), R8
	MOVB    R8, (DI)
	MOVB    DX, 1(DI)
	SHRL    $8, R8
	ADDQ    R8, DI
	LEAQ    2(BX), CX

skip:
	TESTL AX, AX
	JNZ   next

	// The rest of the window: bytes pos to 31, none when pos is 32 or 33.
	VMOVDQU (SI)(CX*1), Y3
	VMOVDQU Y3, (DI)
	MOVQ    $32, R13
	SUBQ    CX, R13
	CMOVQLT R14, R13
	ADDQ    R13, DI
	ADDQ    CX, SI
	ADDQ    R13, SI
	JMP     loop

done:
	VZEROUPPER
	SUBQ R9, DI
	SUBQ R10, SI
	MOVQ DI, written+40(FP)
	MOVQ SI, read+48(FP)
	RET
