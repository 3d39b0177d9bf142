//go:build amd64 && !purego

#include "textflag.h"

// special, stringRunSSE2 and verbatimIndex (stopscan_amd64.go), 16 bytes
// a step with SSE2, the amd64 baseline; stringRun, 32 bytes a step with
// AVX2 where the CPU has it (useAVX2), else stringRunSSE2. A step loads 16
// bytes, compares each with the class's bytes (PCMPEQB, PMINUB), ORs the
// results into a mask of a bit a byte (PMOVMSKB) and stops at its lowest
// bit (BSF). None reads outside b: the bytes after the last whole step
// are tested in the 16 bytes that end b, the bits of those before j
// shifted out; a b shorter than 16 bytes is tested a byte at a time.
// A j past len(b) (or negative: unsigned, it is past) is returned as it
// is. They take their arguments on the stack (ABI0): an assembly
// function outside the runtime cannot use the register ABI.

// STRINGSTOP sets AX to the mask of the bytes of X0 that are '"' (X1),
// '\\' (X2) or at most 0x1f (X3), using X4 and X5; X0 is lost.
#define STRINGSTOP \
	MOVO	X0, X4 \
	PMINUB	X3, X4 \
	PCMPEQB	X0, X4 \
	MOVO	X0, X5 \
	PCMPEQB	X1, X5 \
	PCMPEQB	X2, X0 \
	POR	X4, X0 \
	POR	X5, X0 \
	PMOVMSKB	X0, AX

// VERBATIMSTOP sets AX to the mask of the bytes of X0 that are '<' (X1),
// '>' (X2), '&' (X3), '\\' (X6) or over 0x7f (their own high bit), using
// X4 and X5; X0 is kept.
#define VERBATIMSTOP \
	MOVO	X0, X4 \
	PCMPEQB	X1, X4 \
	MOVO	X0, X5 \
	PCMPEQB	X2, X5 \
	POR	X5, X4 \
	MOVO	X0, X5 \
	PCMPEQB	X3, X5 \
	POR	X5, X4 \
	MOVO	X0, X5 \
	PCMPEQB	X6, X5 \
	POR	X5, X4 \
	POR	X0, X4 \
	PMOVMSKB	X4, AX

// func special(b []byte, j int) int
TEXT ·special(SB), NOSPLIT, $0-40
	MOVQ	b_base+0(FP), SI
	MOVQ	b_len+8(FP), DX
	MOVQ	j+24(FP), CX
	CMPQ	CX, DX
	JAE	sat            // j >= len(b), unsigned: j as it is
	CMPQ	DX, $16
	JB	sbytes
	MOVOU	stopQuote<>(SB), X1
	MOVOU	stopBackslash<>(SB), X2
	MOVOU	stopControl<>(SB), X3
	LEAQ	16(CX), BX
	CMPQ	BX, DX
	JA	stail

sloop:
	MOVOU	(SI)(CX*1), X0
	STRINGSTOP
	TESTL	AX, AX
	JNZ	sfound
	ADDQ	$16, CX
	LEAQ	16(CX), BX
	CMPQ	BX, DX
	JBE	sloop
	CMPQ	CX, DX
	JAE	send

stail:
	MOVOU	-16(SI)(DX*1), X0
	STRINGSTOP
	MOVQ	CX, BX         // j
	SUBQ	DX, CX
	ADDQ	$16, CX        // the bytes of the load before j: 1 to 15
	SHRL	CX, AX
	TESTL	AX, AX
	JZ	send
	MOVQ	BX, CX

sfound:
	BSFL	AX, AX
	ADDQ	CX, AX
	MOVQ	AX, ret+32(FP)
	RET

sbytes:
	MOVBLZX	(SI)(CX*1), AX
	CMPB	AL, $0x20
	JB	sat
	CMPB	AL, $0x22
	JEQ	sat
	CMPB	AL, $0x5c
	JEQ	sat
	INCQ	CX
	CMPQ	CX, DX
	JB	sbytes

send:
	MOVQ	DX, ret+32(FP)
	RET

sat:
	MOVQ	CX, ret+32(FP)
	RET

// func stringRunSSE2(b []byte, j int) (stop int, esc bool)
TEXT ·stringRunSSE2(SB), NOSPLIT, $0-41
	MOVQ	b_base+0(FP), SI
	MOVQ	b_len+8(FP), DX
	MOVQ	j+24(FP), CX
	XORL	DI, DI         // esc
	CMPQ	CX, DX
	JAE	rat            // j >= len(b), unsigned: j as it is
	LEAQ	twoByteEscape<>(SB), R8
	CMPQ	DX, $16
	JB	rbytes
	MOVOU	stopQuote<>(SB), X1
	MOVOU	stopBackslash<>(SB), X2
	MOVOU	stopControl<>(SB), X3

rnext:
	LEAQ	16(CX), BX
	CMPQ	BX, DX
	JA	rtail

rloop:
	MOVOU	(SI)(CX*1), X0
	STRINGSTOP
	TESTL	AX, AX
	JNZ	rfound
	ADDQ	$16, CX
	LEAQ	16(CX), BX
	CMPQ	BX, DX
	JBE	rloop

rtail:
	CMPQ	CX, DX
	JAE	rend
	MOVOU	-16(SI)(DX*1), X0
	STRINGSTOP
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
	MOVBLZX	(SI)(CX*1), AX
	CMPB	AL, $0x5c
	JNE	rat

	// A backslash: past it when a two-byte escape, on at the next byte.
rescape:
	LEAQ	1(CX), BX
	CMPQ	BX, DX
	JAE	rat
	MOVBLZX	(SI)(BX*1), AX
	MOVBLZX	(R8)(AX*1), AX
	TESTL	AX, AX
	JZ	rat
	MOVL	$1, DI
	ADDQ	$2, CX
	CMPQ	DX, $16
	JAE	rnext
	CMPQ	CX, DX
	JAE	rend

rbytes:
	MOVBLZX	(SI)(CX*1), AX
	CMPB	AL, $0x20
	JB	rat
	CMPB	AL, $0x22
	JEQ	rat
	CMPB	AL, $0x5c
	JEQ	rescape
	INCQ	CX
	CMPQ	CX, DX
	JB	rbytes

rend:
	MOVQ	DX, CX

rat:
	MOVQ	CX, stop+32(FP)
	MOVB	DI, esc+40(FP)
	RET

// STRINGSTOP32 sets AX to the mask of the bytes of Y0 that are '"' (Y1),
// '\\' (Y2) or at most 0x1f (Y3), using Y4 and Y5; Y0 is lost.
#define STRINGSTOP32 \
	VPMINUB	Y3, Y0, Y4 \
	VPCMPEQB	Y0, Y4, Y4 \
	VPCMPEQB	Y1, Y0, Y5 \
	VPCMPEQB	Y2, Y0, Y0 \
	VPOR	Y4, Y0, Y0 \
	VPOR	Y5, Y0, Y0 \
	VPMOVMSKB	Y0, AX

// func stringRun(b []byte, j int) (stop int, esc bool)
//
// stringRunSSE2 where the CPU has no AVX2 or b is shorter than a step;
// else 32 bytes a step, and a two-byte escape is passed within the step's
// mask (its two bits shifted out, the next stop's bit next), where
// stringRunSSE2 loads again after each: a SWE-agent observation's lines
// run 20 to 70 bytes between their \n. R9 is the place the mask's lowest
// bit stands for, R10 the end of the bytes the mask covers.
TEXT ·stringRun(SB), NOSPLIT, $0-41
	CMPB	·useAVX2(SB), $0
	JEQ	sse2
	MOVQ	b_len+8(FP), DX
	CMPQ	DX, $32
	JB	sse2
	MOVQ	b_base+0(FP), SI
	MOVQ	j+24(FP), R9
	XORL	DI, DI         // esc
	CMPQ	R9, DX
	JAE	aat            // j >= len(b), unsigned: j as it is
	LEAQ	twoByteEscape<>(SB), R8
	VPBROADCASTB	stopQuote<>(SB), Y1
	VPBROADCASTB	stopBackslash<>(SB), Y2
	VPBROADCASTB	stopControl<>(SB), Y3

anext:
	LEAQ	32(R9), R10
	CMPQ	R10, DX
	JA	atail

aloop:
	VMOVDQU	(SI)(R9*1), Y0
	STRINGSTOP32
	TESTL	AX, AX
	JNZ	afound
	MOVQ	R10, R9
	ADDQ	$32, R10
	CMPQ	R10, DX
	JBE	aloop

atail:
	CMPQ	R9, DX
	JAE	aend
	VMOVDQU	-32(SI)(DX*1), Y0
	STRINGSTOP32
	MOVQ	R9, CX
	SUBQ	DX, CX
	ADDQ	$32, CX        // the bytes of the load before R9: 1 to 31
	SHRL	CX, AX
	MOVQ	DX, R10
	TESTL	AX, AX
	JZ	aend

afound:
	BSFL	AX, CX
	ADDQ	CX, R9         // the stop
	CMPB	(SI)(R9*1), $0x5c
	JNE	aat

	// A backslash: past it when a two-byte escape, on at the mask's next
	// bit (AX fits 32 bits: a shift of up to 33 empties it).
	LEAQ	1(R9), BX
	CMPQ	BX, DX
	JAE	aat
	MOVBLZX	(SI)(BX*1), BX
	CMPB	(R8)(BX*1), $0
	JEQ	aat
	MOVL	$1, DI
	ADDQ	$2, R9
	ADDL	$2, CX
	SHRQ	CX, AX
	TESTQ	AX, AX
	JNZ	afound

	// No stop left in the mask: on from its end, or from past the escape
	// when the escaped byte was the first after it.
	CMPQ	R9, R10
	CMOVQCS	R10, R9
	JMP	anext

aend:
	MOVQ	DX, R9

aat:
	VZEROUPPER
	MOVQ	R9, stop+32(FP)
	MOVB	DI, esc+40(FP)
	RET

sse2:
	JMP	·stringRunSSE2(SB)

// func verbatimIndex(b []byte, j int) int
TEXT ·verbatimIndex(SB), NOSPLIT, $0-40
	MOVQ	b_base+0(FP), SI
	MOVQ	b_len+8(FP), DX
	MOVQ	j+24(FP), CX
	CMPQ	CX, DX
	JAE	vat
	CMPQ	DX, $16
	JB	vbytes
	MOVOU	stopLess<>(SB), X1
	MOVOU	stopGreater<>(SB), X2
	MOVOU	stopAmp<>(SB), X3
	MOVOU	stopBackslash<>(SB), X6
	LEAQ	16(CX), BX
	CMPQ	BX, DX
	JA	vtail

vloop:
	MOVOU	(SI)(CX*1), X0
	VERBATIMSTOP
	TESTL	AX, AX
	JNZ	vfound
	ADDQ	$16, CX
	LEAQ	16(CX), BX
	CMPQ	BX, DX
	JBE	vloop
	CMPQ	CX, DX
	JAE	vend

vtail:
	MOVOU	-16(SI)(DX*1), X0
	VERBATIMSTOP
	MOVQ	CX, BX
	SUBQ	DX, CX
	ADDQ	$16, CX
	SHRL	CX, AX
	TESTL	AX, AX
	JZ	vend
	MOVQ	BX, CX

vfound:
	BSFL	AX, AX
	ADDQ	CX, AX
	MOVQ	AX, ret+32(FP)
	RET

vbytes:
	MOVBLZX	(SI)(CX*1), AX
	CMPB	AL, $0x80
	JAE	vat
	CMPB	AL, $0x3c      // <
	JEQ	vat
	CMPB	AL, $0x3e      // >
	JEQ	vat
	CMPB	AL, $0x26      // &
	JEQ	vat
	CMPB	AL, $0x5c      // \\
	JEQ	vat
	INCQ	CX
	CMPQ	CX, DX
	JB	vbytes

vend:
	MOVQ	DX, ret+32(FP)
	RET

vat:
	MOVQ	CX, ret+32(FP)
	RET

// func unescapeRun(dst, src []byte, stopHigh bool) (w, r int)
//
// A step loads 16 bytes of src (32 with AVX2, while 32 are left), stores
// them at dst as they are and looks for a backslash (and, with stopHigh,
// a byte over 0x7f: its own high bit, kept by PAND with X3) among them:
// the bytes before the first are written, the others written again
// later. A two-byte escape writes its byte and the steps go on after it.
// The stores stay within dst: DI-dst is at most SI-src, and a step runs
// only while its bytes are within the bytes read, min(len(src),
// len(dst)). The last 1 to 15 bytes are tested in the 16 that end src
// (stringRunSSE2's tail) and the bytes before the stop copied with two
// overlapping moves, as memmove copies a few bytes; a src shorter than
// 16 bytes goes byte by byte. SI and DI walk src and dst, DX is the end
// of the bytes read, R11 and R12 src's and dst's start, R10 says AVX2 (the
// upper halves of Y2 and Y3 are cleared by VZEROUPPER once fewer than 32
// bytes are left, and no 32-byte step runs after).
TEXT ·unescapeRun(SB), NOSPLIT, $0-72
	MOVQ	dst_base+0(FP), DI
	MOVQ	dst_len+8(FP), AX
	MOVQ	src_base+24(FP), SI
	MOVQ	src_len+32(FP), DX
	CMPQ	AX, DX
	CMOVQLT	AX, DX         // the bytes read: min(len(src), len(dst))
	MOVQ	SI, R11
	MOVQ	DI, R12
	ADDQ	SI, DX
	LEAQ	escapeByte<>(SB), R8
	MOVBLZX	stopHigh+48(FP), R9
	MOVBLZX	·useAVX2(SB), R10
	TESTL	R10, R10
	JNZ	uavx2
	MOVOU	stopBackslash<>(SB), X2
	PXOR	X3, X3
	TESTL	R9, R9
	JZ	unext
	MOVOU	highBits<>(SB), X3
	JMP	unext

uavx2:
	VPBROADCASTB	stopBackslash<>(SB), Y2
	VPXOR	Y3, Y3, Y3
	TESTL	R9, R9
	JZ	unext
	VPBROADCASTB	highBits<>(SB), Y3

unext:
	TESTL	R10, R10
	JZ	u16
	LEAQ	32(SI), BX
	CMPQ	BX, DX
	JBE	aloop
	VZEROUPPER
	XORL	R10, R10

u16:
	LEAQ	16(SI), BX
	CMPQ	BX, DX
	JA	utail

uloop:
	MOVOU	(SI), X0
	MOVOU	X0, (DI)
	MOVO	X0, X1
	PCMPEQB	X2, X1
	PAND	X3, X0
	POR	X1, X0
	PMOVMSKB	X0, AX
	TESTL	AX, AX
	JNZ	ufound
	ADDQ	$16, SI
	ADDQ	$16, DI
	LEAQ	16(SI), BX
	CMPQ	BX, DX
	JBE	uloop

utail:
	CMPQ	SI, DX
	JAE	udone
	LEAQ	-16(DX), BX
	CMPQ	BX, R11
	JB	ubytes         // src is shorter than a step
	MOVOU	(BX), X0
	MOVO	X0, X1
	PCMPEQB	X2, X1
	PAND	X3, X0
	POR	X1, X0
	PMOVMSKB	X0, AX
	MOVQ	SI, CX
	SUBQ	BX, CX         // the bytes of the load before SI: 1 to 15
	SHRL	CX, AX
	MOVQ	DX, CX
	SUBQ	SI, CX         // the bytes left: 1 to 15
	TESTL	AX, AX
	JZ	ucopy
	BSFL	AX, CX         // the bytes before the stop

	// Copy CX bytes (0 to 15) from SI to DI.
ucopy:
	CMPQ	CX, $8
	JB	ucopy4
	MOVQ	(SI), R13
	MOVQ	-8(SI)(CX*1), BX
	MOVQ	R13, (DI)
	MOVQ	BX, -8(DI)(CX*1)
	JMP	ucopied
ucopy4:
	CMPQ	CX, $4
	JB	ucopy1
	MOVL	(SI), R13
	MOVL	-4(SI)(CX*1), BX
	MOVL	R13, (DI)
	MOVL	BX, -4(DI)(CX*1)
	JMP	ucopied
ucopy1:
	TESTQ	CX, CX
	JZ	ucopied
	MOVBLZX	(SI), R13
	MOVBLZX	-1(SI)(CX*1), BX
	MOVB	R13, (DI)
	MOVB	BX, -1(DI)(CX*1)
	CMPQ	CX, $3
	JB	ucopied
	MOVBLZX	1(SI), R13
	MOVB	R13, 1(DI)
ucopied:
	ADDQ	CX, SI
	ADDQ	CX, DI
	TESTL	AX, AX
	JZ	udone
	JMP	ustop

ufound:
	BSFL	AX, AX
	ADDQ	AX, SI
	ADDQ	AX, DI
	JMP	ustop

aloop:
	VMOVDQU	(SI), Y0
	VMOVDQU	Y0, (DI)
	VPCMPEQB	Y2, Y0, Y1
	VPAND	Y3, Y0, Y0
	VPOR	Y1, Y0, Y0
	VPMOVMSKB	Y0, AX
	TESTL	AX, AX
	JNZ	ufound
	ADDQ	$32, SI
	ADDQ	$32, DI
	LEAQ	32(SI), BX
	CMPQ	BX, DX
	JBE	aloop
	VZEROUPPER
	XORL	R10, R10
	JMP	u16

	// At a backslash or a byte over 0x7f: past a two-byte escape, its
	// byte written; else stop.
ustop:
	MOVBLZX	(SI), AX
	CMPB	AL, $0x5c
	JNE	udone
uescape:
	LEAQ	1(SI), BX
	CMPQ	BX, DX
	JAE	udone
	MOVBLZX	(BX), AX
	MOVBLZX	(R8)(AX*1), AX
	TESTL	AX, AX
	JZ	udone
	MOVB	AL, (DI)
	ADDQ	$2, SI
	INCQ	DI
	JMP	unext

ubytes:
	MOVBLZX	(SI), AX
	CMPB	AL, $0x5c
	JEQ	uescape
	CMPB	AL, $0x80
	JB	ubyte
	TESTL	R9, R9
	JNZ	udone
ubyte:
	MOVB	AL, (DI)
	INCQ	SI
	INCQ	DI
	CMPQ	SI, DX
	JB	ubytes

udone:
	TESTL	R10, R10
	JZ	uret
	VZEROUPPER
uret:
	SUBQ	R11, SI
	SUBQ	R12, DI
	MOVQ	DI, w+56(FP)
	MOVQ	SI, r+64(FP)
	RET

// func copyStringRun(dst, src []byte) (w, r int)
//
// unescapeRun (AVX2 steps only) that also stops at '"' and at a byte
// below 0x20, and at any byte over 0x7f, for a string not yet validated:
// it returns once fewer than 32 bytes of src (or dst) are left, the last
// ones to its caller. Only called where the CPU has AVX2 (useAVX2).
TEXT ·copyStringRun(SB), NOSPLIT, $0-64
	MOVQ	dst_base+0(FP), DI
	MOVQ	dst_len+8(FP), AX
	MOVQ	src_base+24(FP), SI
	MOVQ	src_len+32(FP), DX
	CMPQ	AX, DX
	CMOVQLT	AX, DX         // the bytes read: min(len(src), len(dst))
	MOVQ	SI, R11
	MOVQ	DI, R12
	ADDQ	SI, DX
	LEAQ	escapeByte<>(SB), R8
	VPBROADCASTB	stopQuote<>(SB), Y1
	VPBROADCASTB	stopBackslash<>(SB), Y2
	VPBROADCASTB	stopControl<>(SB), Y3

cnext:
	LEAQ	32(SI), BX
	CMPQ	BX, DX
	JA	cdone

cloop:
	VMOVDQU	(SI), Y0
	VMOVDQU	Y0, (DI)
	VPMINUB	Y3, Y0, Y4
	VPCMPEQB	Y0, Y4, Y4
	VPCMPEQB	Y1, Y0, Y5
	VPOR	Y4, Y5, Y5
	VPCMPEQB	Y2, Y0, Y4
	VPOR	Y4, Y5, Y5
	VPOR	Y0, Y5, Y5     // a byte over 0x7f: its own high bit
	VPMOVMSKB	Y5, AX
	TESTL	AX, AX
	JNZ	cfound
	ADDQ	$32, SI
	ADDQ	$32, DI
	LEAQ	32(SI), BX
	CMPQ	BX, DX
	JBE	cloop
	JMP	cdone

cfound:
	BSFL	AX, AX
	ADDQ	AX, SI
	ADDQ	AX, DI
	MOVBLZX	(SI), AX
	CMPB	AL, $0x5c
	JNE	cdone
	LEAQ	1(SI), BX
	CMPQ	BX, DX
	JAE	cdone
	MOVBLZX	(BX), AX
	MOVBLZX	(R8)(AX*1), AX
	TESTL	AX, AX
	JZ	cdone
	MOVB	AL, (DI)
	ADDQ	$2, SI
	INCQ	DI
	JMP	cnext

cdone:
	VZEROUPPER
	SUBQ	R11, SI
	SUBQ	R12, DI
	MOVQ	DI, w+48(FP)
	MOVQ	SI, r+56(FP)
	RET

// The bytes sought, 16 copies each.
DATA stopQuote<>+0(SB)/8, $0x2222222222222222
DATA stopQuote<>+8(SB)/8, $0x2222222222222222
GLOBL stopQuote<>(SB), RODATA|NOPTR, $16
DATA stopBackslash<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA stopBackslash<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL stopBackslash<>(SB), RODATA|NOPTR, $16
DATA stopControl<>+0(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA stopControl<>+8(SB)/8, $0x1f1f1f1f1f1f1f1f
GLOBL stopControl<>(SB), RODATA|NOPTR, $16
DATA stopLess<>+0(SB)/8, $0x3c3c3c3c3c3c3c3c
DATA stopLess<>+8(SB)/8, $0x3c3c3c3c3c3c3c3c
GLOBL stopLess<>(SB), RODATA|NOPTR, $16
DATA stopGreater<>+0(SB)/8, $0x3e3e3e3e3e3e3e3e
DATA stopGreater<>+8(SB)/8, $0x3e3e3e3e3e3e3e3e
GLOBL stopGreater<>(SB), RODATA|NOPTR, $16
DATA stopAmp<>+0(SB)/8, $0x2626262626262626
DATA stopAmp<>+8(SB)/8, $0x2626262626262626
GLOBL stopAmp<>(SB), RODATA|NOPTR, $16

// twoByteEscape flags the bytes that follow a backslash in a two-byte
// escape: " \ / b f n r t.
DATA twoByteEscape<>+0x22(SB)/1, $1
DATA twoByteEscape<>+0x2f(SB)/1, $1
DATA twoByteEscape<>+0x5c(SB)/1, $1
DATA twoByteEscape<>+0x62(SB)/1, $1
DATA twoByteEscape<>+0x66(SB)/1, $1
DATA twoByteEscape<>+0x6e(SB)/1, $1
DATA twoByteEscape<>+0x72(SB)/1, $1
DATA twoByteEscape<>+0x74(SB)/1, $1
GLOBL twoByteEscape<>(SB), RODATA|NOPTR, $256

DATA highBits<>+0(SB)/8, $0x8080808080808080
DATA highBits<>+8(SB)/8, $0x8080808080808080
GLOBL highBits<>(SB), RODATA|NOPTR, $16

// escapeByte is the byte a two-byte escape writes, by the byte after the
// backslash (0: not one), simpleEscape.
DATA escapeByte<>+0x22(SB)/1, $0x22
DATA escapeByte<>+0x2f(SB)/1, $0x2f
DATA escapeByte<>+0x5c(SB)/1, $0x5c
DATA escapeByte<>+0x62(SB)/1, $0x08
DATA escapeByte<>+0x66(SB)/1, $0x0c
DATA escapeByte<>+0x6e(SB)/1, $0x0a
DATA escapeByte<>+0x72(SB)/1, $0x0d
DATA escapeByte<>+0x74(SB)/1, $0x09
GLOBL escapeByte<>(SB), RODATA|NOPTR, $256
