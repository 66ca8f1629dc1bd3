package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// Pidfds counts this process's open pidfds.
func Pidfds(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if l, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); l == "anon_inode:[pidfd]" {
			n++
		}
	}
	return n
}
