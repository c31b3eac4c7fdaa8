#include "textflag.h"

// func compactAVX2(dst, table *uint64, n int, perm *[16][8]uint32) int
//
// For each four slots of the table: the mask of those that are not 0
// picks the VPERMD that moves their values to the low lanes; all four lanes
// are stored at dst[k], and k goes on by the mask's count. The slots of a
// set's table are full or not at random, so this takes no branch that
// depends on them, where a loop over the slots would take a mispredicted
// one, or, branch-free, a dozen instructions a slot.
TEXT ·compactAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ table+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ perm+24(FP), R8
	XORQ DX, DX
	VPXOR Y15, Y15, Y15
	SHRQ $2, CX
	JZ   done

loop:
	VMOVDQU   (SI), Y0
	VPCMPEQQ  Y15, Y0, Y1
	VMOVMSKPD Y1, AX
	XORL      $15, AX // the lanes that are not 0
	MOVL      AX, BX
	SHLL      $5, BX
	VMOVDQU   (R8)(BX*1), Y2
	VPERMD    Y0, Y2, Y3
	VMOVDQU   Y3, (DI)(DX*8)
	POPCNTL   AX, AX
	ADDQ      AX, DX
	ADDQ      $32, SI
	DECQ      CX
	JNZ       loop

done:
	VZEROUPPER
	MOVQ DX, ret+32(FP)
	RET
