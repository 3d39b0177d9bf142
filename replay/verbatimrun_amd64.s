//go:build amd64 && !purego

#include "textflag.h"

// verbatimRun (verbatimrun_amd64.go), 32 bytes a step with AVX2 where
// the CPU has it (below), else verbatimRunSSE2: 16 bytes a step, as
// stopscan_amd64.s's scans, passing the escapes encoding/json writes
// within the loop: a backslash stops a step, and when the byte
// after it is one of " \ b f n r t the scan goes on two bytes further,
// with no return to goVerbatim (an OpenHands key's long strings hold a
// \n every line). Nothing is read outside b: the bytes after the last
// whole step are tested in the 16 bytes that end b, the bits of those
// before the position shifted out; a b shorter than 16 bytes is tested a
// byte at a time. ABI0, arguments on the stack.

// VERBATIMSTOP sets AX to the mask of the bytes of X0 that are '<' or
// '>' (one test: ORed with 0x02 (X1, verbatimAngle), exactly they are
// '>' (X2, verbatimGreater)), '&' (X3, verbatimAmp), '\\' (X6,
// verbatimBackslash) or over 0x7f (their own high bit), using X4 and
// X5; X0 is kept.
#define VERBATIMSTOP \
	MOVO	X0, X4 \
	POR	X1, X4 \
	PCMPEQB	X2, X4 \
	MOVO	X0, X5 \
	PCMPEQB	X3, X5 \
	POR	X5, X4 \
	MOVO	X0, X5 \
	PCMPEQB	X6, X5 \
	POR	X5, X4 \
	POR	X0, X4 \
	PMOVMSKB	X4, AX

// func verbatimRunSSE2(b []byte, j int) int
TEXT ·verbatimRunSSE2(SB), NOSPLIT, $0-40
	MOVQ	b_base+0(FP), SI
	MOVQ	b_len+8(FP), DX
	MOVQ	j+24(FP), CX
	LEAQ	runEscape<>(SB), R8
	CMPQ	DX, $16
	JB	rbytes
	MOVOU	verbatimAngle<>(SB), X1
	MOVOU	verbatimGreater<>(SB), X2
	MOVOU	verbatimAmp<>(SB), X3
	MOVOU	verbatimBackslash<>(SB), X6

rloop:
	LEAQ	16(CX), BX
	CMPQ	BX, DX
	JA	rtail
	MOVOU	(SI)(CX*1), X0
	VERBATIMSTOP
	TESTL	AX, AX
	JNZ	rfound
	MOVQ	BX, CX
	JMP	rloop

rtail:
	CMPQ	CX, DX
	JAE	rend
	MOVOU	-16(SI)(DX*1), X0
	VERBATIMSTOP
	MOVQ	CX, BX
	SUBQ	DX, CX
	ADDQ	$16, CX
	SHRL	CX, AX
	MOVQ	BX, CX
	TESTL	AX, AX
	JZ	rend

rfound:
	BSFL	AX, AX
	ADDQ	AX, CX
	CMPB	(SI)(CX*1), $0x5c
	JNE	rat
	LEAQ	1(CX), BX
	CMPQ	BX, DX
	JAE	rat
	MOVBLZX	(SI)(BX*1), AX
	CMPB	(R8)(AX*1), $0
	JEQ	rat
	ADDQ	$2, CX
	JMP	rloop

rbytes:
	CMPQ	CX, DX
	JAE	rend
	MOVBLZX	(SI)(CX*1), AX
	CMPB	AL, $0x80
	JAE	rat
	CMPB	AL, $0x3c      // <
	JEQ	rat
	CMPB	AL, $0x3e      // >
	JEQ	rat
	CMPB	AL, $0x26      // &
	JEQ	rat
	CMPB	AL, $0x5c      // \\
	JEQ	rbslash
	INCQ	CX
	JMP	rbytes

rbslash:
	LEAQ	1(CX), BX
	CMPQ	BX, DX
	JAE	rat
	MOVBLZX	(SI)(BX*1), AX
	CMPB	(R8)(AX*1), $0
	JEQ	rat
	ADDQ	$2, CX
	JMP	rbytes

rend:
	MOVQ	DX, ret+32(FP)
	RET

rat:
	MOVQ	CX, ret+32(FP)
	RET

// VERBATIMSTOP32 is VERBATIMSTOP on the 32 bytes of Y0, the constants
// in Y1, Y2, Y3 and Y6, using Y4 and Y5: three operands, no copy of Y0.
#define VERBATIMSTOP32 \
	VPOR	Y1, Y0, Y4 \
	VPCMPEQB	Y2, Y4, Y4 \
	VPCMPEQB	Y3, Y0, Y5 \
	VPOR	Y5, Y4, Y4 \
	VPCMPEQB	Y6, Y0, Y5 \
	VPOR	Y5, Y4, Y4 \
	VPOR	Y0, Y4, Y4 \
	VPMOVMSKB	Y4, AX

// func verbatimRun(b []byte, j int) int
//
// verbatimRunSSE2 where the CPU has no AVX2 or b is shorter than a step;
// else 32 bytes a step (8 instructions a step's mask, where SSE2's 11
// covered 16 bytes), and an escape encoding/json writes is passed within
// the step's mask (its two bits shifted out, the next stop's bit next),
// as stringRun passes its escapes: a tool output's \n, one a line, no
// longer loads again. R9 is the place the mask's lowest bit stands for,
// R10 the end of the bytes the mask covers.
TEXT ·verbatimRun(SB), NOSPLIT, $0-40
	CMPB	·useAVX2(SB), $0
	JEQ	vsse2
	MOVQ	b_len+8(FP), DX
	CMPQ	DX, $32
	JB	vsse2
	MOVQ	b_base+0(FP), SI
	MOVQ	j+24(FP), R9
	CMPQ	R9, DX
	JAE	vend           // j >= len(b), unsigned: len(b)
	LEAQ	runEscape<>(SB), R8
	VPBROADCASTB	verbatimAngle<>(SB), Y1
	VPBROADCASTB	verbatimGreater<>(SB), Y2
	VPBROADCASTB	verbatimAmp<>(SB), Y3
	VPBROADCASTB	verbatimBackslash<>(SB), Y6

vnext:
	LEAQ	32(R9), R10
	CMPQ	R10, DX
	JA	vtail

vloop:
	VMOVDQU	(SI)(R9*1), Y0
	VERBATIMSTOP32
	TESTL	AX, AX
	JNZ	vfound
	MOVQ	R10, R9
	ADDQ	$32, R10
	CMPQ	R10, DX
	JBE	vloop

vtail:
	CMPQ	R9, DX
	JAE	vend
	VMOVDQU	-32(SI)(DX*1), Y0
	VERBATIMSTOP32
	MOVQ	R9, CX
	SUBQ	DX, CX
	ADDQ	$32, CX        // the bytes of the load before R9: 1 to 31
	SHRL	CX, AX
	MOVQ	DX, R10
	TESTL	AX, AX
	JZ	vend

vfound:
	BSFL	AX, CX
	ADDQ	CX, R9         // the stop
	CMPB	(SI)(R9*1), $0x5c
	JNE	vat

	// A backslash: past it when an escape encoding/json writes, on at
	// the mask's next bit (AX fits 32 bits: a shift of up to 33 empties
	// it).
	LEAQ	1(R9), BX
	CMPQ	BX, DX
	JAE	vat
	MOVBLZX	(SI)(BX*1), BX
	CMPB	(R8)(BX*1), $0
	JEQ	vat
	ADDQ	$2, R9
	ADDL	$2, CX
	SHRQ	CX, AX
	TESTQ	AX, AX
	JNZ	vfound

	// No stop left in the mask: on from its end, or from past the escape
	// when the escaped byte was the first after it.
	CMPQ	R9, R10
	CMOVQCS	R10, R9
	JMP	vnext

vend:
	MOVQ	DX, R9

vat:
	VZEROUPPER
	MOVQ	R9, ret+32(FP)
	RET

vsse2:
	JMP	·verbatimRunSSE2(SB)

// runEscape flags the bytes after a backslash in the escapes
// encoding/json writes: " \ b f n r t (not \/, which it writes as /).
DATA runEscape<>+0x22(SB)/1, $1
DATA runEscape<>+0x5c(SB)/1, $1
DATA runEscape<>+0x62(SB)/1, $1
DATA runEscape<>+0x66(SB)/1, $1
DATA runEscape<>+0x6e(SB)/1, $1
DATA runEscape<>+0x72(SB)/1, $1
DATA runEscape<>+0x74(SB)/1, $1
GLOBL runEscape<>(SB), RODATA|NOPTR, $256

// The bytes sought, 16 copies each.
DATA verbatimBackslash<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA verbatimBackslash<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL verbatimBackslash<>(SB), RODATA|NOPTR, $16
DATA verbatimAngle<>+0(SB)/8, $0x0202020202020202 // ORed: '<' (0x3c) becomes '>'
DATA verbatimAngle<>+8(SB)/8, $0x0202020202020202
GLOBL verbatimAngle<>(SB), RODATA|NOPTR, $16
DATA verbatimGreater<>+0(SB)/8, $0x3e3e3e3e3e3e3e3e
DATA verbatimGreater<>+8(SB)/8, $0x3e3e3e3e3e3e3e3e
GLOBL verbatimGreater<>(SB), RODATA|NOPTR, $16
DATA verbatimAmp<>+0(SB)/8, $0x2626262626262626
DATA verbatimAmp<>+8(SB)/8, $0x2626262626262626
GLOBL verbatimAmp<>(SB), RODATA|NOPTR, $16
