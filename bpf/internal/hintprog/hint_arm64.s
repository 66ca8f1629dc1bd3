#include "textflag.h"

// func hintC(addr, n uintptr)
TEXT ·hintC(SB), NOSPLIT, $0-16
	MOVD addr+0(FP), R0
	MOVD n+8(FP), R1
	CALL ·kvtierHintAccessC(SB)
	RET

// kvtierHintAccessC stands for a C engine's kvtier_hint_access: entered
// with addr in X0 and n in X1 (AAPCS64), it does nothing.
TEXT ·kvtierHintAccessC(SB), NOSPLIT, $0-0
	RET
