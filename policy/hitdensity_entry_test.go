package policy

import (
	"math/rand/v2"
	"testing"
)

// checkHitDensity fails unless p's slots, records and ghost ring agree:
// every slot's record is resident there and holds its block, every ring
// entry but the holes is a ghost at that position, the ghosts are at most
// the capacity and every record in use is a resident or a ghost.
func checkHitDensity(t *testing.T, p *HitDensity) {
	t.Helper()
	for k, sl := range p.res {
		r := p.tab.rec(sl.rec)
		if r.state != hdResident || r.at != uint32(k) || r.id != sl.b.ID || p.tab.get(sl.b) != r {
			t.Fatalf("slot %d (block %d): record state %d at %d id %d", k, sl.b.ID, r.state, r.at, r.id)
		}
	}
	g := &p.ghosts
	live := 0
	for pos := g.tail; pos != g.head; pos++ {
		i := g.buf[pos&uint64(len(g.buf)-1)]
		if i == 0 {
			continue
		}
		if r := p.tab.rec(i); r.state != hdGhost || r.at != uint32(pos) {
			t.Fatalf("ring position %d: record %d state %d at %d", pos, i, r.state, r.at)
		}
		live++
	}
	if live != g.live || live > p.cap.get() || p.tab.len() != len(p.res)+live {
		t.Fatalf("%d ghosts in the ring, %d counted, capacity %d; %d records for %d residents",
			live, g.live, p.cap.get(), p.tab.len(), len(p.res))
	}
}

// Random accesses, forgets and re-admissions keep hit_density's slots,
// records and ghost ring consistent, with ghosts expiring (drop leaves
// stale slots that later admissions claim) and returning.
func TestHitDensityTableConsistent(t *testing.T) {
	for _, horizon := range []int{1, 3} {
		p := NewHitDensity(HitDensityConfig{Samples: 4, Decay: 0.9, Period: 0.5, Horizon: horizon,
			Features: FeatureReads | FeaturePrefix}, Env{CapacityBlocks: 16, Seed: 1})
		d := newUnitDriver(t, p, 16)
		r := rand.New(rand.NewPCG(1, uint64(horizon)))
		for step := range 20000 {
			id := BlockID(r.IntN(80))
			if r.IntN(20) == 0 {
				if b, ok := d.blocks[id]; ok {
					d.s.Forget(b)
					if b.slot != nil {
						t.Fatalf("step %d: forgotten block %d keeps slot %T", step, id, b.slot)
					}
					delete(d.blocks, id)
				}
				continue
			}
			d.access(id)
			checkHitDensity(t, p)
		}
	}
}

// The ghost ring stays small when ghosts keep returning while an old one
// stays: the holes they leave are compacted away, the old ghost stays the
// oldest, and the ring keeps the order of evictions.
func TestHitDensityGhostRingCompacts(t *testing.T) {
	p := NewHitDensity(HitDensityConfig{Samples: 4, Decay: 0.9, Period: 0.5, Horizon: 1,
		Features: FeatureReads}, Env{CapacityBlocks: 1000, Seed: 1})
	blocks := make([]*Block, 8)
	for i := range blocks {
		blocks[i] = &Block{ID: BlockID(i)}
		p.Access(blocks[i], 0)
		p.Admit(blocks[i], 0)
	}
	p.Evict(blocks[0], 1) // the old ghost
	for step := range 100000 {
		b := blocks[1+step%7]
		p.Evict(b, Time(step))
		p.Access(b, Time(step)) // returns: a hole
		p.Admit(b, Time(step))
	}
	checkHitDensity(t, p)
	if n := len(p.ghosts.buf); n > 64 {
		t.Fatalf("ring of %d positions for %d ghost", n, p.ghosts.len())
	}
	if _, i := p.ghosts.oldest(); p.tab.rec(i).id != 0 {
		t.Fatalf("oldest ghost is block %d, want 0", p.tab.rec(i).id)
	}
	for _, b := range blocks[1:4] { // ghosts in eviction order after the old one
		p.Evict(b, 200000)
	}
	for want := range BlockID(4) {
		pos, i := p.ghosts.oldest()
		if got := p.tab.rec(i).id; got != want {
			t.Fatalf("ghost %d in eviction order is block %d", want, got)
		}
		*p.ghosts.at(uint32(pos)) = 0
		p.ghosts.live--
		p.tab.drop(p.tab.rec(i))
	}
}

// A record's read count saturates instead of wrapping: a block read more
// than 2^16 times stays in the top reads bucket.
func TestHitDensityReadsSaturate(t *testing.T) {
	p := NewHitDensity(HitDensityConfig{Samples: 4, Decay: 0.9, Period: 0.5, Horizon: 1,
		Features: FeatureReads}, Env{CapacityBlocks: 4, Seed: 1})
	b := &Block{ID: 1}
	p.Access(b, 0)
	p.Admit(b, 0)
	for i := range 70000 {
		p.Access(b, Time(i))
	}
	if r := p.tab.get(b); r.reads != hdSat || lcClass(p.res[r.at].lc) != kvReadBuckets-1 {
		t.Fatalf("after 70000 reads: reads %d, class %d; want %d, %d", r.reads, lcClass(p.res[r.at].lc), hdSat,
			kvReadBuckets-1)
	}
}

// refVictim returns the slot Victim should choose among p's residents:
// the least by less among all of them, or among the runs drawn from ref,
// a generator that makes only Victim's draws, in order.
func refVictim(p *HitDensity, ref *rand.Rand) int32 {
	n := len(p.res)
	best := hdCand{p.rate(0), 0}
	if n <= p.cfg.Samples {
		for i := 1; i < n; i++ {
			if c := (hdCand{p.rate(i), int32(i)}); p.less(c, best) {
				best = c
			}
		}
		return best.idx
	}
	var starts []int
	for s := 0; s < p.cfg.Samples; s += hdRun * hdMaxRuns {
		for range min((p.cfg.Samples-s+hdRun-1)/hdRun, hdMaxRuns) {
			starts = append(starts, ref.IntN(n))
		}
	}
	s := 0
	for _, j := range starts {
		for k := range min(hdRun, p.cfg.Samples-s) {
			i := (j + k) % n
			if c := (hdCand{p.rate(i), int32(i)}); s+k == 0 || p.less(c, best) {
				best = c
			}
		}
		s += hdRun
	}
	return best.idx
}

// Victim draws its first runs ahead (hdDraws) and rates inline; its
// victims are those of drawing every run when it is needed and rating by
// less, whether the residents change between victims or not, across the
// number of samples and through refreshes.
func TestHitDensityVictimDraws(t *testing.T) {
	for _, samples := range []int{1, 3, 8, 32, 100} {
		p := NewHitDensity(HitDensityConfig{Samples: samples, Decay: 0.9, Period: 0.5, Prior: 64, Horizon: 1,
			Features: FeatureReads | FeaturePrefix}, Env{CapacityBlocks: 300, Seed: 5})
		ref := rand.New(rand.NewPCG(5, 0x6b76616470))
		r := rand.New(rand.NewPCG(9, uint64(samples)))
		blocks := make([]Block, 600)
		for i := range blocks {
			blocks[i] = Block{ID: BlockID(i), Meta: Meta{Pos: int32(r.IntN(4)), RefCount: int32(r.IntN(3))}}
		}
		resident := map[*Block]bool{}
		for step := range 20000 {
			b := &blocks[r.IntN(len(blocks))]
			switch op := r.IntN(10); {
			case op < 4 && len(p.res) > 0: // victim, evicted or not
				want := refVictim(p, ref)
				v, _ := p.Victim(Time(step))
				if p.victim != want {
					t.Fatalf("samples %d, step %d: victim in slot %d, want %d", samples, step, p.victim, want)
				}
				if op < 3 {
					p.Evict(v, Time(step))
					delete(resident, v)
				}
			case op < 9:
				p.Access(b, Time(step))
				if !resident[b] && len(p.res) < 300 {
					p.Admit(b, Time(step))
					resident[b] = true
				}
			default:
				p.Forget(b)
				delete(resident, b)
			}
		}
		checkHitDensity(t, p)
	}
}
