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

// func unescapeAVX512(dst *byte, src []byte) (written, read int)
//
// Each turn takes a window of 64 bytes of src. From the mask of its
// backslashes (B, bit i byte i) and whether its first byte is the second of
// a pair begun in the window before (carry): the backslashes that begin a
// pair (S) are those at an even offset in their run, a run counted from its
// first backslash that is not the second of a pair; the byte after each is
// escaped. The escaped bytes that are t, n, r or a backslash (D) are left
// out by one VPCOMPRESSB, and each backslash of S becomes the byte its
// escape stands for (itself before any other byte), read from the window
// one byte on. A window without a backslash or carry is copied whole.
TEXT ·unescapeAVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src_base+8(FP), SI
	MOVQ src_len+16(FP), CX
	MOVQ DI, R9
	MOVQ SI, R10
	LEAQ -65(SI)(CX*1), R11 // the last start of a turn: 65 bytes left
	MOVL $0x5c, AX
	VPBROADCASTB AX, Z1     // '\\'
	MOVL $0x74, AX
	VPBROADCASTB AX, Z4     // 't'
	MOVL $0x6e, AX
	VPBROADCASTB AX, Z5     // 'n'
	MOVL $0x72, AX
	VPBROADCASTB AX, Z6     // 'r'
	MOVL $0x09, AX
	VPBROADCASTB AX, Z7     // '\t'
	MOVL $0x0a, AX
	VPBROADCASTB AX, Z8     // '\n'
	MOVL $0x0d, AX
	VPBROADCASTB AX, Z9     // '\r'
	MOVQ $0x5555555555555555, R12 // the even bits
	XORQ R14, R14                 // carry

loop:
	CMPQ     SI, R11
	JHI      done
	VMOVDQU8 (SI), Z0
	VPCMPEQB Z1, Z0, K1
	KMOVQ    K1, AX
	MOVQ     AX, BX
	ORQ      R14, BX
	JNZ      escapes
	VMOVDQU8 Z0, (DI)
	ADDQ     $64, SI
	ADDQ     $64, DI
	JMP      loop

escapes:
	// B2: the backslashes but the first byte when it is escaped.
	MOVQ  R14, BX
	NOTQ  BX
	ANDQ  BX, AX
	// The runs of B2 that start on an even bit: first, the starts of
	// runs (a backslash after none), even ones; B2 plus them clears
	// those runs, which are the bits of B2 the sum lacks.
	MOVQ  AX, BX
	SHLQ  $1, BX
	ANDNQ AX, BX, DX // DX = AX &^ (AX << 1)
	ANDQ  R12, DX
	ADDQ  AX, DX
	ANDNQ AX, DX, DX // the bits of runs starting even: AX &^ sum
	// S: the bits of even runs on even offsets (even bits), of odd runs
	// on odd ones.
	MOVQ  DX, BX
	ANDQ  R12, BX    // even runs, even bits
	XORQ  DX, AX     // the odd runs
	ANDNQ AX, R12, AX // odd runs, odd bits
	ORQ   BX, AX     // S
	// The escaped bytes: S one on, and the first when carried in; the
	// next window's first when S has the last.
	MOVQ  AX, BX
	SHLQ  $1, BX
	ORQ   R14, BX
	MOVQ  AX, R14
	SHRQ  $63, R14
	// D: the escaped bytes that are t, n, r or a backslash.
	VPCMPEQB Z4, Z0, K2
	VPCMPEQB Z5, Z0, K3
	KORQ     K2, K3, K2
	VPCMPEQB Z6, Z0, K3
	KORQ     K2, K3, K2
	KORQ     K2, K1, K2
	KMOVQ    K2, DX
	ANDQ     BX, DX
	NOTQ     DX          // the bytes kept
	// Each backslash of S becomes what the byte after it stands for.
	VMOVDQU8 1(SI), Z2
	KMOVQ    AX, K5
	VPCMPEQB Z4, Z2, K5, K2
	VMOVDQU8 Z7, K2, Z0
	VPCMPEQB Z5, Z2, K5, K2
	VMOVDQU8 Z8, K2, Z0
	VPCMPEQB Z6, Z2, K5, K2
	VMOVDQU8 Z9, K2, Z0
	KMOVQ    DX, K3
	VPCOMPRESSB Z0, K3, Z3
	VMOVDQU8 Z3, (DI)
	POPCNTQ  DX, DX
	ADDQ     DX, DI
	ADDQ     $64, SI
	JMP      loop

done:
	// A pair begun on the last byte read is read again by the caller.
	SUBQ R14, SI
	SUBQ R14, DI
	VZEROUPPER
	SUBQ R9, DI
	SUBQ R10, SI
	MOVQ DI, written+32(FP)
	MOVQ SI, read+40(FP)
	RET
