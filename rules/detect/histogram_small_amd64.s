//go:build amd64 && !purego

#include "textflag.h"

// countSmall (histogram_small_amd64.go) clears a's 128 byte counts (eight
// stores of 16 bytes), then adds one to a[c] for each byte c of s (ASCII:
// below 128): sixteen bytes a step, then eight, then one, each byte's
// load its zero extension and its count one increment in memory.
#define SMALL1(off) \
	MOVBLZX	off(SI), AX; \
	INCB	(DI)(AX*1)

// func countSmall(a *[128]uint8, s string)
TEXT ·countSmall(SB), NOSPLIT, $0-24
	MOVQ	a+0(FP), DI
	MOVQ	s_base+8(FP), SI
	MOVQ	s_len+16(FP), CX
	PXOR	X0, X0
	MOVOU	X0, 0(DI)
	MOVOU	X0, 16(DI)
	MOVOU	X0, 32(DI)
	MOVOU	X0, 48(DI)
	MOVOU	X0, 64(DI)
	MOVOU	X0, 80(DI)
	MOVOU	X0, 96(DI)
	MOVOU	X0, 112(DI)
	CMPQ	CX, $16
	JB	small8

small16:
	SMALL1(0); SMALL1(1); SMALL1(2); SMALL1(3)
	SMALL1(4); SMALL1(5); SMALL1(6); SMALL1(7)
	SMALL1(8); SMALL1(9); SMALL1(10); SMALL1(11)
	SMALL1(12); SMALL1(13); SMALL1(14); SMALL1(15)
	ADDQ	$16, SI
	SUBQ	$16, CX
	CMPQ	CX, $16
	JAE	small16

small8:
	CMPQ	CX, $8
	JB	small1
	SMALL1(0); SMALL1(1); SMALL1(2); SMALL1(3)
	SMALL1(4); SMALL1(5); SMALL1(6); SMALL1(7)
	ADDQ	$8, SI
	SUBQ	$8, CX

small1:
	TESTQ	CX, CX
	JZ	smalldone

small1loop:
	SMALL1(0)
	INCQ	SI
	DECQ	CX
	JNZ	small1loop

smalldone:
	RET

// sharedSmall (histogram_small_amd64.go) sums the smaller of h's and o's
// 128 byte counts: four VPMINUBs of 32 counts, each's bytes summed in
// four 64-bit lanes by VPSADBW against zero (a sum of eight bytes fits),
// the lanes added. AVX2.

// func sharedSmall(h, o *[128]uint8) int
TEXT ·sharedSmall(SB), NOSPLIT, $0-24
	MOVQ	h+0(FP), SI
	MOVQ	o+8(FP), DI
	VMOVDQU	(SI), Y0
	VMOVDQU	32(SI), Y1
	VMOVDQU	64(SI), Y2
	VMOVDQU	96(SI), Y3
	VPMINUB	(DI), Y0, Y0
	VPMINUB	32(DI), Y1, Y1
	VPMINUB	64(DI), Y2, Y2
	VPMINUB	96(DI), Y3, Y3
	VPXOR	Y4, Y4, Y4
	VPSADBW	Y4, Y0, Y0
	VPSADBW	Y4, Y1, Y1
	VPSADBW	Y4, Y2, Y2
	VPSADBW	Y4, Y3, Y3
	VPADDQ	Y1, Y0, Y0
	VPADDQ	Y3, Y2, Y2
	VPADDQ	Y2, Y0, Y0
	VEXTRACTI128	$1, Y0, X1
	VPADDQ	X1, X0, X0
	VPSHUFD	$0x4e, X0, X1
	VPADDQ	X1, X0, X0
	VMOVQ	X0, AX
	VZEROUPPER
	MOVQ	AX, ret+16(FP)
	RET

// smallPresent (histogram_small_amd64.go) sets bit c of its result for
// each of a's 128 byte counts that is not 0: 32 counts a step compared
// with zero (VPCMPEQB), the compares' signs gathered by VPMOVMSKB, the
// set complemented. AVX2.

// func smallPresent(a *[128]uint8) [2]uint64
TEXT ·smallPresent(SB), NOSPLIT, $0-24
	MOVQ	a+0(FP), SI
	VPXOR	Y4, Y4, Y4
	VPCMPEQB	(SI), Y4, Y0
	VPCMPEQB	32(SI), Y4, Y1
	VPCMPEQB	64(SI), Y4, Y2
	VPCMPEQB	96(SI), Y4, Y3
	VPMOVMSKB	Y0, AX
	VPMOVMSKB	Y1, BX
	VPMOVMSKB	Y2, CX
	VPMOVMSKB	Y3, DX
	VZEROUPPER
	SHLQ	$32, BX
	ORQ	BX, AX
	SHLQ	$32, DX
	ORQ	DX, CX
	NOTQ	AX
	NOTQ	CX
	MOVQ	AX, ret_0+8(FP)
	MOVQ	CX, ret_1+16(FP)
	RET
