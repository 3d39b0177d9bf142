//go:build amd64 && !purego

#include "textflag.h"

// countGramBytes3CarryAsm (gemini_grams_carry_amd64.go) counts the grams
// of 16 bytes at b[0], b[3], ... that b holds whole (len(b) >= 16), as
// countGramBytesCarryGo at stride 3: each gram's two words hashed as bytesGramSlot
// hashes them, d added to its entry in memory, and false at the first
// add that carries out of the byte. Eight grams a step at constant
// offsets while eight starts are left, then one a step. No load reads
// past b: a gram starts at most 16 bytes before its end. Arguments on
// the stack (ABI0).

// GRAM counts the gram at off(SI): AX its slot, then its entry's add.
#define GRAM(off) \
	MOVQ	(off+8)(SI), AX; \
	IMULQ	R8, AX; \
	XORQ	off(SI), AX; \
	IMULQ	R9, AX; \
	SHRQ	$50, AX; \
	ADDB	DX, (DI)(AX*1); \
	JCS	fail

// func countGramBytes3CarryAsm(counts *[countSlots]uint8, b []byte, d uint8) bool
TEXT ·countGramBytes3CarryAsm(SB), NOSPLIT, $0-41
	MOVQ	counts+0(FP), DI
	MOVQ	b_base+8(FP), SI
	MOVQ	b_len+16(FP), CX
	MOVBLZX	d+32(FP), DX
	MOVQ	$0x9E3779B97F4A7C15, R8
	MOVQ	$0xD6E8FEB86659FD93, R9
	SUBQ	$15, CX        // the grams' starts left
	CMPQ	CX, $21
	JLE	tail

loop:                      // more than seven starts left: eight grams
	GRAM(0)
	GRAM(3)
	GRAM(6)
	GRAM(9)
	GRAM(12)
	GRAM(15)
	GRAM(18)
	GRAM(21)
	ADDQ	$24, SI
	SUBQ	$24, CX
	CMPQ	CX, $21
	JGT	loop

tail:
	TESTQ	CX, CX
	JLE	done
	GRAM(0)
	ADDQ	$3, SI
	SUBQ	$3, CX
	JMP	tail

done:
	MOVB	$1, ret+40(FP)
	RET

fail:
	MOVB	$0, ret+40(FP)
	RET

// countGramBytes1CarryAsm is countGramBytes3CarryAsm at the dense
// count's stride, 1: the grams at b[0], b[1], ..., eight a step while
// eight starts are left, then one a step.

// func countGramBytes1CarryAsm(counts *[countSlots]uint8, b []byte, d uint8) bool
TEXT ·countGramBytes1CarryAsm(SB), NOSPLIT, $0-41
	MOVQ	counts+0(FP), DI
	MOVQ	b_base+8(FP), SI
	MOVQ	b_len+16(FP), CX
	MOVBLZX	d+32(FP), DX
	MOVQ	$0x9E3779B97F4A7C15, R8
	MOVQ	$0xD6E8FEB86659FD93, R9
	SUBQ	$15, CX        // the grams' starts left
	CMPQ	CX, $7
	JLE	tail1

loop1:                     // more than seven starts left: eight grams
	GRAM(0)
	GRAM(1)
	GRAM(2)
	GRAM(3)
	GRAM(4)
	GRAM(5)
	GRAM(6)
	GRAM(7)
	ADDQ	$8, SI
	SUBQ	$8, CX
	CMPQ	CX, $7
	JGT	loop1

tail1:
	TESTQ	CX, CX
	JLE	done
	GRAM(0)
	INCQ	SI
	DECQ	CX
	JMP	tail1

done:
	MOVB	$1, ret+40(FP)
	RET

fail:
	MOVB	$0, ret+40(FP)
	RET

// clearCountsAVX2 (gemini_grams_carry_amd64.go) zeroes the 16 KB of
// counts, 256 bytes a step: some 700 instructions, where clear's
// REP STOSQ counts as 2,048.

// func clearCountsAVX2(counts *[countSlots]uint8)
TEXT ·clearCountsAVX2(SB), NOSPLIT, $0-8
	MOVQ	counts+0(FP), DI
	LEAQ	16384(DI), SI
	VPXOR	Y0, Y0, Y0

zloop:
	VMOVDQU	Y0, (DI)
	VMOVDQU	Y0, 32(DI)
	VMOVDQU	Y0, 64(DI)
	VMOVDQU	Y0, 96(DI)
	VMOVDQU	Y0, 128(DI)
	VMOVDQU	Y0, 160(DI)
	VMOVDQU	Y0, 192(DI)
	VMOVDQU	Y0, 224(DI)
	ADDQ	$256, DI
	CMPQ	DI, SI
	JNE	zloop
	VZEROUPPER
	RET

// countGrams3CarryAsm and countGrams1CarryAsm (gemini_grams_carry_amd64.go)
// are countGramBytes3CarryAsm and countGramBytes1CarryAsm over code
// units: a gram is 16 units, four words, hashed as unitsGramSlot hashes
// them; b's length and the grams' starts (CX) are in units, SI moves in
// bytes (two a unit). No load reads past b: a gram starts at most 16
// units before its end.

// UGRAM counts the gram at off(SI): AX its slot, BX each product.
#define UGRAM(off) \
	MOVQ	(off+8)(SI), AX; \
	IMULQ	R8, AX; \
	MOVQ	(off+16)(SI), BX; \
	IMULQ	R10, BX; \
	XORQ	BX, AX; \
	MOVQ	(off+24)(SI), BX; \
	IMULQ	R11, BX; \
	XORQ	BX, AX; \
	XORQ	off(SI), AX; \
	IMULQ	R9, AX; \
	SHRQ	$50, AX; \
	ADDB	DX, (DI)(AX*1); \
	JCS	ufail

// func countGrams3CarryAsm(counts *[countSlots]uint8, b []uint16, d uint8) bool
TEXT ·countGrams3CarryAsm(SB), NOSPLIT, $0-41
	MOVQ	counts+0(FP), DI
	MOVQ	b_base+8(FP), SI
	MOVQ	b_len+16(FP), CX
	MOVBLZX	d+32(FP), DX
	MOVQ	$0x9E3779B97F4A7C15, R8
	MOVQ	$0xD6E8FEB86659FD93, R9
	MOVQ	$0xC2B2AE3D27D4EB4F, R10
	MOVQ	$0x165667B19E3779F9, R11
	SUBQ	$15, CX        // the grams' starts left, in units
	CMPQ	CX, $21
	JLE	utail3

uloop3:                    // more than seven starts left: eight grams
	UGRAM(0)
	UGRAM(6)
	UGRAM(12)
	UGRAM(18)
	UGRAM(24)
	UGRAM(30)
	UGRAM(36)
	UGRAM(42)
	ADDQ	$48, SI
	SUBQ	$24, CX
	CMPQ	CX, $21
	JGT	uloop3

utail3:
	TESTQ	CX, CX
	JLE	udone
	UGRAM(0)
	ADDQ	$6, SI
	SUBQ	$3, CX
	JMP	utail3

udone:
	MOVB	$1, ret+40(FP)
	RET

ufail:
	MOVB	$0, ret+40(FP)
	RET

// func countGrams1CarryAsm(counts *[countSlots]uint8, b []uint16, d uint8) bool
TEXT ·countGrams1CarryAsm(SB), NOSPLIT, $0-41
	MOVQ	counts+0(FP), DI
	MOVQ	b_base+8(FP), SI
	MOVQ	b_len+16(FP), CX
	MOVBLZX	d+32(FP), DX
	MOVQ	$0x9E3779B97F4A7C15, R8
	MOVQ	$0xD6E8FEB86659FD93, R9
	MOVQ	$0xC2B2AE3D27D4EB4F, R10
	MOVQ	$0x165667B19E3779F9, R11
	SUBQ	$15, CX        // the grams' starts left, in units
	CMPQ	CX, $7
	JLE	utail1

uloop1:                    // more than seven starts left: eight grams
	UGRAM(0)
	UGRAM(2)
	UGRAM(4)
	UGRAM(6)
	UGRAM(8)
	UGRAM(10)
	UGRAM(12)
	UGRAM(14)
	ADDQ	$16, SI
	SUBQ	$8, CX
	CMPQ	CX, $7
	JGT	uloop1

utail1:
	TESTQ	CX, CX
	JLE	udone
	UGRAM(0)
	ADDQ	$2, SI
	DECQ	CX
	JMP	utail1

udone:
	MOVB	$1, ret+40(FP)
	RET

ufail:
	MOVB	$0, ret+40(FP)
	RET
