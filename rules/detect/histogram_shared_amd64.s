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

// countASCIIAVX2 and countASCIISSE2 (histogram_shared_amd64.go) clear
// the 128 ASCII counts of a (32 and 16 bytes a store), then add one to
// a[c] for each byte c of s: 32 bytes a step, then 16, 8, then one,
// each byte's load its zero extension and its count one increment in
// memory. A byte past ASCII indexes a's upper 128 counts (a is 256 long).
#define COUNT1(off) \
	MOVBLZX	off(SI), AX; \
	INCL	(DI)(AX*4)

#define COUNTBYTES \
	CMPQ	CX, $32; \
	JB	count16; \
count32: \
	COUNT1(0); COUNT1(1); COUNT1(2); COUNT1(3); \
	COUNT1(4); COUNT1(5); COUNT1(6); COUNT1(7); \
	COUNT1(8); COUNT1(9); COUNT1(10); COUNT1(11); \
	COUNT1(12); COUNT1(13); COUNT1(14); COUNT1(15); \
	COUNT1(16); COUNT1(17); COUNT1(18); COUNT1(19); \
	COUNT1(20); COUNT1(21); COUNT1(22); COUNT1(23); \
	COUNT1(24); COUNT1(25); COUNT1(26); COUNT1(27); \
	COUNT1(28); COUNT1(29); COUNT1(30); COUNT1(31); \
	ADDQ	$32, SI; \
	SUBQ	$32, CX; \
	CMPQ	CX, $32; \
	JAE	count32; \
count16: \
	CMPQ	CX, $16; \
	JB	count8; \
	COUNT1(0); COUNT1(1); COUNT1(2); COUNT1(3); \
	COUNT1(4); COUNT1(5); COUNT1(6); COUNT1(7); \
	COUNT1(8); COUNT1(9); COUNT1(10); COUNT1(11); \
	COUNT1(12); COUNT1(13); COUNT1(14); COUNT1(15); \
	ADDQ	$16, SI; \
	SUBQ	$16, CX; \
count8: \
	CMPQ	CX, $8; \
	JB	count1; \
	COUNT1(0); COUNT1(1); COUNT1(2); COUNT1(3); \
	COUNT1(4); COUNT1(5); COUNT1(6); COUNT1(7); \
	ADDQ	$8, SI; \
	SUBQ	$8, CX; \
count1: \
	TESTQ	CX, CX; \
	JZ	done; \
count1loop: \
	COUNT1(0); \
	INCQ	SI; \
	DECQ	CX; \
	JNZ	count1loop; \
done:

// func countASCIIAVX2(a *[256]int32, s string)
TEXT ·countASCIIAVX2(SB), NOSPLIT, $0-24
	MOVQ	a+0(FP), DI
	MOVQ	s_base+8(FP), SI
	MOVQ	s_len+16(FP), CX
	VPXOR	Y0, Y0, Y0
	VMOVDQU	Y0, 0(DI)
	VMOVDQU	Y0, 32(DI)
	VMOVDQU	Y0, 64(DI)
	VMOVDQU	Y0, 96(DI)
	VMOVDQU	Y0, 128(DI)
	VMOVDQU	Y0, 160(DI)
	VMOVDQU	Y0, 192(DI)
	VMOVDQU	Y0, 224(DI)
	VMOVDQU	Y0, 256(DI)
	VMOVDQU	Y0, 288(DI)
	VMOVDQU	Y0, 320(DI)
	VMOVDQU	Y0, 352(DI)
	VMOVDQU	Y0, 384(DI)
	VMOVDQU	Y0, 416(DI)
	VMOVDQU	Y0, 448(DI)
	VMOVDQU	Y0, 480(DI)
	VZEROUPPER
	COUNTBYTES
	RET

// func countASCIISSE2(a *[256]int32, s string)
TEXT ·countASCIISSE2(SB), NOSPLIT, $0-24
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
	MOVOU	X0, 128(DI)
	MOVOU	X0, 144(DI)
	MOVOU	X0, 160(DI)
	MOVOU	X0, 176(DI)
	MOVOU	X0, 192(DI)
	MOVOU	X0, 208(DI)
	MOVOU	X0, 224(DI)
	MOVOU	X0, 240(DI)
	MOVOU	X0, 256(DI)
	MOVOU	X0, 272(DI)
	MOVOU	X0, 288(DI)
	MOVOU	X0, 304(DI)
	MOVOU	X0, 320(DI)
	MOVOU	X0, 336(DI)
	MOVOU	X0, 352(DI)
	MOVOU	X0, 368(DI)
	MOVOU	X0, 384(DI)
	MOVOU	X0, 400(DI)
	MOVOU	X0, 416(DI)
	MOVOU	X0, 432(DI)
	MOVOU	X0, 448(DI)
	MOVOU	X0, 464(DI)
	MOVOU	X0, 480(DI)
	MOVOU	X0, 496(DI)
	COUNTBYTES
	RET

// asciiPresentAVX2 (histogram_shared_amd64.go) sets bit c of its result
// for each of the 128 ASCII counts of a that is not 0: eight counts a
// step, tested equal to zero (counts are never negative), their signs
// gathered by VMOVMSKPS, the set complemented at the end.
#define ZERO8(off, shift, reg) \
	VPCMPEQD	off(SI), Y15, Y0; \
	VMOVMSKPS	Y0, CX; \
	SHLQ	$shift, CX; \
	ORQ	CX, reg

// func asciiPresentAVX2(a *[256]int32) [2]uint64
TEXT ·asciiPresentAVX2(SB), NOSPLIT, $0-24
	MOVQ	a+0(FP), SI
	VPXOR	Y15, Y15, Y15
	VPCMPEQD	0(SI), Y15, Y0
	VMOVMSKPS	Y0, AX
	ZERO8(32, 8, AX)
	ZERO8(64, 16, AX)
	ZERO8(96, 24, AX)
	ZERO8(128, 32, AX)
	ZERO8(160, 40, AX)
	ZERO8(192, 48, AX)
	ZERO8(224, 56, AX)
	VPCMPEQD	256(SI), Y15, Y0
	VMOVMSKPS	Y0, DX
	ZERO8(288, 8, DX)
	ZERO8(320, 16, DX)
	ZERO8(352, 24, DX)
	ZERO8(384, 32, DX)
	ZERO8(416, 40, DX)
	ZERO8(448, 48, DX)
	ZERO8(480, 56, DX)
	VZEROUPPER
	NOTQ	AX
	NOTQ	DX
	MOVQ	AX, ret_0+8(FP)
	MOVQ	DX, ret_1+16(FP)
	RET
