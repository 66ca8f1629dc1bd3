package testutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FDs counts this process's open descriptors whose /proc/self/fd link
// target satisfies match ("anon_inode:[pidfd]", "anon_inode:bpf-map", ...).
func FDs(t testing.TB, match func(target string) bool) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && match(l) {
			n++
		}
	}
	return n
}

// Pidfds counts this process's open pidfds.
func Pidfds(t testing.TB) int {
	t.Helper()
	return FDs(t, func(l string) bool { return l == "anon_inode:[pidfd]" })
}

// BPFFDs counts this process's descriptors of BPF objects (anon inodes
// "bpf-map", "bpf-prog", "bpf_link").
func BPFFDs(t testing.TB) int {
	t.Helper()
	return FDs(t, func(l string) bool { return strings.HasPrefix(l, "anon_inode:bpf") })
}
