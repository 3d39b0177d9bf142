//go:build amd64 && !purego

#include "textflag.h"

// asciiSharedAVX2 and asciiSharedSSE2 (histogram_shared_amd64.go) sum,
// over the 128 ASCII code points, the smaller of two histograms' counts:
// eight (four) counts a step, all 128 in 16 (32) steps unrolled. A lane
// adds at most the counts of one text, under 2^31 as its int32 counts
// are, so no lane overflows. Arguments on the stack (ABI0).

// func asciiSharedAVX2(h, o *[256]int32) int
TEXT ·asciiSharedAVX2(SB), NOSPLIT, $0-24
	MOVQ	h+0(FP), SI
	MOVQ	o+8(FP), DI
	VMOVDQU	0(SI), Y0
	VPMINSD	0(DI), Y0, Y0
	VMOVDQU	32(SI), Y1
	VPMINSD	32(DI), Y1, Y1
	VMOVDQU	64(SI), Y2
	VPMINSD	64(DI), Y2, Y2
	VPADDD	Y2, Y0, Y0
	VMOVDQU	96(SI), Y3
	VPMINSD	96(DI), Y3, Y3
	VPADDD	Y3, Y1, Y1
	VMOVDQU	128(SI), Y2
	VPMINSD	128(DI), Y2, Y2
	VPADDD	Y2, Y0, Y0
	VMOVDQU	160(SI), Y3
	VPMINSD	160(DI), Y3, Y3
	VPADDD	Y3, Y1, Y1
	VMOVDQU	192(SI), Y2
	VPMINSD	192(DI), Y2, Y2
	VPADDD	Y2, Y0, Y0
	VMOVDQU	224(SI), Y3
	VPMINSD	224(DI), Y3, Y3
	VPADDD	Y3, Y1, Y1
	VMOVDQU	256(SI), Y2
	VPMINSD	256(DI), Y2, Y2
	VPADDD	Y2, Y0, Y0
	VMOVDQU	288(SI), Y3
	VPMINSD	288(DI), Y3, Y3
	VPADDD	Y3, Y1, Y1
	VMOVDQU	320(SI), Y2
	VPMINSD	320(DI), Y2, Y2
	VPADDD	Y2, Y0, Y0
	VMOVDQU	352(SI), Y3
	VPMINSD	352(DI), Y3, Y3
	VPADDD	Y3, Y1, Y1
	VMOVDQU	384(SI), Y2
	VPMINSD	384(DI), Y2, Y2
	VPADDD	Y2, Y0, Y0
	VMOVDQU	416(SI), Y3
	VPMINSD	416(DI), Y3, Y3
	VPADDD	Y3, Y1, Y1
	VMOVDQU	448(SI), Y2
	VPMINSD	448(DI), Y2, Y2
	VPADDD	Y2, Y0, Y0
	VMOVDQU	480(SI), Y3
	VPMINSD	480(DI), Y3, Y3
	VPADDD	Y3, Y1, Y1
	VPADDD	Y1, Y0, Y0
	// The eight lanes' sum.
	VEXTRACTI128	$1, Y0, X1
	VPADDD	X1, X0, X0
	VPSHUFD	$0x4e, X0, X1
	VPADDD	X1, X0, X0
	VPSHUFD	$0xb1, X0, X1
	VPADDD	X1, X0, X0
	VMOVD	X0, AX
	VZEROUPPER
	MOVQ	AX, ret+16(FP)
	RET

// SSE2 has no signed minimum of 32-bit lanes (SSE4.1's PMINSD): each
// step takes the smaller count by a mask of o > h.
#define SHARED4(off) \
	MOVOU	off(SI), X0; \
	MOVOU	off(DI), X1; \
	MOVO	X1, X2; \
	PCMPGTL	X0, X2; \
	PAND	X2, X0; \
	PANDN	X1, X2; \
	POR	X2, X0; \
	PADDL	X0, X3

// func asciiSharedSSE2(h, o *[256]int32) int
TEXT ·asciiSharedSSE2(SB), NOSPLIT, $0-24
	MOVQ	h+0(FP), SI
	MOVQ	o+8(FP), DI
	PXOR	X3, X3
	MOVQ	$4, CX
sloop:
	SHARED4(0)
	SHARED4(16)
	SHARED4(32)
	SHARED4(48)
	SHARED4(64)
	SHARED4(80)
	SHARED4(96)
	SHARED4(112)
	ADDQ	$128, SI
	ADDQ	$128, DI
	DECQ	CX
	JNZ	sloop
	PSHUFD	$0x4e, X3, X1
	PADDL	X1, X3
	PSHUFD	$0xb1, X3, X1
	PADDL	X1, X3
	MOVL	X3, AX
	MOVQ	AX, ret+16(FP)
	RET
