package main

import (
	"slices"
	"testing"
)

func TestChooseSets(t *testing.T) {
	for _, tc := range []struct {
		name                       string
		total, hot, regret, other  int
		wantA, wantB, wantC, wantD int
	}{
		{"issue's arena", 256, 32, 16, 72, 32, 32, 16, 72},
		{"small arena cuts D", 64, 16, 8, 72, 16, 16, 8, 24},
		{"tiny arena", 4, 3, 2, 2, 3, 1, 0, 0},
	} {
		s := chooseSets(1, tc.total, tc.hot, tc.regret, tc.other)
		if len(s.A) != tc.wantA || len(s.B) != tc.wantB || len(s.C) != tc.wantC || len(s.D) != tc.wantD {
			t.Errorf("%s: sizes %d/%d/%d/%d, want %d/%d/%d/%d", tc.name, len(s.A), len(s.B), len(s.C), len(s.D),
				tc.wantA, tc.wantB, tc.wantC, tc.wantD)
		}
		seen := map[int]bool{}
		for _, set := range [][]int{s.A, s.B, s.C, s.D} {
			if !slices.IsSorted(set) {
				t.Errorf("%s: set %v not sorted", tc.name, set)
			}
			for _, b := range set {
				if b < 0 || b >= tc.total || seen[b] {
					t.Errorf("%s: block %d out of range or in two sets", tc.name, b)
				}
				seen[b] = true
			}
		}
		if again := chooseSets(1, tc.total, tc.hot, tc.regret, tc.other); !slices.Equal(again.A, s.A) || !slices.Equal(again.D, s.D) {
			t.Errorf("%s: the same seed chose other sets", tc.name)
		}
	}
}

func TestSetsSpread(t *testing.T) {
	s := chooseSets(7, 256, 32, 16, 72)
	for k, b := range s.A {
		if b/8 != k {
			t.Fatalf("block %d of A is not in stratum %d of 8 blocks: %v", b, k, s.A)
		}
	}
}

func TestArenaChecksums(t *testing.T) {
	a, err := newArena(8*pageSize*4, 4*pageSize, false)
	if err != nil {
		t.Fatal(err)
	}
	a.fill()
	if bad := a.verify(); len(bad) != 0 {
		t.Fatalf("fresh arena: mismatches %v", bad)
	}
	if a.sums[0] == a.sums[1] {
		t.Error("two blocks have the same checksum: the content does not depend on the key")
	}
	a.write(3, 12345)
	if !a.read(3) {
		t.Error("block 3 does not match after a rewrite")
	}
	a.block(5)[100] ^= 1
	if bad := a.verify(); !slices.Equal(bad, []int{5}) {
		t.Errorf("after flipping a bit of block 5: mismatches %v, want [5]", bad)
	}
	if _, err := newArena(3*pageSize, 2*pageSize, false); err == nil {
		t.Error("an arena that is not a multiple of its block size was accepted")
	}
}

func TestVmstatField(t *testing.T) {
	text := []byte("nr_free_pages 100\npgmigrate_success 4096\npgmigrate_fail 3\n")
	for _, tc := range []struct {
		name string
		want int64
	}{
		{"pgmigrate_success", 4096},
		{"pgmigrate_fail", 3},
		{"pgmigrate", -1},
		{"absent", -1},
	} {
		if got := vmstatField(text, tc.name); got != tc.want {
			t.Errorf("vmstatField(%q) = %d, want %d", tc.name, got, tc.want)
		}
	}
}
