//go:build amd64 && !purego

#include "textflag.h"

// special and stringRunSSE2 (stopscan_amd64.go), 16 bytes
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

// STRINGSTOP32 sets AX to the mask of the bytes of Y0 that are '"' or at
// most 0x1f or '\\' (Y2), using Y4; Y0 is lost. The quote and the control
// bytes are one signed compare: XORed with 0x82 (Y1), exactly they are
// -128 to -96 as signed bytes (0x02 moves '"' to 0x20 and the control
// bytes among themselves, as in stopMask; 0x80 moves 0x00-0x7f to
// -128..-1 and the bytes over 0x7f to 0..127), below -95 (Y3): five
// instructions, where an unsigned test (VPMINUB, VPCMPEQB) took six.
#define STRINGSTOP32 \
	VPXOR	Y1, Y0, Y4 \
	VPCMPGTB	Y4, Y3, Y4 \
	VPCMPEQB	Y2, Y0, Y0 \
	VPOR	Y4, Y0, Y0 \
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
	VPBROADCASTB	stopQuoteXor<>(SB), Y1
	VPBROADCASTB	stopBackslash<>(SB), Y2
	VPBROADCASTB	stopSigned<>(SB), Y3

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

// func stringClose(b []byte, j int) (end int, esc bool)
//
// stringRun's AVX2 steps (only called where the CPU has AVX2 and b holds
// 32 bytes or more) that also pass a \u escape (its four hex digits
// checked) within the step's mask and stop only at the string's end: at
// its closing quote (returning the index after it), or at a control
// byte, an invalid escape or b's end (returning -1). validString was a
// loop of calls, one each time stringRun stopped: at a \u escape, after
// a first word's escape, and at the quote itself, tested again in Go.
// R8 is escapeKind, R11 hexDigit; R9, R10 and AX as in stringRun, but for
// the steps from a stop on, where R9 is 2 past the stop (past it, if it
// starts a two-byte escape).
TEXT ·stringClose(SB), NOSPLIT, $0-41
	MOVQ	b_base+0(FP), SI
	MOVQ	b_len+8(FP), DX
	MOVQ	j+24(FP), R9
	XORL	DI, DI         // esc
	CMPQ	R9, DX
	JAE	ecut           // j >= len(b), unsigned: no closing quote
	LEAQ	escapeKind<>(SB), R8
	LEAQ	hexDigit<>(SB), R11
	VPBROADCASTB	stopQuoteXor<>(SB), Y1
	VPBROADCASTB	stopBackslash<>(SB), Y2
	VPBROADCASTB	stopSigned<>(SB), Y3

enext:
	LEAQ	32(R9), R10
	CMPQ	R10, DX
	JAE	etail

eloop:
	VMOVDQU	(SI)(R9*1), Y0
	STRINGSTOP32
	TESTL	AX, AX
	JNZ	efound
	MOVQ	R10, R9
	ADDQ	$32, R10
	CMPQ	R10, DX
	JB	eloop

etail:
	CMPQ	R9, DX
	JAE	ecut
	VMOVDQU	-32(SI)(DX*1), Y0
	STRINGSTOP32
	CMPB	-1(SI)(DX*1), $0x5c
	JNE	etailshift
	ANDL	$0x7fffffff, AX // a backslash ending b: cut, not a stop

etailshift:
	MOVQ	R9, CX
	SUBQ	DX, CX
	ADDQ	$32, CX        // the bytes of the load before R9: 0 to 31
	SHRL	CX, AX
	MOVQ	DX, R10
	TESTL	AX, AX
	JZ	ecut

efound:
	BSFL	AX, CX
	ADDL	$2, CX         // the bits to shift out if the stop starts a two-byte escape
	ADDQ	CX, R9         // the stop + 2
	CMPB	-2(SI)(R9*1), $0x5c
	JNE	enotescape     // tested first: a string stops at one quote, at many escapes

	// A backslash, never b's last byte (etail): past its escape, on at
	// the mask's next bit (AX fits 32 bits: a shift of up to 37 empties
	// it). R9 is already past a two-byte escape, and DI, its kind (1),
	// says the string holds an escape.
	MOVBLZX	-1(SI)(R9*1), BX
	MOVBLZX	(R8)(BX*1), DI // 1, 6 for \u, 0: invalid
	CMPL	DI, $1
	JNE	eunicode

eshift:
	SHRQ	CX, AX         // CX is 2 to 37, never 0: the flags are the result's
	JNZ	efound

	// No stop left in the mask: on from its end, or from past the escape
	// when it ran past it.
	CMPQ	R9, R10
	CMOVQCS	R10, R9
	LEAQ	32(R9), R10
	CMPQ	R10, DX
	JB	eloop
	JMP	etail

eunicode:
	TESTL	DI, DI
	JZ	ecut
	LEAQ	4(R9), BX      // the escape's end: the stop + 6
	CMPQ	BX, DX
	JA	ecut
	MOVBLZX	(SI)(R9*1), BX
	CMPB	(R11)(BX*1), $0
	JEQ	ecut
	MOVBLZX	1(SI)(R9*1), BX
	CMPB	(R11)(BX*1), $0
	JEQ	ecut
	MOVBLZX	2(SI)(R9*1), BX
	CMPB	(R11)(BX*1), $0
	JEQ	ecut
	MOVBLZX	3(SI)(R9*1), BX
	CMPB	(R11)(BX*1), $0
	JEQ	ecut
	MOVL	$1, DI
	ADDQ	$4, R9
	ADDL	$4, CX
	JMP	eshift

enotescape:
	CMPB	-2(SI)(R9*1), $0x22
	JNE	ecut           // a control byte
	DECQ	R9             // past the closing quote
	VZEROUPPER
	MOVQ	R9, end+32(FP)
	MOVB	DI, esc+40(FP)
	RET

ecut:
	VZEROUPPER
	MOVQ	$-1, end+32(FP)
	MOVB	$0, esc+40(FP)
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

// escapeKind tells the escape a backslash starts, by the byte after it:
// 1 for a two-byte escape (stringClose's esc as it is), 6 for \u (its hex
// digits checked apart), 0 for none.
DATA escapeKind<>+0x22(SB)/1, $1
DATA escapeKind<>+0x2f(SB)/1, $1
DATA escapeKind<>+0x5c(SB)/1, $1
DATA escapeKind<>+0x62(SB)/1, $1
DATA escapeKind<>+0x66(SB)/1, $1
DATA escapeKind<>+0x6e(SB)/1, $1
DATA escapeKind<>+0x72(SB)/1, $1
DATA escapeKind<>+0x74(SB)/1, $1
DATA escapeKind<>+0x75(SB)/1, $6
GLOBL escapeKind<>(SB), RODATA|NOPTR, $256

// hexDigit flags the hex digits: 0-9, a-f, A-F.
DATA hexDigit<>+0x30(SB)/1, $1
DATA hexDigit<>+0x31(SB)/1, $1
DATA hexDigit<>+0x32(SB)/1, $1
DATA hexDigit<>+0x33(SB)/1, $1
DATA hexDigit<>+0x34(SB)/1, $1
DATA hexDigit<>+0x35(SB)/1, $1
DATA hexDigit<>+0x36(SB)/1, $1
DATA hexDigit<>+0x37(SB)/1, $1
DATA hexDigit<>+0x38(SB)/1, $1
DATA hexDigit<>+0x39(SB)/1, $1
DATA hexDigit<>+0x41(SB)/1, $1
DATA hexDigit<>+0x42(SB)/1, $1
DATA hexDigit<>+0x43(SB)/1, $1
DATA hexDigit<>+0x44(SB)/1, $1
DATA hexDigit<>+0x45(SB)/1, $1
DATA hexDigit<>+0x46(SB)/1, $1
DATA hexDigit<>+0x61(SB)/1, $1
DATA hexDigit<>+0x62(SB)/1, $1
DATA hexDigit<>+0x63(SB)/1, $1
DATA hexDigit<>+0x64(SB)/1, $1
DATA hexDigit<>+0x65(SB)/1, $1
DATA hexDigit<>+0x66(SB)/1, $1
GLOBL hexDigit<>(SB), RODATA|NOPTR, $256

// The bytes STRINGSTOP32 compares with: 0x82, XORed to move '"' to 0x20
// and the bytes up to 0x20 to -128..-96, and -95 (0xa1).
DATA stopQuoteXor<>+0(SB)/1, $0x82
GLOBL stopQuoteXor<>(SB), RODATA|NOPTR, $1
DATA stopSigned<>+0(SB)/1, $0xa1
GLOBL stopSigned<>(SB), RODATA|NOPTR, $1
