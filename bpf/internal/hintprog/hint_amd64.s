#include "textflag.h"

// func hintC(addr, n uintptr)
TEXT ·hintC(SB), NOSPLIT, $0-16
	MOVQ addr+0(FP), DI
	MOVQ n+8(FP), SI
	CALL ·kvtierHintAccessC(SB)
	RET

// kvtierHintAccessC stands for a C engine's kvtier_hint_access: entered
// with addr in RDI and n in RSI, it does nothing.
TEXT ·kvtierHintAccessC(SB), NOSPLIT, $0-0
	RET
