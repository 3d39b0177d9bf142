//go:build amd64 && !purego

#include "textflag.h"

// func widenUnitsAVX2(dst *uint16, s string) int
//
// widenUnitsAVX2 (gemini_widen_amd64.go) zero-extends s's bytes to
// dst's code units, 32 a step, while the block of 32 is ASCII (no byte's
// top bit set), and returns the bytes written, a multiple of 32. No load
// reads past s: a block is read only when 32 bytes are left; dst holds
// at least len(s) units.
TEXT ·widenUnitsAVX2(SB), NOSPLIT, $0-32
	MOVQ	dst+0(FP), DI
	MOVQ	s_base+8(FP), SI
	MOVQ	s_len+16(FP), CX
	XORQ	AX, AX
	SUBQ	$32, CX        // the last start of a whole block
	JL	done

loop:
	VMOVDQU	(SI)(AX*1), Y0
	VPMOVMSKB	Y0, DX
	TESTL	DX, DX
	JNZ	done
	VPMOVZXBW	(SI)(AX*1), Y1
	VPMOVZXBW	16(SI)(AX*1), Y2
	VMOVDQU	Y1, (DI)(AX*2)
	VMOVDQU	Y2, 32(DI)(AX*2)
	ADDQ	$32, AX
	CMPQ	AX, CX
	JLE	loop

done:
	VZEROUPPER
	MOVQ	AX, ret+24(FP)
	RET
