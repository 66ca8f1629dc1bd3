package main

import (
	"testing"
)

func TestArenaVerifyDetectsCorruption(t *testing.T) {
	tests := []struct {
		name    string
		corrupt func(a *arena)
		want    []int
	}{
		{"intact", func(*arena) {}, nil},
		{"one byte", func(a *arena) { a.block(3)[12345] ^= 1 }, []int{3}},
		{"page number", func(a *arena) { a.block(0)[4096+16]++ }, []int{0}},
		{"blocks swapped", func(a *arena) {
			tmp := append([]byte{}, a.block(1)...)
			copy(a.block(1), a.block(2))
			copy(a.block(2), tmp)
		}, []int{1, 2}},
		{"pages swapped within a block", func(a *arena) {
			b := a.block(5)
			tmp := append([]byte{}, b[:4096]...)
			copy(b[:4096], b[4096:8192])
			copy(b[4096:8192], tmp)
		}, []int{5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := newArena("t", 8*64<<10, 64<<10, false)
			if err != nil {
				t.Fatal(err)
			}
			a.fill(7)
			tt.corrupt(a)
			got := a.verify()
			if len(got) != len(tt.want) {
				t.Fatalf("verify() = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("verify() = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestArenaGenerationsDiffer(t *testing.T) {
	a, err := newArena("t", 2*64<<10, 64<<10, false)
	if err != nil {
		t.Fatal(err)
	}
	a.fill(1)
	first := append([]uint32{}, a.sums...)
	if first[0] == first[1] {
		t.Fatalf("blocks 0 and 1 have the same checksum %#x", first[0])
	}
	a.fill(2)
	for i := range first {
		if a.sums[i] == first[i] {
			t.Errorf("block %d: checksum %#x unchanged across generations", i, first[i])
		}
	}
	if bad := a.verify(); len(bad) != 0 {
		t.Errorf("verify after refill: %v", bad)
	}
}

func TestArenaAlignmentAndErrors(t *testing.T) {
	a, err := newArena("t", 4<<20, 2<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	if a.addr()%(2<<20) != 0 {
		t.Errorf("arena at %#x is not 2 MiB aligned", a.addr())
	}
	for _, c := range []struct{ size, block int }{{1 << 20, 1000}, {3 << 20, 2 << 20}, {1 << 20, 2 << 20}} {
		if _, err := newArena("t", c.size, c.block, false); err == nil {
			t.Errorf("newArena(%d, %d) succeeded, want an error", c.size, c.block)
		}
	}
}
