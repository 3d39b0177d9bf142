//go:build amd64 && !purego

#include "textflag.h"

// func asciiPlain32(b []byte) bool
//
// plainASCII for a b of 32 bytes or more where the CPU has AVX2
// (strscan_amd64.go): 32 bytes a step, each byte's high bit (a byte over
// 0x7f) and a backslash's compare ORed into one register, tested once
// at the end; the last bytes are read as the 32 that end b (again if
// they were read), never past it. Most strings it is asked about are
// plain ASCII, read to their end anyway.
TEXT ·asciiPlain32(SB), NOSPLIT, $0-25
	MOVQ	b_base+0(FP), SI
	MOVQ	b_len+8(FP), DX
	VPBROADCASTB	backslash<>(SB), Y2
	LEAQ	-32(SI)(DX*1), DX // the last step's start
	VMOVDQU	(DX), Y0
	VPCMPEQB	Y2, Y0, Y3
	VPOR	Y0, Y3, Y3

loop:
	CMPQ	SI, DX
	JAE	done
	VMOVDQU	(SI), Y0
	VPCMPEQB	Y2, Y0, Y1
	VPOR	Y1, Y3, Y3
	VPOR	Y0, Y3, Y3
	ADDQ	$32, SI
	JMP	loop

done:
	VPMOVMSKB	Y3, AX
	VZEROUPPER
	TESTL	AX, AX
	SETEQ	ret+24(FP)
	RET

DATA backslash<>+0(SB)/1, $0x5c
GLOBL backslash<>(SB), RODATA|NOPTR, $1
