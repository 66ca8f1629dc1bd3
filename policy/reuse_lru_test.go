package policy

import "testing"

// access feeds an access of b with the given reads (RefCount) and admits
// b if it is not resident, evicting the victim first when p is full.
func reuseAccess(p *ReuseLRU, b *Block, reads int32, capacity int, resident map[BlockID]bool) {
	b.Meta.RefCount = reads
	accessAdmit(p, b, 0, capacity, resident)
}

// accessAdmit accesses b in p at now and, if b is not among resident,
// admits it, evicting victims first while p holds capacity blocks; it
// returns the victims' IDs.
func accessAdmit(p Policy, b *Block, now Time, capacity int, resident map[BlockID]bool) []BlockID {
	p.Access(b, now)
	if resident[b.ID] {
		return nil
	}
	var out []BlockID
	for p.Len() >= capacity {
		v, ok := p.Victim(now)
		if !ok {
			break
		}
		p.Evict(v, now)
		delete(resident, v.ID)
		out = append(out, v.ID)
	}
	p.Admit(b, now)
	resident[b.ID] = true
	return out
}

// TestReuseLRULearnsClasses: the reuse probability of a class is learned
// from RefCount transitions and from hits: blocks read once and then again
// teach that one read predicts another; blocks read once only teach the
// opposite.
func TestReuseLRULearnsClasses(t *testing.T) {
	cases := []struct {
		name     string
		reread   bool    // every block is read a second time
		second   int32   // RefCount at the second read
		min, max float64 // the range of the learned P(reuse | 1 read)
	}{
		{"re-read blocks", true, 2, 0.9, 1},
		{"re-read, RefCount not counting reads (hits teach)", true, 1, 0.9, 1},
		{"single reads", false, 2, 0, 0.1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewReuseLRU(1e5, Env{CapacityBlocks: 8})
			res := map[BlockID]bool{}
			blocks := make([]*Block, 200)
			for i := range blocks {
				blocks[i] = &Block{ID: BlockID(i)}
				reuseAccess(p, blocks[i], 1, 8, res)
				if c.reread && i > 0 {
					reuseAccess(p, blocks[i-1], c.second, 8, res)
				}
			}
			if one, _ := p.Prob(0); one < c.min || one > c.max {
				t.Errorf("P(reuse | 1 read) = %.3f, want it in [%.1f, %.1f]", one, c.min, c.max)
			}
		})
	}
}

// TestReuseLRUKeepsLikelyReuse: once the model has learned that blocks
// read twice are read again and half the blocks read once are not, a
// block read twice outlives blocks read once after it, while among blocks
// of one class the order is LRU.
func TestReuseLRUKeepsLikelyReuse(t *testing.T) {
	cases := []struct {
		name      string
		hotReads  int32
		wantFirst BlockID // first victim after the probe blocks
	}{
		{"twice-read block kept", 2, 1001},
		{"once-read block is oldest", 1, 1000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			const capacity = 16
			p := NewReuseLRU(1e5, Env{CapacityBlocks: capacity})
			res := map[BlockID]bool{}
			// Training: hot blocks read four times, singles once.
			for i := 0; i < 400; i += 2 {
				a, s := &Block{ID: BlockID(i)}, &Block{ID: BlockID(i + 1)}
				reuseAccess(p, s, 1, capacity, res)
				for r := int32(1); r <= 4; r++ {
					reuseAccess(p, a, r, capacity, res)
				}
			}
			for p.Len() > 0 {
				v, _ := p.Victim(0)
				p.Evict(v, 0)
			}
			probe := []*Block{{ID: 1000}, {ID: 1001}, {ID: 1002}, {ID: 1003}}
			reuseAccess(p, probe[0], c.hotReads, capacity, res)
			for _, b := range probe[1:] {
				reuseAccess(p, b, 1, capacity, res)
			}
			v, ok := p.Victim(0)
			if !ok || v.ID != c.wantFirst {
				t.Fatalf("victim %v (ok %v), want block %d", v, ok, c.wantFirst)
			}
		})
	}
}

// TestReuseLRUForgetAndLen: Len counts residents; Evict and Forget remove
// them; a policy with none has no victim.
func TestReuseLRUForgetAndLen(t *testing.T) {
	cases := []struct {
		name   string
		forget bool
	}{{"evict", false}, {"forget", true}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewReuseLRU(32, Env{CapacityBlocks: 2})
			a, b := &Block{ID: 1}, &Block{ID: 2}
			for _, x := range []*Block{a, b} {
				p.Access(x, 0)
				p.Admit(x, 0)
			}
			if p.Len() != 2 {
				t.Fatalf("Len %d, want 2", p.Len())
			}
			for _, x := range []*Block{a, b} {
				if c.forget {
					p.Forget(x)
				} else {
					p.Evict(x, 0)
				}
			}
			if _, ok := p.Victim(0); ok || p.Len() != 0 {
				t.Fatalf("after removing both: Len %d, victim found %v", p.Len(), ok)
			}
		})
	}
}

// TestKVLearnedExperts: kv_learned builds from the registry and holds
// reuse_lru among its experts, so its decisions can follow it.
func TestKVLearnedExperts(t *testing.T) {
	for _, spec := range []string{"kv_learned", "reuse_lru", "reuse_lru:window=4"} {
		p, err := New(spec, Env{CapacityBlocks: 16})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		b := &Block{ID: 7}
		p.Access(b, 0)
		p.Admit(b, 0)
		if v, ok := p.Victim(0); !ok || v != b {
			t.Errorf("%s: victim %v %v, want the only resident", spec, v, ok)
		}
	}
	if _, err := New("reuse_lru:window=0", Env{}); err == nil {
		t.Error("reuse_lru:window=0 accepted, want an error")
	}
}

// drain hands the residents of reuse_lru and reuse_req over in the order
// their victims come one by one (their steps differ: each block is
// admitted after its access), forgets them and frees their slots; with
// two residents that tie (admitted without accesses) it does nothing and
// reports false.
func TestLifetimesDrain(t *testing.T) {
	for _, name := range []string{"reuse_lru", "reuse_req"} {
		t.Run(name, func(t *testing.T) {
			const n, capacity = 400, 64
			mk := func() (Policy, []Block) {
				blocks := benchBlocks(n, 16)
				p := mustNew(t, name, Env{CapacityBlocks: capacity})
				res := map[BlockID]bool{}
				for i := range 3 * n {
					accessAdmit(p, &blocks[(i*7+i/5)%n], 0, capacity, res)
				}
				return p, blocks
			}
			p, _ := mk()
			q, qb := mk()
			var want []BlockID
			for p.Len() > 0 {
				v, _ := p.Victim(0)
				p.Evict(v, 0)
				p.Forget(v)
				want = append(want, v.ID)
			}
			var got []BlockID
			if !q.(drainer).drain(func(b *Block) { got = append(got, b.ID) }) {
				t.Fatal("drain refused residents that do not tie")
			}
			if q.Len() != 0 || len(got) != len(want) || len(got) != capacity {
				t.Fatalf("drained %d blocks, Len after %d; evicted one by one %d", len(got), q.Len(), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("drained block %d is %d, victim %d", i, got[i], want[i])
				}
			}
			for _, id := range got {
				if e, ok := qb[id].slot.(*rlEntry); ok && e.owner != nil {
					t.Fatalf("block %d's slot still holds its entry", id)
				}
			}
		})
	}
	p := NewReuseLRU(32, Env{CapacityBlocks: 8})
	a, b := &Block{ID: 1, Meta: Meta{Size: 1}}, &Block{ID: 2, Meta: Meta{Size: 1}}
	p.Admit(a, 0)
	p.Admit(b, 0) // same step and class: a tie
	if p.drain(func(*Block) { t.Fatal("drain handed over a block with a tie") }) || p.Len() != 2 {
		t.Fatalf("drain with a tie: Len %d after", p.Len())
	}
}
