package policy

import (
	"runtime"
	"testing"
)

// TestReserve: an expert that reserves the state of n residents (as
// kv_adaptive's move to a new leader does) ranks them as an instance that
// did not reserve, and admits them without allocating (reuse_req still
// allocates its request's bookkeeping on access).
func TestReserve(t *testing.T) {
	const n = 2000
	for _, tt := range []struct {
		name    string
		noAlloc bool
	}{{"reuse_lru", true}, {"hit_density", true}, {"reuse_req", false}} {
		name := tt.name
		t.Run(name, func(t *testing.T) {
			env := Env{CapacityBlocks: n, Seed: 1}
			fill := func(p Policy, blocks []Block) (mallocs uint64) {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for i := range blocks {
					p.Access(&blocks[i], Time(i))
					p.Admit(&blocks[i], Time(i))
				}
				runtime.ReadMemStats(&after)
				return after.Mallocs - before.Mallocs
			}
			plain, reserved := mustNew(t, name, env), mustNew(t, name, env)
			reserved.(reserver).reserve(n)
			a, b := benchBlocks(n, 16), benchBlocks(n, 16)
			fill(plain, a)
			if m := fill(reserved, b); m > 0 && tt.noAlloc {
				t.Errorf("%d allocations admitting %d reserved blocks, want 0", m, n)
			}
			if plain.Len() != n || reserved.Len() != n {
				t.Fatalf("residents %d and %d, want %d", plain.Len(), reserved.Len(), n)
			}
			for i := range n {
				v1, ok1 := plain.Victim(Time(n + i))
				v2, ok2 := reserved.Victim(Time(n + i))
				if !ok1 || !ok2 || v1.ID != v2.ID {
					t.Fatalf("victim %d: %v (%v) without reserving, %v (%v) with", i, v1, ok1, v2, ok2)
				}
				plain.Evict(v1, Time(n+i))
				reserved.Evict(v2, Time(n+i))
			}
		})
	}
}
