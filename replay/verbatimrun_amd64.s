//go:build amd64 && !purego

#include "textflag.h"

// verbatimRun (verbatimrun_amd64.go), 16 bytes a step with SSE2, as
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

// func verbatimRun(b []byte, j int) int
TEXT ·verbatimRun(SB), NOSPLIT, $0-40
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
