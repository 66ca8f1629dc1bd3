package guest

import "bytes"

// kernelFailures are console lines a kernel prints when it dies.
var kernelFailures = [][]byte{
	[]byte("Kernel panic - not syncing"),
	[]byte("Oops:"),
	[]byte("BUG: "),
	[]byte("general protection fault"),
}

// DiedBeforeScenario reports whether the guest kernel failed (an oops or a
// panic on the console) before the scenario printed its begin marker. Under
// TCG such a boot can crash in the kernel's own early code (an int3 in
// sched_clock_cpu has been seen at 1.8 s); nothing of kvtier ran, so the
// caller may boot again instead of failing the test.
func DiedBeforeScenario(console []byte) bool {
	begin := bytes.Index(console, []byte(BeginMarker))
	early := console
	if begin >= 0 {
		early = console[:begin]
	}
	for _, f := range kernelFailures {
		if bytes.Contains(early, f) {
			return true
		}
	}
	return false
}
