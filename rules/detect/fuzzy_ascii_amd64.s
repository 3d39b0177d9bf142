//go:build amd64 && !purego

#include "textflag.h"

// asciiBlocksSSE2 and asciiBlocksAVX2 (fuzzy_ascii_amd64.go) OR four
// blocks of 16 (32) bytes and test the high bits of the result's bytes
// (PMOVMSKB): zero when all are ASCII. Past the last whole four blocks, or
// at the four that hold a byte over 0x7f, they go a block a step. No load
// reads past s: a step's bytes are all before len(s). Arguments on the
// stack (ABI0).

// func asciiBlocksSSE2(s string) int
TEXT ·asciiBlocksSSE2(SB), NOSPLIT, $0-24
	MOVQ	s_base+0(FP), SI
	MOVQ	s_len+8(FP), DX
	XORL	CX, CX
	LEAQ	-64(DX), DI    // the last start of a whole 64 (negative: none)
	CMPQ	DI, $0
	JLT	sblock

sloop:
	MOVOU	(SI)(CX*1), X0
	MOVOU	16(SI)(CX*1), X1
	MOVOU	32(SI)(CX*1), X2
	MOVOU	48(SI)(CX*1), X3
	POR	X1, X0
	POR	X3, X2
	POR	X2, X0
	PMOVMSKB	X0, AX
	TESTL	AX, AX
	JNZ	sblock
	ADDQ	$64, CX
	CMPQ	CX, DI
	JLE	sloop

sblock:
	LEAQ	16(CX), BX
	CMPQ	BX, DX
	JA	sdone
	MOVOU	(SI)(CX*1), X0
	PMOVMSKB	X0, AX
	TESTL	AX, AX
	JNZ	sdone
	MOVQ	BX, CX
	JMP	sblock

sdone:
	MOVQ	CX, ret+16(FP)
	RET

// func asciiBlocksAVX2(s string) int
TEXT ·asciiBlocksAVX2(SB), NOSPLIT, $0-24
	MOVQ	s_base+0(FP), SI
	MOVQ	s_len+8(FP), DX
	XORL	CX, CX
	LEAQ	-128(DX), DI   // the last start of a whole 128 (negative: none)
	CMPQ	DI, $0
	JLT	vblock

vloop:
	VMOVDQU	(SI)(CX*1), Y0
	VMOVDQU	32(SI)(CX*1), Y1
	VMOVDQU	64(SI)(CX*1), Y2
	VMOVDQU	96(SI)(CX*1), Y3
	VPOR	Y1, Y0, Y0
	VPOR	Y3, Y2, Y2
	VPOR	Y2, Y0, Y0
	VPMOVMSKB	Y0, AX
	TESTL	AX, AX
	JNZ	vblock
	ADDQ	$128, CX
	CMPQ	CX, DI
	JLE	vloop

vblock:
	LEAQ	32(CX), BX
	CMPQ	BX, DX
	JA	vdone
	VMOVDQU	(SI)(CX*1), Y0
	VPMOVMSKB	Y0, AX
	TESTL	AX, AX
	JNZ	vdone
	MOVQ	BX, CX
	JMP	vblock

vdone:
	VZEROUPPER
	MOVQ	CX, ret+16(FP)
	RET

// widenASCIIAVX2 (fuzzy_ascii_amd64.go) writes the bytes of s to rs as
// code points, 32 a step while all 32 are ASCII (VPMOVMSKB of the block
// is 0), each eight widened by VPMOVZXBD; it stops before the first block
// that holds a byte over 0x7f, or that would pass len(s), and returns the
// bytes written. The caller gives rs room for len(s) code points.

// func widenASCIIAVX2(rs []rune, s string) int
TEXT ·widenASCIIAVX2(SB), NOSPLIT, $0-48
	MOVQ	rs_base+0(FP), DI
	MOVQ	s_base+24(FP), SI
	MOVQ	s_len+32(FP), CX
	XORQ	AX, AX
wloop:
	LEAQ	32(AX), DX
	CMPQ	DX, CX
	JHI	wdone
	VMOVDQU	(SI)(AX*1), Y0
	VPMOVMSKB	Y0, BX
	TESTL	BX, BX
	JNZ	wdone
	VPMOVZXBD	(SI)(AX*1), Y1
	VPMOVZXBD	8(SI)(AX*1), Y2
	VPMOVZXBD	16(SI)(AX*1), Y3
	VPMOVZXBD	24(SI)(AX*1), Y4
	VMOVDQU	Y1, (DI)(AX*4)
	VMOVDQU	Y2, 32(DI)(AX*4)
	VMOVDQU	Y3, 64(DI)(AX*4)
	VMOVDQU	Y4, 96(DI)(AX*4)
	MOVQ	DX, AX
	JMP	wloop
wdone:
	VZEROUPPER
	MOVQ	AX, ret+40(FP)
	RET
