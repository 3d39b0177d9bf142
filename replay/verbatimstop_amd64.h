// The test of the bytes encoding/json does not write as they are, for
// verbatimIndex (stopscan_amd64.s) and verbatimRun (verbatimrun_amd64.s),
// each of which includes this file: the macro, and its constants (file
// local, a copy in each).

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
