#include "textflag.h"

// Constants of hexRunSSSE3, 16 bytes each.
DATA hexc<>+0x00(SB)/8, $0x2f2f2f2f2f2f2f2f // '0'-1
DATA hexc<>+0x08(SB)/8, $0x2f2f2f2f2f2f2f2f
DATA hexc<>+0x10(SB)/8, $0x3a3a3a3a3a3a3a3a // '9'+1
DATA hexc<>+0x18(SB)/8, $0x3a3a3a3a3a3a3a3a
DATA hexc<>+0x20(SB)/8, $0x2020202020202020 // the case bit
DATA hexc<>+0x28(SB)/8, $0x2020202020202020
DATA hexc<>+0x30(SB)/8, $0x6060606060606060 // 'a'-1
DATA hexc<>+0x38(SB)/8, $0x6060606060606060
DATA hexc<>+0x40(SB)/8, $0x6767676767676767 // 'f'+1
DATA hexc<>+0x48(SB)/8, $0x6767676767676767
DATA hexc<>+0x50(SB)/8, $0x0f0f0f0f0f0f0f0f // low nibble
DATA hexc<>+0x58(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA hexc<>+0x60(SB)/8, $0x0909090909090909 // a letter's nibble is its low nibble + 9
DATA hexc<>+0x68(SB)/8, $0x0909090909090909
DATA hexc<>+0x70(SB)/8, $0x0110011001100110 // weights: 16 for the first digit of a pair, 1 for the second
DATA hexc<>+0x78(SB)/8, $0x0110011001100110
GLOBL hexc<>(SB), RODATA|NOPTR, $128

// func hexRunSSSE3(dst []uint64, field []byte) int
TEXT ·hexRunSSSE3(SB), NOSPLIT, $0-56
	MOVQ dst_base+0(FP), DI
	MOVQ field_base+24(FP), SI
	MOVQ field_len+32(FP), CX
	XORQ AX, AX
	MOVOU hexc<>+0x00(SB), X8
	MOVOU hexc<>+0x10(SB), X9
	MOVOU hexc<>+0x20(SB), X10
	MOVOU hexc<>+0x30(SB), X11
	MOVOU hexc<>+0x40(SB), X12
	MOVOU hexc<>+0x50(SB), X13
	MOVOU hexc<>+0x60(SB), X14
	MOVOU hexc<>+0x70(SB), X15

loop:
	// A hash, its space, and at least one byte after it.
	CMPQ CX, $18
	JLT  done
	CMPB 16(SI), $0x20
	JNE  done
	MOVOU (SI), X0

	// Digits: '0'-1 < x < '9'+1 (signed: bytes >= 0x80 are neither).
	MOVO    X0, X1
	PCMPGTB X8, X1
	MOVO    X9, X2
	PCMPGTB X0, X2
	PAND    X2, X1

	// Letters: 'a'-1 < x|0x20 < 'f'+1.
	MOVO    X0, X3
	POR     X10, X3
	MOVO    X3, X4
	PCMPGTB X11, X4
	MOVO    X12, X5
	PCMPGTB X3, X5
	PAND    X5, X4

	MOVO     X1, X6
	POR      X4, X6
	PMOVMSKB X6, BX
	CMPL     BX, $0xffff
	JNE      done

	// Nibbles, then pairs of them into bytes, first digit high.
	PAND      X13, X0
	PAND      X14, X4
	PADDB     X4, X0
	PMADDUBSW X15, X0
	PACKUSWB  X0, X0
	MOVQ      X0, BX
	BSWAPQ    BX
	MOVQ      BX, (DI)(AX*8)

	INCQ AX
	ADDQ $17, SI
	SUBQ $17, CX
	JMP  loop

done:
	MOVQ AX, ret+48(FP)
	RET

DATA hexdigits<>+0x00(SB)/8, $"01234567"
DATA hexdigits<>+0x08(SB)/8, $"89abcdef"
DATA hexdigits<>+0x10(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA hexdigits<>+0x18(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL hexdigits<>(SB), RODATA|NOPTR, $32

// func putHexListSSSE3(dst *byte, hs []uint64)
TEXT ·putHexListSSSE3(SB), NOSPLIT, $0-32
	MOVQ  dst+0(FP), DI
	MOVQ  hs_base+8(FP), SI
	MOVQ  hs_len+16(FP), CX
	MOVOU hexdigits<>+0x00(SB), X7
	MOVOU hexdigits<>+0x10(SB), X6

loop:
	TESTQ CX, CX
	JZ    done
	MOVQ  (SI), AX
	BSWAPQ AX           // the most significant byte first
	MOVQ  AX, X0
	MOVO  X0, X1
	PSRLQ $4, X1
	PAND  X6, X1        // each byte's high nibble
	PAND  X6, X0        // and its low nibble
	PUNPCKLBW X0, X1    // high, low, high, low, ...
	MOVO  X7, X2
	PSHUFB X1, X2       // the digit of each nibble
	MOVOU X2, (DI)
	MOVB  $0x20, 16(DI)
	ADDQ  $8, SI
	ADDQ  $17, DI
	DECQ  CX
	JMP   loop

done:
	RET
