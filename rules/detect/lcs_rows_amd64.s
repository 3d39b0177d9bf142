//go:build amd64 && !purego

#include "textflag.h"

// func buildRunAsm(rows *[256]int, peq *uint64, run []byte, bit uint64) int
//
// buildRunAsm (lcs_rows_amd64.go) sets bit, shifted left one a byte, in
// the word each byte of run's row starts at in peq (its rowBase less one),
// up to the first byte with no row (a rowBase of 0), whose index it
// returns; len(run) when every byte has one. Two bytes a step. Registers:
// BX rows, DX peq, SI run's end, CX the byte's index from -len(run) up to
// 0, AX the byte then its row's base, R8 the bit. Arguments on the stack
// (ABI0).
TEXT ·buildRunAsm(SB), NOSPLIT, $0-56
	MOVQ	rows+0(FP), BX
	MOVQ	peq+8(FP), DX
	MOVQ	run_base+16(FP), SI
	MOVQ	run_len+24(FP), CX
	MOVQ	bit+40(FP), R8
	ADDQ	CX, SI
	NEGQ	CX
	JEQ	done
	TESTQ	$1, CX
	JEQ	pair
	// An odd length: one byte first, then two a step.
	MOVBQZX	(SI)(CX*1), AX
	MOVQ	(BX)(AX*8), AX
	TESTQ	AX, AX
	JEQ	done
	ORQ	R8, -8(DX)(AX*8)
	ADDQ	R8, R8
	INCQ	CX
	JEQ	done
pair:
	MOVBQZX	(SI)(CX*1), AX
	MOVQ	(BX)(AX*8), AX
	TESTQ	AX, AX
	JEQ	done
	ORQ	R8, -8(DX)(AX*8)
	ADDQ	R8, R8
	MOVBQZX	1(SI)(CX*1), AX
	MOVQ	(BX)(AX*8), AX
	TESTQ	AX, AX
	JEQ	second
	ORQ	R8, -8(DX)(AX*8)
	ADDQ	R8, R8
	ADDQ	$2, CX
	JNE	pair
done:
	MOVQ	run_len+24(FP), AX
	ADDQ	CX, AX
	MOVQ	AX, ret+48(FP)
	RET
second:
	INCQ	CX
	JMP	done

// func buildRunesAsm(ascii *[256]int32, peq *uint64, words int, run []rune, bit uint64) int
//
// buildRunesAsm is buildRunAsm over code points, their rows found by
// ascii (the row+1, 0 for none, as buildTo reads it): a code point's word
// is peq's at (row+1)*words less words. It stops at a code point past
// ASCII or with no row. Registers as buildRunAsm's, R9 words, DX peq less
// words words.
TEXT ·buildRunesAsm(SB), NOSPLIT, $0-64
	MOVQ	ascii+0(FP), BX
	MOVQ	words+16(FP), R9
	MOVQ	R9, DX
	NEGQ	DX
	SHLQ	$3, DX
	ADDQ	peq+8(FP), DX
	MOVQ	run_base+24(FP), SI
	MOVQ	run_len+32(FP), CX
	MOVQ	bit+48(FP), R8
	LEAQ	(SI)(CX*4), SI
	NEGQ	CX
	JEQ	runesDone
runesLoop:
	MOVL	(SI)(CX*4), AX
	CMPL	AX, $0x80
	JAE	runesDone
	MOVL	(BX)(AX*4), AX
	TESTL	AX, AX
	JEQ	runesDone
	IMULQ	R9, AX
	ORQ	R8, (DX)(AX*8)
	ADDQ	R8, R8
	INCQ	CX
	JNE	runesLoop
runesDone:
	MOVQ	run_len+32(FP), AX
	ADDQ	CX, AX
	MOVQ	AX, ret+56(FP)
	RET
