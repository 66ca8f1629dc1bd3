//go:build linux && (amd64 || arm64)

package bpf

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestClassifyPermission: a refused load keeps its errno and gains
// ErrPermission, and its text names what the user lacks, never
// cilium/ebpf's advice to call rlimit.RemoveMemlock (issue 15).
func TestClassifyPermission(t *testing.T) {
	var rl unix.Rlimit
	var un unix.Utsname
	if err := errors.Join(unix.Getrlimit(unix.RLIMIT_MEMLOCK, &rl), unix.Uname(&un)); err != nil {
		t.Fatal(err)
	}
	charged := memlockCharged(unix.ByteSliceToString(un.Release[:])) && rl.Cur != unix.RLIM_INFINITY
	lib := fmt.Errorf("map create: %w%s", unix.EPERM, libraryAdvice) // as cilium/ebpf words it
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"advised", fmt.Errorf("loading BPF program p: %w", lib),
			[]string{"loading BPF program p: map create: operation not permitted (permission denied: need root or CAP_BPF and CAP_PERFMON"}},
		{"plain", fmt.Errorf("attaching: %w", unix.EACCES),
			[]string{"attaching: permission denied (permission denied: need root or CAP_BPF and CAP_PERFMON)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := classify(tc.err)
			if !errors.Is(err, ErrPermission) || !errors.Is(err, tc.err) {
				t.Errorf("classify(%v) = %v: not ErrPermission wrapping the original", tc.err, err)
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			if strings.Contains(msg, "RemoveMemlock") || strings.Contains(msg, "consider") {
				t.Errorf("message %q carries the library's advice", msg)
			}
			memlock := strings.Contains(msg, "locked-memory limit")
			if want := tc.name == "advised" && charged; memlock != want {
				t.Errorf("message %q names the memlock limit: %v, want %v (limit %d)", msg, memlock, want, rl.Cur)
			}
		})
	}
}

func TestMemlockCharged(t *testing.T) {
	for rel, want := range map[string]bool{
		"4.19.0-27-amd64": true, "5.10.0-32-amd64": true, "5.11.0": false, "6.1.0-56-amd64": false,
		"6.18.44-fc-v782": false, "weird": true,
	} {
		if got := memlockCharged(rel); got != want {
			t.Errorf("memlockCharged(%q) = %v, want %v", rel, got, want)
		}
	}
}
