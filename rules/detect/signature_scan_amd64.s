//go:build amd64 && !purego

#include "textflag.h"

// sigCandsAVX2 (signature_scan_amd64.go) reads s 32 bytes a step from i,
// each step's 32 bytes and the 32 from one after (so the step's last pair
// is whole), both in lower case for letters (OR 0x20), and compares them
// as 16-bit words with the six pairs that open a word of sigWords ("er",
// "fa", "fi", "mo", "ch", "up"): the words of the first load are the pairs
// at even places, those of the second the pairs at odd places; a word's
// PMOVMSKB bits are both set, and the even or odd one of each is kept. It
// returns at the first step with a candidate. Past the last whole step,
// the indexes left before len(s)-1 (none can open a word at len(s)-1) are
// read by one step more, at len(s)-33, its bits below them cleared; after
// it (or with none left) it returns at len(s)-1 or past it, mask 0, so
// that a caller's look at the pairs from there finds none. No load reads
// past s: a step starts at p only when p+33 <= len(s). Arguments on the
// stack (ABI0).

// func sigCandsAVX2(s string, i int) (at int, mask uint32)
TEXT ·sigCandsAVX2(SB), NOSPLIT, $0-36
	MOVQ	s_base+0(FP), SI
	MOVQ	s_len+8(FP), DX
	MOVQ	i+16(FP), CX
	SUBQ	$33, DX // the last start of a step (negative: none)
	MOVL	$0x20202020, AX
	MOVQ	AX, X13
	VPBROADCASTD	X13, Y13
	MOVL	$0x7265, AX // "er"
	MOVQ	AX, X2
	VPBROADCASTW	X2, Y2
	MOVL	$0x6166, AX // "fa"
	MOVQ	AX, X3
	VPBROADCASTW	X3, Y3
	MOVL	$0x6966, AX // "fi"
	MOVQ	AX, X4
	VPBROADCASTW	X4, Y4
	MOVL	$0x6f6d, AX // "mo"
	MOVQ	AX, X5
	VPBROADCASTW	X5, Y5
	MOVL	$0x6863, AX // "ch"
	MOVQ	AX, X6
	VPBROADCASTW	X6, Y6
	MOVL	$0x7075, AX // "up"
	MOVQ	AX, X7
	VPBROADCASTW	X7, Y7
	MOVL	$0x55555555, R8
	MOVL	$0xaaaaaaaa, R9
	MOVL	$-1, R10 // the step's indexes kept
	XORL	R11, R11 // 1 at the last step

loop:
	CMPQ	CX, DX
	JGT	tail

step:
	VMOVDQU	(SI)(CX*1), Y0
	VMOVDQU	1(SI)(CX*1), Y1
	VPOR	Y13, Y0, Y0
	VPOR	Y13, Y1, Y1
	VPCMPEQW	Y2, Y0, Y10
	VPCMPEQW	Y3, Y0, Y8
	VPCMPEQW	Y4, Y0, Y9
	VPOR	Y8, Y10, Y10
	VPOR	Y9, Y10, Y10
	VPCMPEQW	Y5, Y0, Y8
	VPCMPEQW	Y6, Y0, Y9
	VPOR	Y8, Y10, Y10
	VPOR	Y9, Y10, Y10
	VPCMPEQW	Y7, Y0, Y8
	VPOR	Y8, Y10, Y10
	VPCMPEQW	Y2, Y1, Y11
	VPCMPEQW	Y3, Y1, Y8
	VPCMPEQW	Y4, Y1, Y9
	VPOR	Y8, Y11, Y11
	VPOR	Y9, Y11, Y11
	VPCMPEQW	Y5, Y1, Y8
	VPCMPEQW	Y6, Y1, Y9
	VPOR	Y8, Y11, Y11
	VPOR	Y9, Y11, Y11
	VPCMPEQW	Y7, Y1, Y8
	VPOR	Y8, Y11, Y11
	VPMOVMSKB	Y10, AX
	VPMOVMSKB	Y11, BX
	ANDL	R8, AX
	ANDL	R9, BX
	ORL	BX, AX
	ANDL	R10, AX
	JNZ	found
	ADDQ	$32, CX
	TESTQ	R11, R11
	JNZ	none
	JMP	loop

tail:
	TESTQ	DX, DX
	JLT	none // no whole step in s
	MOVQ	CX, R12
	SUBQ	DX, R12 // the indexes of the step at DX read already
	CMPQ	R12, $32
	JGE	none
	MOVQ	DX, R13
	MOVQ	R12, CX
	SHLL	CX, R10
	MOVQ	R13, CX
	MOVL	$1, R11
	JMP	step

found:
	VZEROUPPER
	MOVQ	CX, at+24(FP)
	MOVL	AX, mask+32(FP)
	RET

none:
	VZEROUPPER
	MOVQ	CX, at+24(FP)
	MOVL	$0, mask+32(FP)
	RET
