package guest

import "testing"

func TestDiedBeforeScenario(t *testing.T) {
	tests := []struct {
		name    string
		console string
		want    bool
	}{
		{"clean boot", "Linux version 6.12\n" + BeginMarker + "\nKVTIER-RESULT a 0\n" + EndMarker + " 0\n", false},
		{"early oops", "Linux version 6.12\nOops: int3: 0000 [#1] PREEMPT SMP\nKernel panic - not syncing: Fatal exception\n", true},
		{"early panic only", "Kernel panic - not syncing: VFS: Unable to mount root fs\n", true},
		{"oops after the begin marker", BeginMarker + "\nBUG: unable to handle page fault\n", false},
		{"no console", "", false},
		{"timed out quietly", "Linux version 6.12\nRun /init as init process\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DiedBeforeScenario([]byte(tt.console)); got != tt.want {
				t.Errorf("DiedBeforeScenario = %v, want %v", got, tt.want)
			}
		})
	}
}
