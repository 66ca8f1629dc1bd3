package policy

import "testing"

// reqFeeder feeds whole requests to a policy as the simulator does: an
// access, then an admission (after evicting the victim when full) on a
// miss.
type reqFeeder struct {
	p        Policy
	capacity int
	resident map[BlockID]bool
	blocks   map[BlockID]*Block
	seq      uint64
}

// request reads the blocks ids in order as one request: reused ids with
// RefCount 2, the others with RefCount 1.
func (f *reqFeeder) request(reused, fresh []BlockID) {
	f.seq++
	for i, id := range append(append([]BlockID{}, reused...), fresh...) {
		b, ok := f.blocks[id]
		if !ok {
			b = &Block{ID: id}
			f.blocks[id] = b
		}
		b.Meta = Meta{Seq: f.seq, Pos: int32(i), RefCount: 1}
		if i < len(reused) {
			b.Meta.RefCount = 2
		}
		f.p.Access(b, 0)
		if f.resident[id] {
			continue
		}
		if f.p.Len() >= f.capacity {
			v, _ := f.p.Victim(0)
			f.p.Evict(v, 0)
			delete(f.resident, v.ID)
		}
		f.p.Admit(b, 0)
		f.resident[id] = true
	}
}

// train alternates short requests (one new block, re-read by the next
// short request) and long ones (long new blocks, never read again).
func (f *reqFeeder) train(rounds, long int) BlockID {
	next := BlockID(1)
	prev := BlockID(0)
	for range rounds {
		f.request([]BlockID{prev}, []BlockID{next})
		prev = next
		next++
		fresh := make([]BlockID, long)
		for i := range fresh {
			fresh[i] = next
			next++
		}
		f.request(nil, fresh)
	}
	return next
}

// TestReuseReqLearnsRequestClasses: a block read once is likely to be
// read again when its request added one block, unlikely when its request
// added many, and the classes are told apart only once each request ends.
func TestReuseReqLearnsRequestClasses(t *testing.T) {
	cases := []struct {
		name     string
		newBlks  int
		min, max float64
	}{
		{"short request (1 new block)", 1, 0.8, 1},
		{"long request (8 new blocks)", 8, 0, 0.1},
	}
	p := NewReuseReq(1e5, 8, Env{CapacityBlocks: 64})
	f := &reqFeeder{p: p, capacity: 64, resident: map[BlockID]bool{}, blocks: map[BlockID]*Block{}}
	f.train(300, 8)
	for _, c := range cases {
		if got, _ := p.Prob(int(reqClass(false, 1, c.newBlks))); got < c.min || got > c.max {
			t.Errorf("%s: P(reuse | 1 read) = %.3f, want it in [%.1f, %.1f]", c.name, got, c.min, c.max)
		}
	}
}

// TestReuseReqKeepsShortRequests: after training, the new block of a short
// request outlives more newer long-request blocks than the capacity (LRU
// would have evicted it), while a long request's blocks leave in LRU
// order among themselves.
func TestReuseReqKeepsShortRequests(t *testing.T) {
	cases := []struct {
		name   string
		policy func(env Env) Policy
		kept   bool
	}{
		{"reuse_req keeps it", func(env Env) Policy { return NewReuseReq(1e5, 8, env) }, true},
		{"lru evicts it", func(Env) Policy { return NewLRU() }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			const capacity = 32
			f := &reqFeeder{p: c.policy(Env{CapacityBlocks: capacity}), capacity: capacity,
				resident: map[BlockID]bool{}, blocks: map[BlockID]*Block{}}
			next := f.train(200, 8)
			probe := next
			f.request(nil, []BlockID{probe})
			next++
			for range 5 {
				fresh := make([]BlockID, 8)
				for i := range fresh {
					fresh[i] = next
					next++
				}
				f.request(nil, fresh)
			}
			if f.resident[probe] != c.kept {
				t.Errorf("short request's block resident = %v after 40 newer long-request blocks, want %v",
					f.resident[probe], c.kept)
			}
		})
	}
}

// TestReuseReqBoundsPending: where Seq never changes (a caller without
// requests) the held accesses are classified in batches, so they stay
// bounded and the model still learns.
func TestReuseReqBoundsPending(t *testing.T) {
	cases := []struct {
		name     string
		accesses int
	}{
		{"below the bound", reqMaxPending - 1},
		{"far above the bound", 5*reqMaxPending + 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewReuseReq(1e5, 8, Env{CapacityBlocks: 16})
			f := &reqFeeder{p: p, capacity: 16, resident: map[BlockID]bool{}, blocks: map[BlockID]*Block{}}
			for i := range c.accesses {
				b := &Block{ID: BlockID(i % 64), Meta: Meta{RefCount: 1}}
				if old, ok := f.blocks[b.ID]; ok {
					b = old
				}
				f.blocks[b.ID] = b
				p.Access(b, 0)
				if !f.resident[b.ID] {
					if p.Len() >= f.capacity {
						v, _ := p.Victim(0)
						p.Evict(v, 0)
						delete(f.resident, v.ID)
					}
					p.Admit(b, 0)
					f.resident[b.ID] = true
				}
			}
			if n := len(p.req.pending); n > reqMaxPending {
				t.Errorf("%d accesses held, want at most %d", n, reqMaxPending)
			}
			if want := c.accesses >= reqMaxPending; (p.sumT > 0) != want {
				t.Errorf("counted accesses %.0f, want some: %v", p.sumT, want)
			}
		})
	}
}

// TestReuseReqLabelsAnAccessOnce: an access is labelled at most once, by
// its block's next access (in the same request or a later one), so every
// access but each block's last is labelled here and no class counts more
// reuses than accesses. The first version labelled from ghosts only, and
// every read of a block in the next request (or 4,096-access batch, for
// callers without requests) matched the same ghost: one earlier access
// read ten times earned ten labels in its class, whose Prob exceeded 1.
func TestReuseReqLabelsAnAccessOnce(t *testing.T) {
	const a, b = BlockID(1), BlockID(2)
	rep := func(id BlockID, n int) []BlockID {
		ids := make([]BlockID, n)
		for i := range ids {
			ids[i] = id
		}
		return ids
	}
	fill := func(n int) []BlockID {
		ids := []BlockID{a}
		for i := range n - 1 {
			ids = append(ids, BlockID(100+i))
		}
		return ids
	}
	cases := []struct {
		name     string
		requests [][]BlockID // the requests' blocks in order
		batch    bool        // all with Seq 0, as a caller without requests
		reuses   float64     // labels in all: accesses minus distinct blocks
		first    float64     // labels in the class of a's first access
	}{
		{"next request reads it once", [][]BlockID{{a}, {b, a}}, false, 1, 1},
		{"next request reads it ten times", [][]BlockID{{a}, append([]BlockID{b}, rep(a, 10)...)}, false, 10, 1},
		{"two later requests read it five times each", [][]BlockID{{a}, rep(a, 5), append([]BlockID{b}, rep(a, 5)...)},
			false, 10, 1},
		{"one request reads it three times", [][]BlockID{rep(a, 3)}, false, 2, 1},
		{"no request numbers: the next batch reads it ten times", [][]BlockID{fill(reqMaxPending), rep(a, 10)}, true,
			10, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := replayRequests(c.requests, c.batch)
			first := reqClass(false, 1, 1)
			if c.batch {
				first = reqClass(false, 1, reqMaxPending)
			}
			if p.sumR != c.reuses || p.reuse[first] != c.first {
				t.Errorf("labels %.0f, in a's first class %d %.0f, want %.0f and %.0f", p.sumR, first, p.reuse[first],
					c.reuses, c.first)
			}
			checkReuseBounded(t, p)
		})
	}
}

// replayRequests has a fresh reuse_req policy read the blocks of requests
// in order, request i numbered i+1 (0 for all with batch), admitting each
// block at its first read, and returns it with the last labels counted.
func replayRequests(requests [][]BlockID, batch bool) *ReuseReq {
	p := NewReuseReq(1e5, 8, Env{CapacityBlocks: 2 * reqMaxPending})
	blocks := map[BlockID]*Block{}
	for i, req := range requests {
		seq := uint64(i + 1)
		if batch {
			seq = 0
		}
		for _, id := range req {
			blk, ok := blocks[id]
			if !ok {
				blk = &Block{ID: id}
				blocks[id] = blk
			}
			blk.Meta = Meta{Seq: seq, RefCount: 1}
			p.Access(blk, 0)
			if !ok {
				p.Admit(blk, 0)
			}
		}
	}
	p.finish()
	return p
}

// checkReuseBounded checks that no class of p counts more reuses than
// accesses, so that no probability exceeds 1.
func checkReuseBounded(t *testing.T, p *ReuseReq) {
	t.Helper()
	for cl := range reqClasses {
		if p.reuse[cl] > p.total[cl] {
			t.Errorf("class %d: reuse %.0f > total %.0f", cl, p.reuse[cl], p.total[cl])
		}
		if pc, all := p.Prob(cl); pc > 1 || all > 1 {
			t.Errorf("class %d: Prob = %.3f, overall %.3f, want both <= 1", cl, pc, all)
		}
	}
}

// TestReuseReqGhostsBounded: blocks read twice, the second time after
// their eviction but within the horizon, then never again. Each read
// ghost frees its entry, and unread ghosts expire with the horizon, so
// the entries kept for ghosts stay within about two horizons of accesses
// however many blocks pass (expire or release doing nothing kept one
// entry a block).
func TestReuseReqGhostsBounded(t *testing.T) {
	const capacity, horizon, blocks = 16, 1, 20000
	p := NewReuseReq(32, horizon, Env{CapacityBlocks: capacity, CapacityBytes: capacity})
	s := NewSet(p, capacity)
	all := make([]*Block, blocks)
	var ev []*Block
	read := func(i, step int) {
		b := all[i]
		if b == nil {
			b = &Block{ID: BlockID(i), Meta: Meta{Size: 1, Seq: uint64(step)}}
			all[i] = b
		}
		b.Meta.Seq = uint64(step)
		if s.Access(b, Time(step)) {
			return
		}
		var err error
		if ev, err = s.Admit(b, Time(step), ev[:0]); err != nil {
			t.Fatalf("step %d: admit %d: %v", step, i, err)
		}
	}
	step, most := 0, 0
	for i := range blocks {
		read(i, step)
		step++
		if j := i - capacity - 2; j >= 0 {
			read(j, step) // evicted, within the horizon: its ghost is read
			step++
		}
		most = max(most, p.idle)
	}
	if bound := 2*horizon*capacity + capacity; most > bound {
		t.Fatalf("up to %d entries kept for ghosts of %d blocks, want at most %d", most, blocks, bound)
	}
}
