package policy

import "testing"

// TestTraceless: for every policy that says it is Traceless, admitting a
// block without an access and evicting it at once leaves the victims that
// follow, and their count, as they were without it; lru and fifo say so.
func TestTraceless(t *testing.T) {
	var names []string
	for _, info := range onlinePolicies() {
		p, err := New(specFor(info), Env{CapacityBlocks: 64, CapacityBytes: 64, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := p.(Traceless); !ok {
			continue
		}
		names = append(names, info.Name)
		t.Run(info.Name, func(t *testing.T) {
			plain, extra := victimsAfter(t, specFor(info), false), victimsAfter(t, specFor(info), true)
			if len(plain) != len(extra) {
				t.Fatalf("%d victims, %d after an admit and evict", len(plain), len(extra))
			}
			for i := range plain {
				if plain[i] != extra[i] {
					t.Fatalf("victim %d: %d, %d after an admit and evict", i, plain[i], extra[i])
				}
			}
		})
	}
	if len(names) != 2 || names[0] != "fifo" || names[1] != "lru" {
		t.Errorf("Traceless policies %v, want fifo and lru", names)
	}
}

// victimsAfter replays 600 accesses of 48 blocks (a hot third, read
// twice as often) through spec at a capacity of 16, admitting on a miss
// and evicting victims beyond the capacity, with, if extra, block 47
// admitted without an access and evicted at once at the 100th access
// (block 47 is read again later), and returns the victims' IDs.
func victimsAfter(t *testing.T, spec string, extra bool) []BlockID {
	t.Helper()
	const capacity = 16
	p, err := New(spec, Env{CapacityBlocks: capacity, CapacityBytes: capacity, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	blocks := benchBlocks(48, 8)
	resident := map[BlockID]bool{}
	var out []BlockID
	for i := range 600 {
		now := Time(i + 1)
		if extra && i == 100 {
			p.Admit(&blocks[47], now)
			p.Evict(&blocks[47], now)
		}
		b := &blocks[(i*13+i/7)%48]
		if i%3 == 0 {
			b = &blocks[(i*5)%16]
		}
		out = append(out, accessAdmit(p, b, now, capacity, resident)...)
	}
	return out
}
