#include "textflag.h"

DATA evenBits<>+0(SB)/8, $0x5555
GLOBL evenBits<>(SB), RODATA|NOPTR, $8
DATA oddBits<>+0(SB)/8, $0xaaaa
GLOBL oddBits<>(SB), RODATA|NOPTR, $8
// Lanes of a vector of unit hashes as a space and a unit in turn: the
// first four, then the last four.
DATA pairLanes<>+0(SB)/8, $0
DATA pairLanes<>+8(SB)/8, $0
DATA pairLanes<>+16(SB)/8, $1
DATA pairLanes<>+24(SB)/8, $1
DATA pairLanes<>+32(SB)/8, $2
DATA pairLanes<>+40(SB)/8, $2
DATA pairLanes<>+48(SB)/8, $3
DATA pairLanes<>+56(SB)/8, $3
DATA pairLanes<>+64(SB)/8, $4
DATA pairLanes<>+72(SB)/8, $4
DATA pairLanes<>+80(SB)/8, $5
DATA pairLanes<>+88(SB)/8, $5
DATA pairLanes<>+96(SB)/8, $6
DATA pairLanes<>+104(SB)/8, $6
DATA pairLanes<>+112(SB)/8, $7
DATA pairLanes<>+120(SB)/8, $7
GLOBL pairLanes<>(SB), RODATA|NOPTR, $128

// MURMUR4 is mix.Murmur of each lane of Z4 (Z11, Z12 its multipliers, Z7
// scratch).
#define MURMUR4 \
	VPSRLQ  $33, Z4, Z7 \
	VPXORQ  Z7, Z4, Z4  \
	VPMULLQ Z11, Z4, Z4 \
	VPSRLQ  $33, Z4, Z7 \
	VPXORQ  Z7, Z4, Z4  \
	VPMULLQ Z12, Z4, Z4 \
	VPSRLQ  $33, Z4, Z7 \
	VPXORQ  Z7, Z4, Z4

// UNITS takes the eight unit runes of group g of the block (bytes 8g to
// 8g+7 of Z1, rotated down into Z2) and hashes them into Z4: RuneHash.
// (Stored to the stack and loaded back eight bytes at a time, they cost a
// tenth more when the stack was not 64-byte aligned: the loads waited for
// a store split across two cache lines.)
#define UNITS(g) \
	VALIGNQ   $g, Z1, Z1, Z2 \
	VPMOVZXBQ X2, Z4        \
	VPXORQ    Z27, Z4, Z4   \
	MURMUR4

// PUNCT writes the units of group g with punctuation folded: a unit for
// each word rune (W's low byte, in BX), a space before those of S's low
// byte (R14), in text order, and moves both masks on to the next group.
#define PUNCT(g) \
	UNITS(g)                        \
	MOVBQZX     R14, CX             \
	PDEPQ       evenBits<>(SB), CX, CX \
	MOVBQZX     BX, DX              \
	PDEPQ       oddBits<>(SB), DX, DX \
	ORQ         DX, CX              \
	VPERMQ      Z4, Z24, Z5         \
	VMOVDQA64   Z26, K5, Z5         \
	KMOVB       CX, K4              \
	VPCOMPRESSQ Z5, K4, Z6          \
	VMOVDQU64   Z6, (DI)            \
	MOVBQZX     CX, DX              \
	POPCNTQ     DX, DX              \
	LEAQ        (DI)(DX*8), DI      \
	SHRQ        $8, CX              \
	VPERMQ      Z4, Z25, Z5         \
	VMOVDQA64   Z26, K5, Z5         \
	KMOVB       CX, K4              \
	VPCOMPRESSQ Z5, K4, Z6          \
	VMOVDQU64   Z6, (DI)            \
	POPCNTQ     CX, DX              \
	LEAQ        (DI)(DX*8), DI      \
	SHRQ        $8, R14             \
	SHRQ        $8, BX

// SPACES writes the units of group g with white space folded: those of
// E's low byte (R14), and moves it on.
#define SPACES(g) \
	UNITS(g)                   \
	KMOVB       R14, K4        \
	VPCOMPRESSQ Z4, K4, Z6     \
	VMOVDQU64   Z6, (DI)       \
	MOVBQZX     R14, DX        \
	POPCNTQ     DX, DX         \
	LEAQ        (DI)(DX*8), DI \
	SHRQ        $8, R14

// func unitsAVX512(d *uint64, text *byte, n, room int, st *unitState, table *[128]byte) (read, wrote int)
//
// Chars.Units over text[:n], 64 bytes at a time while they are ASCII and
// room (units d may take) is 64 or more: each block's runes are looked up
// in table (the unit rune, lower-cased or a space, with bit 7 set for a
// word rune) by VPERMI2B, its masks of word runes and spaces worked out
// for the whole block in general registers, and its unit hashes written
// eight runes at a time, compressed to those the masks keep. Stores are
// of eight values: d must have room for 7 past the last unit. st holds
// the state between runes as Units keeps it, as 0 or 1; punct says which
// folding. It returns the bytes read and the units written.
TEXT ·unitsAVX512(SB), NOSPLIT, $0-64
	MOVQ d+0(FP), DI
	MOVQ text+8(FP), SI
	MOVQ n+16(FP), R8
	MOVQ room+24(FP), R9
	LEAQ (DI)(R9*8), R9 // the end of d's room
	MOVQ st+32(FP), AX
	MOVQ 0(AX), R10  // gap (punct) or inSpace
	MOVQ 8(AX), R11  // started
	MOVQ 16(AX), R12 // prevCJK
	MOVQ 24(AX), R13 // punct
	MOVQ table+40(FP), AX
	VMOVDQU8 (AX), Z30
	VMOVDQU8 64(AX), Z31
	MOVL $0x7f7f7f7f, AX
	VPBROADCASTD AX, Z29
	MOVL $0x20202020, AX
	VPBROADCASTD AX, Z28
	MOVQ $0xbb67ae8584caa73b, AX
	VPBROADCASTQ AX, Z27
	MOVQ $0xff51afd7ed558ccd, AX
	VPBROADCASTQ AX, Z11
	MOVQ $0xc4ceb9fe1a85ec53, AX
	VPBROADCASTQ AX, Z12
	MOVQ $0x20, AX
	VPBROADCASTQ AX, Z26
	VPXORQ Z27, Z26, Z26
	VMOVDQA64 Z26, Z4
	MURMUR4
	VMOVDQA64 Z4, Z26 // the space's unit hash
	VMOVDQU64 pairLanes<>+0(SB), Z24
	VMOVDQU64 pairLanes<>+64(SB), Z25
	MOVQ $0x55, AX
	KMOVB AX, K5
	MOVQ SI, AX
	MOVQ AX, read+48(FP) // the start, for now

block:
	CMPQ     R8, $64
	JLT      done
	LEAQ     528(DI), AX
	CMPQ     AX, R9
	JGT      done // a block writes up to 65 units
	VMOVDQU8 (SI), Z0
	VPMOVB2M Z0, K1
	KORTESTQ K1, K1
	JNZ      done
	VMOVDQA64 Z0, Z1
	VPERMI2B Z31, Z30, Z1
	VPMOVB2M Z1, K2
	KMOVQ    K2, BX // W: the word runes
	VPANDQ   Z29, Z1, Z1
	TESTQ    R13, R13
	JZ       spaces

	// S, the word runes a space goes before: those after a gap, once a
	// word rune came, and not after a single-rune token.
	MOVQ  BX, AX
	NEGQ  AX
	ANDQ  BX, AX
	SHLQ  $1, AX
	DECQ  AX
	NOTQ  AX // the runes after the block's first word rune
	MOVQ  R11, CX
	NEGQ  CX
	ORQ   AX, CX // started
	MOVQ  R12, DX
	NEGQ  DX
	MOVQ  AX, R14
	NOTQ  R14
	ANDQ  R14, DX
	NOTQ  DX // not after a single-rune token
	MOVQ  BX, R14
	SHLQ  $1, R14
	NOTQ  R14
	ANDQ  $-2, R14
	ORQ   R10, R14 // a gap before
	ANDQ  BX, R14
	ANDQ  CX, R14
	ANDQ  DX, R14
	// The state after the block.
	MOVQ  BX, R10
	SHRQ  $63, R10
	XORQ  $1, R10
	XORL  CX, CX
	XORL  DX, DX
	TESTQ BX, BX
	SETNE CX
	SETEQ DX
	ORQ   CX, R11
	ANDQ  DX, R12
	PUNCT(0)
	PUNCT(1)
	PUNCT(2)
	PUNCT(3)
	PUNCT(4)
	PUNCT(5)
	PUNCT(6)
	PUNCT(7)
	ADDQ  $64, SI
	SUBQ  $64, R8
	JMP   block

spaces:
	// E, the runes that are not a space after a space.
	VPCMPEQB Z28, Z1, K3
	KMOVQ    K3, AX
	MOVQ     AX, R14
	SHLQ     $1, R14
	ORQ      R10, R14
	ANDQ     AX, R14
	NOTQ     R14
	MOVQ     AX, R10
	SHRQ     $63, R10
	SPACES(0)
	SPACES(1)
	SPACES(2)
	SPACES(3)
	SPACES(4)
	SPACES(5)
	SPACES(6)
	SPACES(7)
	ADDQ     $64, SI
	SUBQ     $64, R8
	JMP      block

done:
	MOVQ st+32(FP), AX
	MOVQ R10, 0(AX)
	MOVQ R11, 8(AX)
	MOVQ R12, 16(AX)
	MOVQ read+48(FP), AX
	SUBQ AX, SI
	MOVQ SI, read+48(FP)
	MOVQ d+0(FP), AX
	SUBQ AX, DI
	SHRQ $3, DI
	MOVQ DI, wrote+56(FP)
	VZEROUPPER
	RET
