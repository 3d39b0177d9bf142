//go:build amd64 && !purego

#include "textflag.h"

// unescapeRun and copyStringRun (stopscan_amd64.go): the copies of a
// string's body, its two-byte escapes written on the way, 32 bytes a
// step with AVX2 (16 with SSE2 for unescapeRun where the CPU has no
// AVX2). They take their arguments on the stack (ABI0), as the scans of
// stopscan_amd64.s do.

// func unescapeRun(dst, src []byte, stopHigh bool) (w, r int)
//
// A step loads 16 bytes of src (32 with AVX2, while more than 32 are
// left: the byte after a backslash the step finds is then in src, read
// with no bounds test), stores them at dst as they are and looks for a
// backslash (and, with stopHigh, a byte over 0x7f: its own high bit,
// kept by PAND with X3) among them: the bytes before the first are
// written, the others written again later. A two-byte escape writes its
// byte and the steps go on after it.
// The stores stay within dst: DI-dst is at most SI-src, and a step runs
// only while its bytes are within the bytes read, min(len(src),
// len(dst)). The last 1 to 15 bytes are tested in the 16 that end src
// (stringRunSSE2's tail) and the bytes before the stop copied with two
// overlapping moves, as memmove copies a few bytes; a src shorter than
// 16 bytes goes byte by byte. SI and DI walk src and dst, DX is the end
// of the bytes read, R13 32 bytes before it (the 32-byte steps run while
// SI is below it, one compare with no LEAQ of SI+32 a step or an escape;
// signed, as a short src at a low address may put R13 below 0, and a user
// address is below 1<<47), R11 and R12 src's and dst's start, R10 says AVX2 (the
// upper halves of Y2 and Y3 are cleared by VZEROUPPER once 32 bytes or
// fewer are left, and no 32-byte step runs after).
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
	LEAQ	-32(DX), R13
	VPBROADCASTB	stopBackslash<>(SB), Y2
	VPXOR	Y3, Y3, Y3
	TESTL	R9, R9
	JZ	unext
	VPBROADCASTB	highBits<>(SB), Y3

unext:
	TESTL	R10, R10
	JZ	u16
	CMPQ	SI, R13
	JLT	aloop          // more than 32 bytes left: a stop's next byte is in src
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
	JNZ	afound
	ADDQ	$32, SI
	ADDQ	$32, DI
	CMPQ	SI, R13
	JLT	aloop
	VZEROUPPER
	XORL	R10, R10
	JMP	u16

	// ustop and uescape for the 32-byte steps, which go on with them
	// after an escape with no test of R10 nor a jump through unext
	// (four instructions of each escape, most of a tool output's).
	// A \n escape, the commonest, is told by one compare of
	// its two bytes and written in place, SI and DI moved past it from
	// the step's start: eight instructions where the table's way took
	// 14 (16 now for the other escapes, two for the stop before it).
	// Its second byte is in src: the step began more than 32 bytes
	// before DX.
afound:
	BSFL	AX, AX
	CMPW	(SI)(AX*1), $0x6e5c // '\\' 'n'
	JNE	aother
	MOVB	$0x0a, (DI)(AX*1)
	LEAQ	2(SI)(AX*1), SI
	LEAQ	1(DI)(AX*1), DI
	CMPQ	SI, R13
	JLT	aloop
	VZEROUPPER
	XORL	R10, R10
	JMP	u16

aother:
	ADDQ	AX, SI
	ADDQ	AX, DI
	CMPB	(SI), $0x5c
	JNE	udone
	MOVBLZX	1(SI), AX      // in src: the step began more than 32 bytes before DX
	MOVBLZX	(R8)(AX*1), AX
	TESTL	AX, AX
	JZ	udone
	MOVB	AL, (DI)
	ADDQ	$2, SI
	INCQ	DI
	CMPQ	SI, R13
	JLT	aloop
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
// it returns once 32 bytes of src (or dst) or fewer are left, the last
// ones to its caller: a step runs only with more than 32 left, so that
// the byte after a backslash it finds is always in src. Only called
// where the CPU has AVX2 (useAVX2).
TEXT ·copyStringRun(SB), NOSPLIT, $0-64
	MOVQ	dst_base+0(FP), DI
	MOVQ	dst_len+8(FP), AX
	MOVQ	src_base+24(FP), SI
	MOVQ	src_len+32(FP), DX
	CMPQ	AX, DX
	CMOVQLT	AX, DX         // the bytes read: min(len(src), len(dst))
	MOVQ	SI, R11
	MOVQ	DI, R12
	LEAQ	-32(SI)(DX*1), DX // a step's last start: unescapeRun's R13
	LEAQ	escapeByte<>(SB), R8
	VPBROADCASTB	quote<>(SB), Y1
	VPBROADCASTB	stopBackslash<>(SB), Y2
	VPBROADCASTB	space<>(SB), Y3

cnext:
	CMPQ	SI, DX
	JGE	cdone

cloop:
	VMOVDQU	(SI), Y0
	VMOVDQU	Y0, (DI)
	VPCMPGTB	Y0, Y3, Y5     // 0x20 > the byte, signed: a control byte or one over 0x7f
	VPCMPEQB	Y1, Y0, Y4
	VPOR	Y4, Y5, Y5
	VPCMPEQB	Y2, Y0, Y4
	VPOR	Y4, Y5, Y5
	VPMOVMSKB	Y5, AX
	TESTL	AX, AX
	JNZ	cfound
	ADDQ	$32, SI
	ADDQ	$32, DI
	CMPQ	SI, DX
	JLT	cloop
	JMP	cdone

	// A \n escape as afound takes it.
cfound:
	BSFL	AX, AX
	CMPW	(SI)(AX*1), $0x6e5c // '\\' 'n'
	JNE	cother
	MOVB	$0x0a, (DI)(AX*1)
	LEAQ	2(SI)(AX*1), SI
	LEAQ	1(DI)(AX*1), DI
	CMPQ	SI, DX
	JLT	cloop
	JMP	cdone

cother:
	ADDQ	AX, SI
	ADDQ	AX, DI
	CMPB	(SI), $0x5c
	JNE	cdone
	MOVBLZX	1(SI), AX      // in src: the step began more than 32 bytes before src's end
	MOVBLZX	(R8)(AX*1), AX
	TESTL	AX, AX
	JZ	cdone
	MOVB	AL, (DI)
	ADDQ	$2, SI
	INCQ	DI
	CMPQ	SI, DX         // cnext's test, with no jump to it
	JLT	cloop

cdone:
	VZEROUPPER
	SUBQ	R11, SI
	SUBQ	R12, DI
	MOVQ	DI, w+48(FP)
	MOVQ	SI, r+56(FP)
	RET

// The byte sought, 16 copies (as in stopscan_amd64.s: a file's own).
DATA stopBackslash<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA stopBackslash<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL stopBackslash<>(SB), RODATA|NOPTR, $16

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

// The bytes copyStringRun compares with: '"', and 0x20, above every
// control byte and, compared signed, every byte over 0x7f.
DATA quote<>+0(SB)/1, $0x22
GLOBL quote<>(SB), RODATA|NOPTR, $1
DATA space<>+0(SB)/1, $0x20
GLOBL space<>(SB), RODATA|NOPTR, $1
