package plan

import (
	"testing"
	"unsafe"

	"github.com/kvtier/kvtier/policy"
)

// TestLayout keeps the per-block records of the planner and of its
// callers without padding (issue 13: bytes per tracked block).
func TestLayout(t *testing.T) {
	tests := []struct {
		name      string
		got, want uintptr
	}{
		{"entry", unsafe.Sizeof(entry{}), 72},
		{"policy.Meta", unsafe.Sizeof(policy.Meta{}), 48},
		{"policy.Block", unsafe.Sizeof(policy.Block{}), 80},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s is %d bytes, want %d", tt.name, tt.got, tt.want)
		}
	}
}
