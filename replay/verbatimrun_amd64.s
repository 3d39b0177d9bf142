//go:build amd64 && !purego

#include "textflag.h"

// verbatimRun (verbatimrun_amd64.go), 16 bytes a step with SSE2, as
// verbatimIndex (stopscan_amd64.s) but passing the escapes encoding/json
// writes within the loop: a backslash stops a step, and when the byte
// after it is one of " \ b f n r t the scan goes on two bytes further,
// with no return to goVerbatim (an OpenHands key's long strings hold a
// \n every line). Nothing is read outside b: the bytes after the last
// whole step are tested in the 16 bytes that end b, the bits of those
// before the position shifted out; a b shorter than 16 bytes is tested a
// byte at a time. ABI0, arguments on the stack.

// RUNSTOP sets AX to the mask of the bytes of X0 that are '<' or '>' (one
// test: ORed with 0x02 (X1), exactly they are '>' (X2)), '&' (X3), '\\'
// (X6) or over 0x7f (their own high bit), using X4 and X5.
#define RUNSTOP \
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

// func verbatimRun(b []byte, j int) int
TEXT ·verbatimRun(SB), NOSPLIT, $0-40
	MOVQ	b_base+0(FP), SI
	MOVQ	b_len+8(FP), DX
	MOVQ	j+24(FP), CX
	LEAQ	runEscape<>(SB), R8
	CMPQ	DX, $16
	JB	rbytes
	MOVOU	runAngle<>(SB), X1
	MOVOU	runGreater<>(SB), X2
	MOVOU	runAmp<>(SB), X3
	MOVOU	runBackslash<>(SB), X6

rloop:
	LEAQ	16(CX), BX
	CMPQ	BX, DX
	JA	rtail
	MOVOU	(SI)(CX*1), X0
	RUNSTOP
	TESTL	AX, AX
	JNZ	rfound
	MOVQ	BX, CX
	JMP	rloop

rtail:
	CMPQ	CX, DX
	JAE	rend
	MOVOU	-16(SI)(DX*1), X0
	RUNSTOP
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

// The bytes sought, 16 copies each.
DATA runBackslash<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA runBackslash<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL runBackslash<>(SB), RODATA|NOPTR, $16
DATA runAngle<>+0(SB)/8, $0x0202020202020202 // ORed: '<' (0x3c) becomes '>'
DATA runAngle<>+8(SB)/8, $0x0202020202020202
GLOBL runAngle<>(SB), RODATA|NOPTR, $16
DATA runGreater<>+0(SB)/8, $0x3e3e3e3e3e3e3e3e
DATA runGreater<>+8(SB)/8, $0x3e3e3e3e3e3e3e3e
GLOBL runGreater<>(SB), RODATA|NOPTR, $16
DATA runAmp<>+0(SB)/8, $0x2626262626262626
DATA runAmp<>+8(SB)/8, $0x2626262626262626
GLOBL runAmp<>(SB), RODATA|NOPTR, $16

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
